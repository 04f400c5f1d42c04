"""Hypothesis strategies for JSONC documents written the many ways people write them.

A document is a random value rendered with a random style: indentation (two or four spaces,
tabs), line endings (LF, CRLF), a BOM, trailing commas, comments between any two tokens,
one-line and multi-line containers, escaped strings holding ``//``, ``/*`` and quotes.
Shared by the property tests and the differential test against Microsoft's jsonc-parser.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# One profile for every edit property test: ENGRAM_PROPERTY_EXAMPLES scales it (CI uses the
# default; set it to thousands for a long local run).
settings.register_profile(
    "engram-edit",
    max_examples=int(os.environ.get("ENGRAM_PROPERTY_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROPERTY = settings.get_profile("engram-edit")

KEY_CHARS = st.sampled_from([*'abcxyz_-.:/ "\\*é€😀', "//", "/*", "*/", "\\u"])
KEYS = st.one_of(
    st.sampled_from(["mcpServers", "mcp", "servers", "engram", "hooks", "a", "b", "x"]),
    st.lists(KEY_CHARS, max_size=4).map("".join),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1),
    st.floats(allow_nan=False, allow_infinity=False, width=32).filter(lambda f: f == f),
    st.lists(KEY_CHARS, max_size=5).map("".join),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
COMMENTS = ["/* note */", '/* "quoted" { [ */', "// line", '// a "string" with { and ,']


@dataclass(frozen=True)
class Style:
    """How a document is written."""

    unit: str
    eol: str
    bom: bool
    comments: bool
    trailing: bool
    ascii: bool


@st.composite
def styles(draw: st.DrawFn, *, jsonc: bool = True) -> Style:
    """A writing style; strict JSON styles have no comments and no trailing commas."""
    return Style(
        unit=draw(st.sampled_from(["  ", "    ", "\t"])),
        eol=draw(st.sampled_from(["\n", "\r\n"])),
        bom=draw(st.booleans()),
        comments=jsonc and draw(st.booleans()),
        trailing=jsonc and draw(st.booleans()),
        ascii=draw(st.booleans()),
    )


@st.composite
def documents(draw: st.DrawFn, *, jsonc: bool = True) -> tuple[str, dict[str, Any]]:
    """``(text, value)``: a JSON(C) object document and the value it holds."""
    value = draw(st.dictionaries(KEYS, VALUES, max_size=5))
    style = draw(styles(jsonc=jsonc))
    body = _write(draw, value, style, "")
    lead = draw(_gap(style, "")) if style.comments else ""
    tail = draw(st.sampled_from(["", style.eol, style.eol + style.eol]))
    return ("\ufeff" if style.bom else "") + lead + body + tail, value


def _write(draw: st.DrawFn, value: Any, style: Style, indent: str) -> str:
    if not isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=style.ascii)
    items = (
        [f"{json.dumps(k, ensure_ascii=style.ascii)}: " for k in value]
        if isinstance(value, dict)
        else ["" for _ in value]
    )
    children = list(value.values()) if isinstance(value, dict) else list(value)
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    multiline = draw(st.booleans()) if children else draw(st.booleans()) and style.comments
    inner = indent + style.unit
    parts = [
        prefix + _write(draw, child, style, inner if multiline else indent)
        for prefix, child in zip(items, children, strict=True)
    ]
    if not multiline:
        sep = draw(st.sampled_from([", ", ","]))
        pad = draw(st.sampled_from(["", " "]))
        if style.comments and parts and draw(st.booleans()):
            parts[-1] += " /* end */"
        return opening + pad + sep.join(parts) + pad + closing
    out = opening
    for i, part in enumerate(parts):
        out += draw(_gap(style, inner)) + part
        last = i == len(parts) - 1
        if not last or style.trailing:
            out += ","
        if style.comments and draw(st.booleans()):
            out += " " + draw(st.sampled_from(COMMENTS))
            if out.endswith(tuple(c for c in COMMENTS if c.startswith("//"))):
                out += style.eol + inner if not last else ""
    return out + style.eol + indent + closing


@st.composite
def _gap(draw: st.DrawFn, style: Style, indent: str) -> str:
    """Whitespace before a member, maybe with comment lines above it."""
    gap = style.eol + indent
    if style.comments and draw(st.booleans()):
        gap = style.eol + indent + draw(st.sampled_from(COMMENTS)) + gap
    return gap


def paths_into(value: dict[str, Any]) -> st.SearchStrategy[tuple[str, ...]]:
    """Paths that reuse existing keys part of the way, then go somewhere new (or stay)."""
    existing: list[tuple[str, ...]] = []

    def walk(node: Any, prefix: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            existing.append(prefix)
            for key, child in node.items():
                walk(child, (*prefix, key))

    walk(value, ())
    return (
        st.tuples(st.sampled_from(existing), st.lists(KEYS, min_size=0, max_size=2))
        .map(lambda pair: (*pair[0], *pair[1]))
        .filter(bool)
    )
