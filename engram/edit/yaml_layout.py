"""The text side of YAML editing: parsing with positions, the file's indentation, and splicing
rendered lines in after the last line of a block mapping or block sequence.

:mod:`engram.edit.yaml_doc` decides what to change; this module knows where lines go. A splice
is only proposed here; the caller re-parses it and falls back to a round-trip dump when the
result is not exactly what was intended.
"""

from __future__ import annotations

import datetime
import io
import itertools
import math
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from engram.edit.plan import JSONValue
from engram.errors import EngramError

WIDTH = 4096  # never fold a long command line


def parse(text: str, where: str) -> Any:
    """ruamel's round-trip tree of ``text`` (None when blank); ``edit.parse_error`` if bad."""
    try:
        return _yaml().load(text)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        problem = str(err.problem or err.context or "not valid YAML").split("\n")[0]
        if "\\t" in problem or "'\\t'" in problem or "tab" in problem:
            problem += " (YAML does not allow tabs for indentation)"
        raise _parse_error(where, line, column, problem) from None
    except (YAMLError, RecursionError, ValueError) as err:
        raise _parse_error(where, 0, 0, str(err).split("\n")[0] or "not valid YAML") from None


def plain(node: Any) -> Any:
    """Plain JSON-like data of a round-trip node (merge keys resolved, dates as ISO text)."""
    if isinstance(node, dict):
        return {str(key): plain(value) for key, value in node.items()}
    if isinstance(node, list | tuple):
        return [plain(value) for value in node]
    if node is None or isinstance(node, bool):
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return str(node) if math.isnan(node) else float(node)
    if isinstance(node, datetime.date):
        return node.isoformat()
    return str(node)


def new_mapping() -> CommentedMap:
    """An empty round-trip mapping."""
    return CommentedMap()


def refuse_shared(tree: Any, path: tuple[str, ...], where: str) -> None:
    """``edit.yaml_anchor`` when a mapping on ``path`` carries an anchor: what Engram adds there
    would appear under every alias of it too."""
    node = tree
    for depth in range(len(path) + 1):
        anchor = getattr(getattr(node, "anchor", None), "value", None)
        if anchor:
            shown = ".".join(path[:depth]) or "the top level"
            raise EngramError(
                "edit.yaml_anchor",
                f"{where}: {shown} is shared through the YAML anchor &{anchor}, so adding "
                "Engram there would add it under every alias too",
                f"give {shown} its own copy instead of the anchor in {where}, then retry",
                file=where,
            )
        if depth < len(path) and isinstance(node, dict) and path[depth] in node:
            node = node[path[depth]]
        else:
            return


def dump(tree: Any, original: str) -> str:
    """``tree`` written in the indentation and line endings of ``original``."""
    yaml = _yaml()
    mapping, offset = detect_indent(original)
    yaml.indent(mapping=mapping, sequence=mapping + offset, offset=offset)
    yaml.explicit_start = original.lstrip().startswith("---")
    out = io.StringIO()
    yaml.dump(tree, out)
    text = out.getvalue()
    return text.replace("\n", "\r\n") if "\r\n" in original else text


def insert_key(
    text: str, tree: Any, at: Any, missing: tuple[str, ...], value: JSONValue
) -> tuple[str, str] | None:
    """``text`` with ``missing[0]: <missing[1:] -> value>`` added as the last key of the block
    mapping ``at`` (or of a blank document), and the text inserted; None when that mapping is
    flow style or empty (the caller then uses a round-trip dump)."""
    nested: Any = value
    for key in reversed(missing[1:]):
        nested = {key: nested}
    mapping, offset = detect_indent(text)
    block = render({missing[0]: nested}, mapping, offset)
    if at is None:
        if tree is not None:
            return None
        return _splice(text, len(text.splitlines(keepends=True)), block, 0)
    if not isinstance(at, CommentedMap):
        return None
    if at.fa.flow_style() or not at:  # an empty mapping can only be `{}`
        return insert_flow(text, at, render_flow({missing[0]: nested}))
    line, col = at.lc.key(next(iter(at)))
    return _splice(text, block_end(text, line, col, sequence=False), block, col)


