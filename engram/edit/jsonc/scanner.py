"""Split JSONC text into tokens that remember where they are.

Every token carries its start and end offset in the text, so the editor can change one value
and leave every other byte (comments, spacing, commas) exactly where the user put it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engram.errors import EngramError


class Tok(Enum):
    """The kinds of token JSONC text is made of."""

    OPEN_BRACE = "{"
    CLOSE_BRACE = "}"
    OPEN_BRACKET = "["
    CLOSE_BRACKET = "]"
    COLON = ":"
    COMMA = ","
    STRING = "string"
    NUMBER = "number"
    TRUE = "true"
    FALSE = "false"
    NULL = "null"
    LINE_COMMENT = "line comment"
    BLOCK_COMMENT = "block comment"
    WHITESPACE = "whitespace"
    EOF = "end of file"


TRIVIA = frozenset({Tok.LINE_COMMENT, Tok.BLOCK_COMMENT, Tok.WHITESPACE})
_PUNCT = {
    "{": Tok.OPEN_BRACE,
    "}": Tok.CLOSE_BRACE,
    "[": Tok.OPEN_BRACKET,
    "]": Tok.CLOSE_BRACKET,
    ":": Tok.COLON,
    ",": Tok.COMMA,
}
_WORDS = {"true": Tok.TRUE, "false": Tok.FALSE, "null": Tok.NULL}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_WS = " \t\r\n"
_DIGITS = "0123456789"


@dataclass(frozen=True)
class Token:
    """One token: its kind, its span ``text[start:end]`` and, for strings, the decoded value."""

    kind: Tok
    start: int
    end: int
    value: str = ""


class JsoncSyntaxError(Exception):
    """A syntax error at ``offset`` (turned into ``edit.parse_error`` with line and column)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def as_parse_error(text: str, err: JsoncSyntaxError, where: str) -> EngramError:
    """An ``edit.parse_error`` naming ``where`` (a file) and the line and column of ``err``."""
    line, column = line_col(text, err.offset)
    return EngramError(
        "edit.parse_error",
        f"{where}:{line}:{column}: {err.message}",
        "fix the file by hand (Engram never rewrites a file it cannot parse), then retry",
        file=where,
        line=line,
        column=column,
    )


def scan(text: str) -> list[Token]:
    """Every token in ``text``, trivia included, ending with an EOF token."""
    tokens: list[Token] = []
    pos, size = 0, len(text)
    while pos < size:
        token = _scan_one(text, pos)
        tokens.append(token)
        pos = token.end
    tokens.append(Token(Tok.EOF, size, size))
    return tokens


def _scan_one(text: str, pos: int) -> Token:
    ch = text[pos]
    if ch in _WS:
        end = pos + 1
        while end < len(text) and text[end] in _WS:
            end += 1
        return Token(Tok.WHITESPACE, pos, end)
    if ch in _PUNCT:
        return Token(_PUNCT[ch], pos, pos + 1)
    if ch == '"':
        return _scan_string(text, pos)
    if ch == "/":
        return _scan_comment(text, pos)
    if ch == "-" or ch in _DIGITS:
        return _scan_number(text, pos)
    end = pos
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    word = text[pos:end]
    if word in _WORDS:
        return Token(_WORDS[word], pos, end)
    raise JsoncSyntaxError(f"unexpected {word or ch!r}", pos)


def _scan_comment(text: str, pos: int) -> Token:
    nxt = text[pos + 1 : pos + 2]
    if nxt == "/":
        end = pos + 2
        while end < len(text) and text[end] not in "\r\n":
            end += 1
        return Token(Tok.LINE_COMMENT, pos, end)
    if nxt == "*":
        close = text.find("*/", pos + 2)
        if close < 0:
            raise JsoncSyntaxError("unterminated block comment", pos)
        return Token(Tok.BLOCK_COMMENT, pos, close + 2)
    raise JsoncSyntaxError("unexpected '/'", pos)


def _scan_string(text: str, pos: int) -> Token:
    out: list[str] = []
    i, size = pos + 1, len(text)
    while i < size:
        ch = text[i]
        if ch == '"':
            return Token(Tok.STRING, pos, i + 1, "".join(out))
        if ch == "\\":
            i = _scan_escape(text, i, out)
            continue
        if ch in "\r\n" or ord(ch) < 0x20:
            raise JsoncSyntaxError("unterminated string (control character inside)", i)
        out.append(ch)
        i += 1
    raise JsoncSyntaxError("unterminated string", pos)


def _scan_escape(text: str, i: int, out: list[str]) -> int:
    """Decode the escape at ``text[i] == '\\'``; return the offset after it."""
    code = text[i + 1 : i + 2]
    if code in _ESCAPES:
        out.append(_ESCAPES[code])
        return i + 2
    if code == "u":
        digits = text[i + 2 : i + 6]
        if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise JsoncSyntaxError("invalid \\u escape", i)
        unit = int(digits, 16)
        # A surrogate pair written as two escapes is one character.
        if 0xD800 <= unit < 0xDC00 and text[i + 6 : i + 8] == "\\u":
            low_digits = text[i + 8 : i + 12]
            if len(low_digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in low_digits):
                low = int(low_digits, 16)
                if 0xDC00 <= low < 0xE000:
                    out.append(chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
                    return i + 12
        out.append(chr(unit))
        return i + 6
    raise JsoncSyntaxError(f"invalid escape \\{code}", i)


def _scan_number(text: str, pos: int) -> Token:
    i, size = pos, len(text)
    if text[i] == "-":
        i += 1
    if i >= size or text[i] not in _DIGITS:
        raise JsoncSyntaxError("invalid number", pos)
    if text[i] == "0":
        i += 1
    else:
        while i < size and text[i] in _DIGITS:
            i += 1
    if i < size and text[i] == ".":
        i += 1
        if i >= size or text[i] not in _DIGITS:
            raise JsoncSyntaxError("invalid number", pos)
        while i < size and text[i] in _DIGITS:
            i += 1
    if i < size and text[i] in "eE":
        i += 1
        if i < size and text[i] in "+-":
            i += 1
        if i >= size or text[i] not in _DIGITS:
            raise JsoncSyntaxError("invalid number", pos)
        while i < size and text[i] in _DIGITS:
            i += 1
    if i < size and (text[i].isalnum() or text[i] == "_"):
        raise JsoncSyntaxError("invalid number", pos)
    return Token(Tok.NUMBER, pos, i, text[pos:i])
