"""A parse tree of JSONC text in which every node knows its offsets.

Comments and trailing commas are accepted (JSONC). The tree keeps, for each container, where
each child starts and ends and where the comma after it is, which is all the editor needs to
insert or remove a member without touching anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engram.edit.jsonc.scanner import TRIVIA, JsoncSyntaxError, Tok, Token, scan
from engram.edit.plan import JSONValue

_SCALARS = {Tok.TRUE: True, Tok.FALSE: False, Tok.NULL: None}


@dataclass
class Node:
    """A value in the document.

    Args:
        kind: ``"object"``, ``"array"`` or ``"scalar"``.
        start: offset of the first character of the value.
        end: offset just after its last character.
        value: the decoded value of a scalar (containers build theirs with :meth:`to_value`).
        children: the members of an object or the elements of an array, in order.
        commas: for each child, the offset of the comma after it (``-1`` when there is none).
    """

    kind: str
    start: int
    end: int
    value: JSONValue = None
    children: list[Child] = field(default_factory=list)
    commas: list[int] = field(default_factory=list)

    def to_value(self) -> JSONValue:
        """The plain Python value this node stands for (the last of duplicate keys wins)."""
        if self.kind == "object":
            return {
                child.key: child.node.to_value() for child in self.children if child.key is not None
            }
        if self.kind == "array":
            return [child.node.to_value() for child in self.children]
        return self.value

    def member(self, key: str) -> Child | None:
        """The last member named ``key`` of an object (what ``JSON.parse`` would keep)."""
        for child in reversed(self.children):
            if child.key == key:
                return child
        return None


@dataclass
class Child:
    """One member of an object (``key`` set) or element of an array (``key`` is None).

    ``start`` is where the member begins (its key, for an object member); ``node`` is its value.
    """

    start: int
    node: Node
    key: str | None = None


def parse_tree(text: str) -> Node | None:
    """Parse JSONC ``text`` (no BOM) into a tree; ``None`` when it is empty or only whitespace.

    Raises:
        JsoncSyntaxError: with the offset of the first problem (a file holding only comments
            has no value: that is an error too, not an empty object).
    """
    tokens = [tok for tok in scan(text) if tok.kind not in TRIVIA]
    if tokens[0].kind is Tok.EOF:
        if text.strip(" \t\r\n"):
            raise JsoncSyntaxError("the file holds only comments, no JSON value", len(text))
        return None
    parser = _Parser(tokens)
    node = parser.value()
    last = parser.peek()
    if last.kind is not Tok.EOF:
        raise JsoncSyntaxError(f"unexpected {last.kind.value} after the document", last.start)
    return node


class _Parser:
    """Recursive descent over the significant tokens."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> Token:
        return self.tokens[self.pos]

    def take(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind is not Tok.EOF:
            self.pos += 1
        return token

    def value(self) -> Node:
        token = self.take()
        if token.kind is Tok.OPEN_BRACE:
            return self.container(token, Tok.CLOSE_BRACE, keyed=True)
        if token.kind is Tok.OPEN_BRACKET:
            return self.container(token, Tok.CLOSE_BRACKET, keyed=False)
        if token.kind is Tok.STRING:
            return Node("scalar", token.start, token.end, token.value)
        if token.kind is Tok.NUMBER:
            try:
                number = _number(token.value)
            except ValueError:  # CPython refuses to parse ints of 4,300+ digits
                raise JsoncSyntaxError("a number too long to read", token.start) from None
            return Node("scalar", token.start, token.end, number)
        if token.kind in _SCALARS:
            return Node("scalar", token.start, token.end, _SCALARS[token.kind])
        raise JsoncSyntaxError(f"expected a value, found {token.kind.value}", token.start)

    def container(self, open_tok: Token, close: Tok, *, keyed: bool) -> Node:
        node = Node("object" if keyed else "array", open_tok.start, open_tok.start)
        while True:
            token = self.peek()
            if token.kind is close:
                self.take()
                node.end = token.end
                return node
            if node.children and node.commas[-1] < 0:
                what = "'}' or ','" if keyed else "']' or ','"
                raise JsoncSyntaxError(f"expected {what}, found {token.kind.value}", token.start)
            node.children.append(self.member(token) if keyed else Child(token.start, self.value()))
            after = self.peek()
            node.commas.append(after.start if after.kind is Tok.COMMA else -1)
            if after.kind is Tok.COMMA:
                self.take()

    def member(self, key_tok: Token) -> Child:
        if key_tok.kind is not Tok.STRING:
            raise JsoncSyntaxError(
                f"expected a property name in double quotes, found {key_tok.kind.value}",
                key_tok.start,
            )
        self.take()
        colon = self.take()
        if colon.kind is not Tok.COLON:
            raise JsoncSyntaxError(f"expected ':', found {colon.kind.value}", colon.start)
        return Child(key_tok.start, self.value(), key_tok.value)


def _number(raw: str) -> int | float:
    if any(c in raw for c in ".eE"):
        return float(raw)
    return int(raw)
