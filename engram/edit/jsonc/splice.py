"""Insert and remove one child of a container as a minimal text change.

Insertion appends after the last child, copying its separator (same line or a new line at the
same indent) and the container's trailing-comma style. Removal of the last child is written as
the exact inverse of that insertion, so appending then removing gives back the original bytes.
"""

from __future__ import annotations

from collections.abc import Callable

from engram.edit.jsonc.tree import Node

# render(indent, inline) -> the text of the new child
Renderer = Callable[[str, bool], str]


def insert_last(
    text: str, node: Node, render: Renderer, eol: str, unit: str, *, strict: bool = False
) -> str:
    """``text`` with a new child appended to the container ``node``.

    After a trailing comma the new child gets one too, except in ``strict`` JSON, where the
    user's trailing comma becomes the separator and none is added.
    """
    if not node.children:
        return _insert_first(text, node, render, eol, unit)
    last = node.children[-1]
    comma = node.commas[-1]
    anchor = comma + 1 if comma >= 0 else last.node.end
    pos, line_comment = after_inline_comments(text, anchor)
    if starts_line(text, last.start) or line_comment:
        indent = line_indent(text, last.start)
        sep, inline = eol + indent, False
    else:
        sep, inline = _inline_gap(text, node), True
        indent = line_indent(text, last.start)
    entry = sep + render(indent, inline)
    if comma >= 0:
        return text[:pos] + entry + ("" if strict else ",") + text[pos:]
    end = last.node.end
    return text[:end] + "," + text[end:pos] + entry + text[pos:]


def _inline_gap(text: str, node: Node) -> str:
    """The gap between children on one line: copied from the previous comma, else a space."""
    if len(node.children) > 1:
        gap = text[node.commas[-2] + 1 : node.children[-1].start]
        if gap.strip(" \t") == "":
            return gap
    return " "


def _insert_first(text: str, node: Node, render: Renderer, eol: str, unit: str) -> str:
    outer = line_indent(text, node.start)
    open_end, close = node.start + 1, node.end - 1
    entry = render(outer + unit, False)
    if text[open_end:close].strip(" \t\r\n") == "":
        return text[:open_end] + eol + outer + unit + entry + eol + outer + text[close:]
    # Comments inside an empty container stay; the entry goes after those on the opening line.
    pos, _ = after_inline_comments(text, open_end)
    rest = text[pos:close]
    closing = "" if "\n" in rest else eol + outer
    return text[:pos] + eol + outer + unit + entry + closing + text[pos:]


def remove_child(text: str, node: Node, index: int, *, keep_comma: bool = False) -> str:
    """``text`` without child ``index`` of ``node`` (and the comma that went with it).

    ``keep_comma``: the comma before the last child was the user's trailing comma (a strict
    JSON insertion reused it), so it stays.
    """
    child = node.children[index]
    comma = node.commas[index]
    if index == len(node.children) - 1 and index > 0:
        prev_comma = node.commas[index - 1]
        start, _ = after_inline_comments(text, prev_comma + 1)
        if comma >= 0 or keep_comma:
            if comma < 0:
                return text[:start] + text[child.node.end :]
            return text[:start] + text[comma + 1 :]
        return text[:prev_comma] + text[prev_comma + 1 : start] + text[child.node.end :]
    if index == 0 and len(node.children) == 1:
        start, _ = after_inline_comments(text, node.start + 1)
        end = comma + 1 if comma >= 0 else child.node.end
        text = text[:start] + text[end:]
        close = node.end - 1 - (end - start)
        if text[node.start + 1 : close].strip(" \t\r\n") == "":
            return text[: node.start + 1] + text[close:]
        return text
    # A child followed by another: take its whole line when it has one to itself.
    start, end = child.start, _skip_blanks(text, comma + 1)
    if starts_line(text, start) and text[end : end + 1] in ("\n", "\r"):
        start = line_start(text, start)
        end += 2 if text[end : end + 2] == "\r\n" else 1
    return text[:start] + text[end:]


def after_inline_comments(text: str, pos: int) -> tuple[int, bool]:
    """The offset after the comments that follow ``pos`` on the same line (``pos`` if none).

    Also says whether the last of them is a ``//`` comment (nothing may follow it on the line).
    """
    best, line_comment = pos, False
    i = pos
    while True:
        i = _skip_blanks(text, i)
        if text.startswith("//", i):
            end = i
            while end < len(text) and text[end] not in "\r\n":
                end += 1
            return end, True
        if text.startswith("/*", i):
            end = text.find("*/", i + 2) + 2
            if "\n" in text[i:end]:
                return best, line_comment
            best, i = end, end
            continue
        return best, line_comment


def _skip_blanks(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def line_start(text: str, pos: int) -> int:
    """Offset of the first character of the line holding ``pos``."""
    return text.rfind("\n", 0, pos) + 1


def starts_line(text: str, pos: int) -> bool:
    """True when only spaces or tabs come before ``pos`` on its line."""
    return text[line_start(text, pos) : pos].strip(" \t") == ""


def line_indent(text: str, pos: int) -> str:
    """The leading spaces/tabs of the line holding ``pos``."""
    start = line_start(text, pos)
    return text[start : _skip_blanks(text, start)]
