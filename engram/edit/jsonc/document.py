"""Set and remove values in JSON / JSONC text, keeping every other byte.

Each change returns an :class:`Undo` describing what the insertion created; removing with it
gives back the original text byte for byte (including an empty ``{}`` Engram filled, parents it
created, and a blank file). The caller stores the Undo in the link ledger.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engram.edit.jsonc.layout import Layout, detect_layout, nest, render, render_member
from engram.edit.jsonc.scanner import TRIVIA, JsoncSyntaxError, Tok, as_parse_error, scan
from engram.edit.jsonc.splice import insert_last, line_indent, remove_child
from engram.edit.jsonc.tree import Node, parse_tree
from engram.edit.plan import JSONValue
from engram.errors import EngramError

BOM = "\ufeff"


@dataclass(frozen=True)
class Undo:
    """What a set / add created, so removal can restore the original bytes.

    Args:
        existing: how many keys of the path were already there (the key after them was added).
        container_text: the original inside of the empty container the first new key went into.
        replaced_text: the original text of a value that was replaced (restored on removal).
        blank_text: the original text of a document that was empty or whitespace.
        comma_kept: strict JSON reused the user's trailing comma before the new member.
    """

    existing: int
    container_text: str | None = None
    replaced_text: str | None = None
    blank_text: str | None = None
    comma_kept: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form for the ledger."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Undo:
        """The inverse of :meth:`to_dict`."""
        return cls(
            int(data["existing"]),
            data.get("container_text"),
            data.get("replaced_text"),
            data.get("blank_text"),
            data.get("comma_kept"),
        )


def parse(text: str, where: str = "<text>") -> Node | None:
    """The parse tree of ``text`` without its BOM (None when blank); ``edit.parse_error`` if bad."""
    body = text.removeprefix(BOM)
    try:
        return parse_tree(body)
    except JsoncSyntaxError as err:
        raise as_parse_error(body, err, where) from None
    except RecursionError:
        too_deep = JsoncSyntaxError("values nested too deeply to edit safely", 0)
        raise as_parse_error(body, too_deep, where) from None


def load(text: str, where: str = "<text>") -> JSONValue:
    """The value of a JSON / JSONC document; ``{}`` when it is empty or only whitespace."""
    root = parse(text, where)
    return {} if root is None else root.to_value()


def get(text: str, path: tuple[str, ...], where: str = "<text>") -> tuple[bool, JSONValue]:
    """``(found, value)`` at ``path``."""
    node = _walk(parse(text, where), path)
    return (False, None) if node is None else (True, node.to_value())


def set_value(
    text: str, path: tuple[str, ...], value: JSONValue, *, strict: bool, where: str = "<text>"
) -> tuple[str, Undo]:
    """``text`` with ``value`` at ``path`` (parents created as needed) and its :class:`Undo`."""
    if not path:
        raise EngramError("edit.bad_path", "cannot replace a whole document", "name a key path")
    bom = BOM if text.startswith(BOM) else ""
    body = text.removeprefix(BOM)
    root = parse(body, where)
    layout = detect_layout(body, root, strict=strict)
    if root is None:
        member = render_member(path[0], nest(path[1:], value), layout.unit, layout, False)
        eol = layout.eol
        return bom + "{" + eol + layout.unit + member + eol + "}" + eol, Undo(0, blank_text=body)
    node = _require_object(root, (), where)
    for depth, key in enumerate(path):
        child = node.member(key)
        if child is None:
            new = _insert(body, node, key, nest(path[depth + 1 :], value), layout, strict)
            interior = body[node.start + 1 : node.end - 1] if not node.children else None
            kept = _reuses_comma(node, strict)
            return bom + new, Undo(depth, container_text=interior, comma_kept=kept)
        if depth == len(path) - 1:
            old = body[child.node.start : child.node.end]
            if same(child.node.to_value(), value):
                return text, Undo(len(path))
            new_value = render(value, line_indent(body, child.start), layout)
            new = body[: child.node.start] + new_value + body[child.node.end :]
            return bom + new, Undo(len(path), replaced_text=old)
        node = _require_object(child.node, path[: depth + 1], where)
    raise AssertionError("unreachable")


def add_to_list(
    text: str, path: tuple[str, ...], item: JSONValue, *, strict: bool, where: str = "<text>"
) -> tuple[str, Undo | None]:
    """``text`` with ``item`` appended to the array at ``path`` (None Undo when already there)."""
    root = parse(text, where)
    node = _walk(root, path)
    if node is None:
        return set_value(text, path, [item], strict=strict, where=where)
    if node.kind != "array":
        raise type_conflict(path, "an array", where)
    if any(same(child.node.to_value(), item) for child in node.children):
        return text, None
    bom = BOM if text.startswith(BOM) else ""
    body = text.removeprefix(BOM)
    layout = detect_layout(body, root, strict=strict)
    interior = body[node.start + 1 : node.end - 1] if not node.children else None
    undo = Undo(len(path), container_text=interior, comma_kept=_reuses_comma(node, strict))
    return bom + _insert(body, node, None, item, layout, strict), undo


def remove_value(
    text: str, path: tuple[str, ...], undo: Undo | None = None, *, where: str = "<text>"
) -> str:
    """``text`` without the member at ``path``; with ``undo``, exactly as it was before the set."""
    bom = BOM if text.startswith(BOM) else ""
    body = text.removeprefix(BOM)
    root = parse(body, where)
    parent = _walk(root, path[:-1])
    child = parent.member(path[-1]) if parent is not None and parent.kind == "object" else None
    if parent is None or child is None:
        return text
    if undo is not None and undo.replaced_text is not None:
        return bom + body[: child.node.start] + undo.replaced_text + body[child.node.end :]
    keep = undo is not None and bool(undo.comma_kept) and undo.existing == len(path) - 1
    body = remove_child(body, parent, parent.children.index(child), keep_comma=keep)
    return bom + _tidy_created(body, path, undo, where)


def remove_from_list(
    text: str,
    path: tuple[str, ...],
    item: JSONValue,
    undo: Undo | None = None,
    *,
    where: str = "<text>",
) -> str:
    """``text`` without the last element equal to ``item`` in the array at ``path``.

    When Engram created the array (``undo.existing < len(path)``) and it is now empty, the
    array and the parents Engram created go too.
    """
    bom = BOM if text.startswith(BOM) else ""
    body = text.removeprefix(BOM)
    node = _walk(parse(body, where), path)
    if node is None or node.kind != "array":
        return text
    matches = [i for i, child in enumerate(node.children) if same(child.node.to_value(), item)]
    if not matches:
        return text
    keep = undo is not None and bool(undo.comma_kept) and undo.existing == len(path)
    body = remove_child(body, node, matches[-1], keep_comma=keep)
    emptied = _walk(parse(body, where), path)
    if undo is None or emptied is None or emptied.children:
        return bom + body
    if undo.existing < len(path) and _only_blank(body, emptied):
        return remove_value(bom + body, path, undo, where=where)
    inside = body[emptied.start + 1 : emptied.end - 1]
    if undo.container_text is not None and _comments(inside) == _comments(undo.container_text):
        body = body[: emptied.start + 1] + undo.container_text + body[emptied.end - 1 :]
    return bom + body


def same(a: JSONValue, b: JSONValue) -> bool:
    """JSON equality: ``true`` is not ``1``, ``1`` equals ``1.0``, key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def without(
    data: dict[str, Any], path: tuple[str, ...], *, prune: bool, kept: int = 0
) -> dict[str, Any]:
    """A copy of ``data`` without ``path`` (``prune``: and without parents left empty, but
    for the first ``kept`` of them, which were there before)."""
    if len(path) == 1:
        return {k: v for k, v in data.items() if k != path[0]}
    child = without(data[path[0]], path[1:], prune=prune, kept=kept - 1)
    if prune and kept <= 0 and not child:
        return {k: v for k, v in data.items() if k != path[0]}
    return {**data, path[0]: child}


