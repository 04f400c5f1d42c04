"""How a JSONC document is laid out, and how to write new values that look like they belong.

Detects the line ending, the indentation unit and the trailing-comma habit of a document, and
renders new values with them. Strict JSON never gets a trailing comma.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from engram.edit.jsonc.tree import Node
from engram.edit.plan import JSONValue
from engram.errors import EngramError

_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


@dataclass(frozen=True)
class Layout:
    """The conventions new text follows.

    Args:
        eol: ``"\\n"`` or ``"\\r\\n"``.
        unit: one level of indentation (spaces or a tab).
        trailing_commas: put a comma after the last member of new multi-line containers.
    """

    eol: str = "\n"
    unit: str = "  "
    trailing_commas: bool = False


def detect_layout(text: str, root: Node | None, *, strict: bool) -> Layout:
    """The layout of ``text``; sensible defaults (LF, two spaces) where it says nothing."""
    eol = "\r\n" if "\r\n" in text else "\n"
    indents = [m.group(1) for m in _INDENT.finditer(text)]
    if any(ind.startswith("\t") for ind in indents):
        unit = "\t"
    else:
        widths = [len(ind) for ind in indents if ind.strip(" ") == ""]
        unit = " " * min(widths) if widths else "  "
    trailing = not strict and root is not None and _uses_trailing_commas(root)
    return Layout(eol, unit, trailing)


def _uses_trailing_commas(node: Node) -> bool:
    if node.children and node.commas[-1] >= 0:
        return True
    return any(_uses_trailing_commas(child.node) for child in node.children)


def render(value: JSONValue, indent: str, layout: Layout, *, inline: bool = False) -> str:
    """``value`` as JSON text whose first line is already at ``indent``.

    Nested objects go one member per line; arrays of scalars stay on one line, as host docs
    write ``"args": ["a", "b"]``. ``inline`` writes everything on one line.
    """
    _check_finite(value)
    if inline or not isinstance(value, dict | list) or not value or _flat_list(value):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    inner = indent + layout.unit
    items = (
        [
            f"{json.dumps(k, ensure_ascii=False)}: {render(v, inner, layout)}"
            for k, v in value.items()
        ]
        if isinstance(value, dict)
        else [render(v, inner, layout) for v in value]
    )
    tail = "," if layout.trailing_commas else ""
    body = ("," + layout.eol).join(inner + item for item in items)
    close = "}" if isinstance(value, dict) else "]"
    return (
        ("{" if isinstance(value, dict) else "[")
        + layout.eol
        + body
        + tail
        + layout.eol
        + indent
        + close
    )


def render_member(
    key: str | None, value: JSONValue, indent: str, layout: Layout, inline: bool
) -> str:
    """An object member (``"key": value``) or an array element when ``key`` is None."""
    text = render(value, indent, layout, inline=inline)
    return text if key is None else f"{json.dumps(key, ensure_ascii=False)}: {text}"


def nest(path: tuple[str, ...], value: JSONValue) -> JSONValue:
    """``value`` wrapped in one object per key of ``path`` (``("a", "b"), 1`` → ``{"a": {"b": 1}}``)."""
    for key in reversed(path):
        value = {key: value}
    return value


def _flat_list(value: JSONValue) -> bool:
    return isinstance(value, list) and all(not isinstance(v, dict | list) for v in value)


def _check_finite(value: JSONValue) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise EngramError(
            "edit.bad_value", f"{value!r} cannot be written as JSON", "use a finite number"
        )
    if isinstance(value, dict):
        for item in value.values():
            _check_finite(item)
    elif isinstance(value, list):
        for item in value:
            _check_finite(item)
