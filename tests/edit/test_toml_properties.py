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


AOT_TABLES = st.sampled_from(["[[mcp_servers]]", "[tools.bash]", "[[models]]", "[session]"])


@st.composite
def vibe_documents(draw: st.DrawFn) -> str:
    """A Vibe-style config.toml: root keys, arrays of tables (mcp_servers among them), tables."""
    lines = draw(_lines())
    headers = draw(st.lists(AOT_TABLES, max_size=4))
    # a plain table defined twice is not TOML; an array of tables repeats by design
    headers = [h for i, h in enumerate(headers) if h.startswith("[[") or h not in headers[:i]]
    for header in headers:
        lines.append(header)
        lines.extend(draw(_lines()) if "mcp_servers" not in header else ['name = "other"'])
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines)
    return text + draw(st.sampled_from(["", eol, eol + eol])) if text else text


@settings(PROPERTY)
@given(vibe_documents(), ENGRAM)
def test_add_to_an_array_of_tables_then_remove_gives_back_the_original_bytes(
    text: str, value: Any
) -> None:
    from engram.edit.toml_doc import add_to_list, remove_from_list

    item = {"name": "engram", "transport": "stdio", **value}
    had = "mcp_servers" in load(text)
    done = add_to_list(text, ("mcp_servers",), item)
    assert done is not None
    new, appended = done
    servers = load(new)["mcp_servers"]
    assert servers[-1] == item and len(servers) == len(load(text).get("mcp_servers", [])) + 1
    assert add_to_list(new, ("mcp_servers",), item) is None  # already there
    assert remove_from_list(new, ("mcp_servers",), item, appended, keep_empty=had) == text
