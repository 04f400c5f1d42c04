"""Properties of the TOML table editor over generated config.toml documents."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonc_docs import PROPERTY

from engram.edit.jsonc.document import same
from engram.edit.toml_doc import load, remove_value, set_value

BARE = st.sampled_from(["model", "approval_policy", "command", "args", "enabled", "x", "y"])
SCALAR = st.one_of(
    st.booleans(),
    st.integers(-1000, 1000),
    st.text(st.sampled_from(list('ab "#\\[]=é')), max_size=6),
    st.lists(st.text(st.sampled_from(list("ab-")), max_size=3), max_size=3),
)
COMMENT = st.sampled_from(["# note", "# [mcp_servers.engram] is Engram's", '# "quoted" = 1'])
TABLES = st.sampled_from(
    ["mcp_servers.other", "mcp_servers", "profiles.fast", "features", "mcp_servers.z.env"]
)


def _literal(value: Any) -> str:
    import tomlkit

    return tomlkit.item(value).as_string()


@st.composite
def _lines(draw: st.DrawFn) -> list[str]:
    lines: list[str] = []
    for key, value in draw(st.dictionaries(BARE, SCALAR, max_size=3)).items():
        if draw(st.booleans()):
            lines.append(draw(COMMENT))
        tail = "  " + draw(COMMENT) if draw(st.booleans()) else ""
        lines.append(f"{key} = {_literal(value)}{tail}")
        if draw(st.booleans()):
            lines.append("")
    return lines


@st.composite
def toml_documents(draw: st.DrawFn) -> str:
    """A config.toml with root keys, comments, blank lines and other tables."""
    lines = draw(_lines())
    for table in draw(st.lists(TABLES, unique=True, max_size=3)):
        lines.append(f"[{table}]")
        lines.extend(draw(_lines()))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines)
    return text + draw(st.sampled_from(["", eol, eol + eol])) if text else text


ENGRAM = st.fixed_dictionaries(
    {"command": st.sampled_from(["engram-mcp", "/opt/engram/bin/engram-mcp"]), "args": st.just([])},
    optional={
        "env": st.dictionaries(st.sampled_from(["A", "B"]), st.text("ab", max_size=2), max_size=2),
        "tools": st.just({"engram_commit": {"approval_mode": "approve"}}),
        "startup_timeout_sec": st.integers(1, 60),
    },
)


@settings(PROPERTY)
@given(toml_documents(), ENGRAM)
def test_set_then_remove_gives_back_the_original_bytes(text: str, value: Any) -> None:
    before = load(text)
    path = ("mcp_servers", "engram")
    new, appended = set_value(text, path, value)
    expected = copy.deepcopy(before)
    expected.setdefault("mcp_servers", {})["engram"] = value
    assert same(load(new), expected)
    assert ("\r\n" in new) == ("\r\n" in text) or text == ""
    assert "[mcp_servers.engram]" in new
    assert remove_value(new, path, appended) == text
