"""Properties of the JSONC editor over generated documents.

- set then remove (with the Undo) gives back the original bytes;
- set changes only the value at its path (everything else parses to the same data);
- the document's conventions are kept (BOM, line endings);
- strict JSON documents stay strict JSON (Python's json module reads them);
- add-to-list then remove-from-list gives back the original bytes.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonc_docs import KEYS, PROPERTY, VALUES, documents, paths_into

from engram.edit.jsonc.document import (
    add_to_list,
    load,
    parse,
    remove_from_list,
    remove_value,
    same,
    set_value,
)
from engram.edit.jsonc.tree import Node
from engram.errors import EngramError

ENGRAM = {"type": "stdio", "command": "engram-mcp", "args": ["--tools", "all"], "env": {}}


def _expected_after_set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> Any:
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            return None
    node[path[-1]] = value
    return out


def _conventions_kept(before: str, after: str) -> None:
    assert after.startswith("\ufeff") == before.startswith("\ufeff")
    if "\r\n" in before:
        assert after.replace("\r\n", "").count("\n") == 0
    elif "\n" in before:
        assert "\r\n" not in after


@st.composite
def set_cases(draw: st.DrawFn, *, jsonc: bool = True) -> tuple[str, Any, tuple[str, ...], Any]:
    text, data = draw(documents(jsonc=jsonc))
    path = draw(st.one_of(st.just(("mcpServers", "engram")), paths_into(data)))
    value = draw(st.one_of(st.just(ENGRAM), VALUES))
    return text, data, path, value


@settings(PROPERTY)
@given(set_cases())
def test_set_then_remove_gives_back_the_original_bytes(case: Any) -> None:
    text, data, path, value = case
    expected = _expected_after_set(data, path, value)
    if expected is None:
        with pytest.raises(EngramError) as caught:
            set_value(text, path, value, strict=False)
        assert caught.value.code == "edit.type_conflict"
        return
    new, undo = set_value(text, path, value, strict=False)
    assert same(load(new), expected)
    _conventions_kept(text, new)
    if new != text:  # an equal value already there: nothing was written, nothing to undo
        assert remove_value(new, path, undo) == text


@settings(PROPERTY)
@given(set_cases(jsonc=False))
def test_strict_json_stays_strict(case: Any) -> None:
    text, data, path, value = case
    expected = _expected_after_set(data, path, value)
    if expected is None:
        return
    new, undo = set_value(text, path, value, strict=True)
    assert same(json.loads(new.removeprefix("\ufeff")), expected)
    if new != text:
        assert remove_value(new, path, undo) == text


def _trailing_commas(text: str) -> int:
    def count(node: Node) -> int:
        own = 1 if node.children and node.commas[-1] >= 0 else 0
        return own + sum(count(child.node) for child in node.children)

    root = parse(text)
    return 0 if root is None else count(root)


@settings(PROPERTY)
@given(set_cases())
def test_strict_mode_adds_no_trailing_comma_to_any_document(case: Any) -> None:
    text, data, path, value = case
    if _expected_after_set(data, path, value) is None:
        return
    new, undo = set_value(text, path, value, strict=True)
    assert _trailing_commas(new) <= _trailing_commas(text)
    if undo.replaced_text is None:  # a replaced value takes its own comments with it
        assert _comments_of(new) == _comments_of(text)
    if new != text:
        assert remove_value(new, path, undo) == text


def _comments_of(text: str) -> list[str]:
    from engram.edit.jsonc.scanner import Tok, scan

    body = text.removeprefix("\ufeff")
    kinds = (Tok.LINE_COMMENT, Tok.BLOCK_COMMENT)
    return [body[t.start : t.end] for t in scan(body) if t.kind in kinds]


@settings(PROPERTY)
@given(documents(), st.lists(KEYS, min_size=1, max_size=3).map(tuple), VALUES)
def test_add_to_list_then_remove_gives_back_the_original_bytes(
    doc: Any, path: tuple[str, ...], item: Any
) -> None:
    text, data = doc
    node: Any = data
    for depth, key in enumerate(path):
        missing: Any = [] if depth == len(path) - 1 else {}
        node = node.get(key, missing) if isinstance(node, dict) else None
    if not isinstance(node, list):
        with pytest.raises(EngramError):
            add_to_list(text, path, item, strict=False)
        return
    new, undo = add_to_list(text, path, item, strict=False)
    if undo is None:
        assert new == text and any(same(item, i) for i in node)
        return
    items = load(new)
    for key in path:
        items = items[key]  # type: ignore[index,call-overload]
    assert isinstance(items, list) and same(items[-1], item)
    assert remove_from_list(new, path, item, undo) == text


@settings(PROPERTY)
@given(documents(), st.sampled_from([("mcpServers", "engram"), ("a",), ("mcp", "servers", "x")]))
def test_a_second_set_of_the_same_value_changes_nothing(doc: Any, path: tuple[str, ...]) -> None:
    text, data = doc
    if _expected_after_set(data, path, ENGRAM) is None:
        return
    once, _ = set_value(text, path, ENGRAM, strict=False)
    twice, undo = set_value(once, path, ENGRAM, strict=False)
    assert twice == once
    assert undo.existing == len(path)