def _tidy_created(body: str, path: tuple[str, ...], undo: Undo | None, where: str) -> str:
    """Remove now-empty parents Engram created, then restore the container it filled."""
    existing = len(path) - 1 if undo is None else undo.existing
    depth = len(path) - 1
    while depth > existing:
        node = _walk(parse(body, where), path[:depth])
        if node is None or node.kind != "object" or node.children or not _only_blank(body, node):
            return body
        parent = _walk(parse(body, where), path[: depth - 1])
        assert parent is not None
        member = parent.member(path[depth - 1])
        assert member is not None
        keep = undo is not None and bool(undo.comma_kept) and depth - 1 == existing
        body = remove_child(body, parent, parent.children.index(member), keep_comma=keep)
        depth -= 1
    if undo is None:
        return body
    node = _walk(parse(body, where), path[:existing])
    if node is None or node.children:
        return body
    if undo.container_text is not None:
        inside = body[node.start + 1 : node.end - 1]
        if _comments(inside) == _comments(undo.container_text):
            return body[: node.start + 1] + undo.container_text + body[node.end - 1 :]
    outside = body[: node.start] + body[node.end :]
    blank = outside.strip(" \t\r\n") == "" and _only_blank(body, node)
    if undo.blank_text is not None and existing == 0 and blank:
        return undo.blank_text
    return body


def _insert(
    body: str, node: Node, key: str | None, value: JSONValue, layout: Layout, strict: bool
) -> str:
    def entry(indent: str, inline: bool) -> str:
        return render_member(key, value, indent, layout, inline)

    return insert_last(body, node, entry, layout.eol, layout.unit, strict=strict)


def _reuses_comma(node: Node, strict: bool) -> bool | None:
    """True when a strict insertion into ``node`` turns the user's trailing comma into ours."""
    return True if strict and node.children and node.commas[-1] >= 0 else None


def _walk(root: Node | None, path: tuple[str, ...]) -> Node | None:
    node = root
    for key in path:
        if node is None or node.kind != "object":
            return None
        child = node.member(key)
        node = None if child is None else child.node
    return node


def _require_object(node: Node, path: tuple[str, ...], where: str) -> Node:
    if node.kind != "object":
        raise type_conflict(path, "an object", where)
    return node


def type_conflict(path: tuple[str, ...], wanted: str, where: str) -> EngramError:
    shown = ".".join(path) or "the top level"
    return EngramError(
        "edit.type_conflict",
        f"{where}: {shown} is not {wanted}, so Engram cannot add its entry there",
        f"fix {shown} in {where} by hand, then retry",
        file=where,
    )


def _only_blank(body: str, node: Node) -> bool:
    return body[node.start + 1 : node.end - 1].strip(" \t\r\n") == ""


def _comments(text: str) -> list[str]:
    try:
        tokens = scan(text)
    except JsoncSyntaxError:
        return ["<unscannable>"]
    return [
        text[t.start : t.end] for t in tokens if t.kind in TRIVIA and t.kind is not Tok.WHITESPACE
    ]