def key_span(text: str, tree: Any, path: tuple[str, ...]) -> tuple[int, int, int] | None:
    """``(start, end, column)`` of the lines holding ``path[-1]`` and its block value inside a
    block mapping (None when the key sits in a flow mapping or is missing)."""
    parent = tree
    for key in path[:-1]:
        parent = parent.get(key) if isinstance(parent, dict) else None
    if not isinstance(parent, CommentedMap) or path[-1] not in parent or parent.fa.flow_style():
        return None
    line, col = parent.lc.key(path[-1])
    rows = text.splitlines(keepends=True)
    if line >= len(rows) or _indent(rows[line]) != col:
        return None  # the key does not start its line (`- name: x` items): leave it to ruamel
    last = line
    for i in range(line + 1, len(rows)):
        stripped = rows[i].strip()
        if not stripped:
            continue
        if _indent(rows[i]) <= col and not stripped.startswith("#"):
            break
        if _indent(rows[i]) > col:
            last = i
    start = sum(len(r) for r in rows[:line])
    return start, start + sum(len(r) for r in rows[line : last + 1]), col


def replace_key(text: str, tree: Any, path: tuple[str, ...], value: JSONValue) -> str | None:
    """``text`` with the lines of ``path[-1]`` and its value replaced by ``value`` rendered in
    the file's indentation; every other byte kept (None when :func:`key_span` has no span)."""
    span = key_span(text, tree, path)
    if span is None:
        return None
    start, end, col = span
    mapping, offset = detect_indent(text)
    eol = "\r\n" if "\r\n" in text else "\n"
    block = "".join(
        " " * col + row + eol for row in render({path[-1]: value}, mapping, offset).splitlines()
    )
    if end == len(text) and not text.endswith("\n"):
        block = block[: -len(eol)]
    return text[:start] + block + text[end:]


def drop_key(text: str, tree: Any, path: tuple[str, ...]) -> str | None:
    """``text`` without the lines of ``path[-1]`` and its value (None without a span)."""
    span = key_span(text, tree, path)
    return None if span is None else text[: span[0]] + text[span[1] :]


def insert_item(text: str, seq: Any, item: JSONValue) -> tuple[str, str] | None:
    """``text`` with ``item`` appended to the block sequence ``seq``, and the text inserted;
    None when ``seq`` is flow style or empty."""
    if not isinstance(seq, CommentedSeq):
        return None
    if seq.fa.flow_style() or not seq:
        return insert_flow(text, seq, render_flow([item]))
    line, content = seq.lc.item(0)
    row = text.splitlines()[line]
    dash = row.rfind("-", 0, content)
    if dash < 0 or row[dash + 1 : content].strip():
        return None
    mapping, _ = detect_indent(text)
    block = render([item], mapping, 0, sequence=content - dash)
    return _splice(text, block_end(text, line, dash, sequence=True), block, dash)


def insert_flow(text: str, node: Any, rendered: str) -> tuple[str, str] | None:
    """``text`` with ``rendered`` (members without their brackets) appended inside the flow
    collection ``node`` (``{...}`` / ``[...]``), and the text inserted."""
    rows = text.splitlines(keepends=True)
    start = sum(len(r) for r in rows[: node.lc.line]) + node.lc.col
    if text[start : start + 1] not in ("{", "["):
        return None
    scanned = _scan_flow(text, start)
    if scanned is None:
        return None
    last = scanned  # == start when empty: `{}` becomes `{engram: ...}`
    piece = rendered if last == start else (" " if text[last] == "," else ", ") + rendered
    return text[: last + 1] + piece + text[last + 1 :], piece


