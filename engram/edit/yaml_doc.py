"""Set and remove values in YAML text (Continue's and Goose's configs), keeping every other byte.

A new key (``engram:`` under ``extensions:``) or a new list item (``- name: engram`` under
``mcpServers:``) is rendered by ``ruamel.yaml`` in the file's own indentation and spliced in as
lines after the last line of its block; the exact text inserted is returned, so removal deletes
exactly that text and link then unlink gives back the original bytes. Anything else (a flow
``{...}`` or ``[...]`` container, replacing an existing value, an entry the user moved) goes
through ``ruamel.yaml``'s round-trip model, which keeps comments, order, quoting, anchors and
aliases of everything it does not touch. Every result is re-parsed and compared with what was
intended before it is returned.

Refused with a one-line error, never written: text that is not YAML (tabs used for indentation,
duplicate keys, several documents), a root that is not a mapping, and a container shared
through an anchor (adding Engram there would add it under every alias too).
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from engram.edit import yaml_layout as layout
from engram.edit.jsonc.document import same, type_conflict, without
from engram.edit.plan import JSONValue
from engram.errors import EngramError

BOM = "\ufeff"


def load(text: str, where: str = "<text>") -> dict[str, Any]:
    """The plain data of a YAML document (``{}`` when blank); ``edit.parse_error`` if bad."""
    return copy.deepcopy(_load(text.removeprefix(BOM), where))


@lru_cache(maxsize=64)
def _load(text: str, where: str) -> dict[str, Any]:
    """:func:`load` without the copy: one edit reads the same text several times (the editor,
    the engine's checks), and ruamel's pure-Python parser is the slow part of a link."""
    data = layout.plain(layout.parse(text, where))
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise EngramError(
            "edit.type_conflict",
            f"{where}: the document is not a mapping, so Engram cannot add its entry",
            f"fix {where} by hand (its top level must be `key: value` lines), then retry",
            file=where,
        )
    return data


def get(text: str, path: tuple[str, ...], where: str = "<text>") -> tuple[bool, JSONValue]:
    """``(found, value)`` at ``path``."""
    node: Any = _load(text.removeprefix(BOM), where)
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    return True, copy.deepcopy(node)


def set_value(
    text: str, path: tuple[str, ...], value: JSONValue, where: str = "<text>"
) -> tuple[str, str | None]:
    """``text`` with ``value`` at ``path``, and the exact text inserted (None if not spliced)."""
    if text.startswith(BOM):
        new, inserted = set_value(text[1:], path, value, where)
        return BOM + new, inserted
    data = load(text, where)
    expected = _with(data, path, value)
    tree = layout.parse(text, where)
    at, missing = _deepest(tree, path, where)
    if missing:
        spliced = layout.insert_key(text, tree, at, missing, value)
        if spliced is not None and _parses_to(spliced[0], expected):
            return spliced
    else:  # replacing (re-pin, --force, unlink of a forced value): only those lines change
        replaced = layout.replace_key(text, tree, path, value)
        if replaced is not None and _parses_to(replaced, expected):
            return replaced, None
    return _round_trip(text, where, expected, lambda doc: _assign(doc, path, value, where)), None


def remove_value(
    text: str, path: tuple[str, ...], inserted: str | None = None, where: str = "<text>"
) -> str:
    """``text`` without ``path``; the exact inverse of :func:`set_value` when ``inserted`` is
    given. Parents left empty are removed too when they came with the inserted text."""
    if text.startswith(BOM):
        return BOM + remove_value(text[1:], path, inserted, where)
    data = load(text, where)
    found, _ = get(text, path, where)
    if not found:
        return text
    # as many emptied parents gone as the inserted text may have created, the most first
    wanted = [without(data, path, prune=True, kept=kept) for kept in range(len(path))]
    undone = _cut(text, inserted, wanted)
    if undone is None:
        undone = _drop(text, path, wanted, where)
    if undone is not None:
        return undone
    return _round_trip(text, where, wanted[-1], lambda doc: _delete(doc, path))


def add_to_list(
    text: str, path: tuple[str, ...], item: JSONValue, where: str = "<text>"
) -> tuple[str, str | None] | None:
    """``text`` with ``item`` appended to the list at ``path`` (created when missing) and the
    text inserted; None when an equal item is already there."""
    if text.startswith(BOM):
        done = add_to_list(text[1:], path, item, where)
        return None if done is None else (BOM + done[0], done[1])
    data = load(text, where)
    found, current = get(text, path, where)
    if found and not isinstance(current, list):
        raise type_conflict(path, "a list", where)
    items = current if isinstance(current, list) else []
    if any(same(existing, item) for existing in items):
        return None
    if not found:
        return set_value(text, path, [item], where)
    expected = _with(data, path, [*items, item])
    tree = layout.parse(text, where)
    node = _node(tree, path)
    layout.refuse_shared(tree, path, where)
    spliced = layout.insert_item(text, node, item)
    if spliced is not None and _parses_to(spliced[0], expected):
        return spliced
    return _round_trip(text, where, expected, lambda doc: _node(doc, path).append(item)), None


def remove_from_list(
    text: str, path: tuple[str, ...], item: JSONValue, inserted: str | None, where: str = "<text>"
) -> str:
    """``text`` without the element equal to ``item`` in the list at ``path`` (and the list
    itself when :func:`add_to_list` created it and nothing else is left)."""
    if text.startswith(BOM):
        return BOM + remove_from_list(text[1:], path, item, inserted, where)
    data = load(text, where)
    found, current = get(text, path, where)
    if not found or not isinstance(current, list):
        return text
    rest = [existing for existing in current if not same(existing, item)]
    if len(rest) == len(current):
        return text
    wanted = [_with(data, path, rest)]
    if not rest:
        wanted.insert(0, without(data, path, prune=True))
    undone = _cut(text, inserted, wanted)
    if undone is not None:
        return undone

    def drop(doc: Any) -> None:
        node = _node(doc, path)
        for i, existing in enumerate(node):
            if same(layout.plain(existing), item):
                del node[i]
                return

    return _round_trip(text, where, wanted[-1], drop)


def _cut(text: str, inserted: str | None, wanted: list[dict[str, Any]]) -> str | None:
    """``text`` without one occurrence of ``inserted`` that leaves one of ``wanted``."""
    if not inserted:
        return None
    at = text.rfind(inserted)
    while at >= 0:
        candidate = text[:at] + text[at + len(inserted) :]
        if any(_parses_to(candidate, data) for data in wanted):
            return candidate
        at = text.rfind(inserted, 0, at)
    return None


def _drop(text: str, path: tuple[str, ...], wanted: list[dict[str, Any]], where: str) -> str | None:
    """``text`` without the lines of ``path`` (or of its parent, when that held only it): the
    removal when the inserted text is no longer there verbatim (a re-pinned command)."""
    tree = layout.parse(text, where)
    for depth in (len(path), len(path) - 1):
        if depth < 1:
            continue
        candidate = layout.drop_key(text, tree, path[:depth])
        if candidate is not None and any(_parses_to(candidate, data) for data in wanted):
            return candidate
    return None


def _round_trip(text: str, where: str, expected: dict[str, Any], change: Any) -> str:
    """``change`` applied to ruamel's round-trip model of ``text``, dumped in the file's style."""
    tree = layout.parse(text, where)
    if tree is None:
        tree = layout.new_mapping()
    change(tree)
    new = layout.dump(tree, text)
    if not _parses_to(new, expected):
        raise EngramError(
            "edit.verify_failed",
            f"{where}: the edited YAML did not come out as intended; nothing was written",
            "this is an Engram bug — please report it with the file (redact secrets)",
            file=where,
        )
    return new


def _deepest(tree: Any, path: tuple[str, ...], where: str) -> tuple[Any, tuple[str, ...]]:
    """The deepest existing mapping on ``path`` and the keys missing below it."""
    node = tree
    for depth, key in enumerate(path):
        if node is not None and not isinstance(node, dict):
            raise type_conflict(path[:depth], "a mapping", where)
        if node is None or key not in node:
            layout.refuse_shared(tree, path[:depth], where)
            return node, path[depth:]
        node = node[key]
    return node, ()


def _assign(doc: Any, path: tuple[str, ...], value: JSONValue, where: str) -> None:
    node = doc
    for key in path[:-1]:
        if key not in node:
            node[key] = layout.new_mapping()
        node = node[key]
        if not isinstance(node, dict):
            raise type_conflict(path, "a mapping", where)
    node[path[-1]] = copy.deepcopy(value)


def _delete(doc: Any, path: tuple[str, ...]) -> None:
    del _node(doc, path[:-1])[path[-1]]


def _node(doc: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _parses_to(text: str, expected: dict[str, Any]) -> bool:
    try:
        data = _load(text.removeprefix(BOM), "<text>")
    except EngramError:
        return False
    return same(data, expected)


def _with(data: dict[str, Any], path: tuple[str, ...], value: JSONValue) -> dict[str, Any]:
    """A copy of ``data`` with ``value`` at ``path``."""
    child = data.get(path[0], {})
    if len(path) == 1 or not isinstance(child, dict):
        return {**data, path[0]: value if len(path) == 1 else _with({}, path[1:], value)}
    return {**data, path[0]: _with(child, path[1:], value)}
