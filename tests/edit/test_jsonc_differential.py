"""Our JSONC editor against Microsoft's jsonc-parser (npm) under node, on the same cases.

For every generated document and edit, jsonc-parser applies its own ``modify`` and we apply
ours; the values read back must agree, and jsonc-parser must read our output without errors
and get the same value. One node process answers every case (JSON lines in and out).
Run ``scripts/install-host-clis`` first: it installs jsonc-parser into the test cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonc_docs import PROPERTY, VALUES, documents, paths_into

from engram.edit.jsonc.document import load, remove_value, same, set_value
from engram.errors import EngramError

BRIDGE = Path(__file__).with_name("jsonc_parser_bridge.js")


def _npm_prefix() -> Path:
    cache = os.environ.get("ENGRAM_TEST_CACHE") or str(Path.home() / ".cache" / "engram-test")
    return Path(cache) / "npm"


class JsoncParser:
    """A long-lived node process running jsonc-parser."""

    def __init__(self, prefix: Path) -> None:
        self.proc = subprocess.Popen(
            [shutil.which("node") or "node", str(BRIDGE), str(prefix)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, **case: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        assert "crash" not in answer, answer
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def jsonc_parser() -> Iterator[JsoncParser]:
    prefix = _npm_prefix()
    if not (prefix / "node_modules" / "jsonc-parser" / "package.json").exists():
        pytest.fail(f"jsonc-parser is not installed in {prefix} — run scripts/install-host-clis")
    bridge = JsoncParser(prefix)
    yield bridge
    bridge.close()


def agree(a: Any, b: Any) -> bool:
    """Same JSON value, numbers compared as doubles (what JavaScript holds)."""
    return same(*(json.loads(json.dumps(x), parse_int=float) for x in (a, b)))


def _without_new_parents(value: Any, path: tuple[str, ...], original: Any) -> Any:
    """``value`` minus the empty objects on ``path`` that ``original`` did not have.

    jsonc-parser's remove keeps parents a set created; ours removes them: both are fine.
    """
    if not path or not isinstance(value, dict) or not isinstance(original, dict):
        return value
    key = path[0]
    if key not in original:
        return {k: v for k, v in value.items() if not (k == key and v == {})}
    if key in value:
        return {**value, key: _without_new_parents(value[key], path[1:], original[key])}
    return value


def _conflicts(data: dict[str, Any], path: tuple[str, ...]) -> bool:
    node: Any = data
    for key in path[:-1]:
        node = node.get(key, {}) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return True
    return False


@st.composite
def _cases(draw: st.DrawFn) -> tuple[str, dict[str, Any], tuple[str, ...], Any]:
    text, data = draw(documents())
    path = draw(st.one_of(st.just(("mcpServers", "engram")), paths_into(data)))
    return text, data, path, draw(VALUES)


@settings(PROPERTY)
@given(_cases())
def test_set_and_remove_agree_with_jsonc_parser(jsonc_parser: JsoncParser, case: Any) -> None:
    text, data, path, value = case
    if _conflicts(data, path):
        return
    body = text.removeprefix("\ufeff")  # jsonc-parser does not skip a BOM
    ours, undo = set_value(text, path, value, strict=False)
    theirs = jsonc_parser.ask(
        op="set", text=body, path=list(path), value=value, ours=ours.removeprefix("\ufeff")
    )
    assert theirs["errors"] == 0 and theirs["ours"]["errors"] == 0
    assert agree(theirs["value"], load(ours))
    assert agree(theirs["ours"]["value"], load(ours))

    if ours == text:
        return  # the value was already there: nothing written, nothing to take back
    removed = remove_value(ours, path, undo)
    theirs = jsonc_parser.ask(
        op="remove",
        text=ours.removeprefix("\ufeff"),
        path=list(path),
        ours=removed.removeprefix("\ufeff"),
    )
    assert agree(theirs["ours"]["value"], data)
    if undo.replaced_text is None:  # ours restores a replaced value; theirs deletes it
        assert agree(_without_new_parents(theirs["value"], path, data), data)


@settings(PROPERTY)
@given(documents(), st.data())
def test_both_parsers_reject_the_same_broken_documents(
    jsonc_parser: JsoncParser, doc: Any, data: st.DataObject
) -> None:
    text = doc[0].removeprefix("\ufeff")
    at = data.draw(st.integers(0, max(len(text) - 1, 0)))
    broken = (
        text[:at] + data.draw(st.sampled_from(["", ",", "{", '"', ":", "]", "/"])) + text[at + 1 :]
    )
    theirs = jsonc_parser.ask(op="parse", text=broken)
    try:
        value = load(broken)
    except EngramError as err:
        assert err.code == "edit.parse_error"
        assert theirs["errors"] > 0, broken
        return
    assert theirs["errors"] == 0, broken
    assert agree(theirs["value"], value)