def _scan_flow(text: str, start: int) -> int | None:
    """Offset of the last significant character before the bracket closing the flow collection
    opened at ``start`` (``start`` itself when it is empty); None when it does not close."""
    depth, last, i = 0, start, start
    while i < len(text):
        char = text[i]
        if char in "\"'":
            close = _string_end(text, i)
            if close is None:
                return None
            last, i = close, close + 1
            continue
        if char == "#" and (i == 0 or text[i - 1] in " \t\r\n"):
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return last
        if not char.isspace():
            last = i
        i += 1
    return None


def _string_end(text: str, start: int) -> int | None:
    quote, i = text[start], start + 1
    while i < len(text):
        if quote == '"' and text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            if quote == "'" and text[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i
        i += 1
    return None


def render_flow(value: Any) -> str:
    """``value`` (a one-key mapping or a one-item list) as flow members, brackets removed."""
    yaml = _yaml()
    yaml.default_flow_style = True
    out = io.StringIO()
    yaml.dump(value, out)
    return out.getvalue().strip()[1:-1]


def render(value: Any, mapping: int, offset: int, sequence: int | None = None) -> str:
    """``value`` as block YAML at column 0 (LF line endings)."""
    yaml = _yaml()
    yaml.indent(mapping=mapping, sequence=sequence or mapping + offset, offset=offset)
    out = io.StringIO()
    yaml.dump(value, out)
    return out.getvalue()


def detect_indent(text: str) -> tuple[int, int]:
    """(mapping indent, dash offset of block sequences) as the file uses them; (2, 0) when it
    does not say."""
    mapping: int | None = None
    offset: int | None = None
    rows = [r for r in text.splitlines() if r.strip() and not r.lstrip().startswith("#")]
    for prev, row in itertools.pairwise(rows):
        indent, prev_indent = _indent(row), _indent(prev)
        opens = prev.rstrip().endswith(":") and not prev.lstrip().startswith("- ")
        if not opens or indent < prev_indent:
            continue
        if row.lstrip().startswith("-"):
            offset = indent - prev_indent if offset is None else offset
        elif indent > prev_indent and mapping is None:
            mapping = indent - prev_indent
    return mapping or 2, offset or 0


def block_end(text: str, line: int, col: int, *, sequence: bool) -> int:
    """Index of the line after the last line of the block whose first key (or dash) is at
    ``line``, ``col``: its deeper lines, its siblings, and comments indented with them."""
    rows = text.splitlines()
    last = line
    for i in range(line + 1, len(rows)):
        stripped = rows[i].strip()
        if not stripped:
            continue
        indent = _indent(rows[i])
        if stripped.startswith("#"):
            last = i if indent >= col else last
            continue
        if stripped in ("---", "...") or stripped.startswith("--- "):
            break
        sibling = indent == col and (not sequence or stripped[:2] in ("-", "- "))
        if indent > col or sibling:
            last = i
            continue
        break
    return last + 1


def _splice(text: str, at_line: int, block: str, col: int) -> tuple[str, str]:
    """Insert ``block`` indented by ``col`` before line ``at_line``; (new text, inserted)."""
    eol = "\r\n" if "\r\n" in text else "\n"
    pad = " " * col
    body = "".join(pad + row + eol for row in block.splitlines())
    rows = text.splitlines(keepends=True)
    offset = sum(len(r) for r in rows[:at_line])
    if at_line >= len(rows) and text and not text.endswith("\n"):
        inserted = eol + body[: -len(eol)]  # the file ends without a newline: keep it so
        return text + inserted, inserted
    return text[:offset] + body + text[offset:], body


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = WIDTH
    return yaml


def _parse_error(where: str, line: int, column: int, problem: str) -> EngramError:
    at = f":{line}:{column}" if line else ""
    return EngramError(
        "edit.parse_error",
        f"{where}{at}: {problem}",
        "fix the file by hand (Engram never rewrites a file it cannot parse), then retry",
        file=where,
        line=line,
        column=column,
    )
