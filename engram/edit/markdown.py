"""Engram's managed blocks in Markdown files (``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md``...).

A block sits between ``<!-- engram:begin <id> -->`` and ``<!-- engram:end <id> -->`` lines.
A new block is appended after one blank line; re-linking replaces it in place; removing it
deletes the block and the separator Engram added, giving back the original bytes.
"""

from __future__ import annotations

import re

from engram.errors import EngramError


def begin_marker(block_id: str) -> str:
    """The line that opens block ``block_id``."""
    return f"<!-- engram:begin {block_id} -->"


def end_marker(block_id: str) -> str:
    """The line that closes block ``block_id``."""
    return f"<!-- engram:end {block_id} -->"


def find_block(text: str, block_id: str, where: str = "<text>") -> tuple[int, int, str] | None:
    """``(start, end, content)`` of the block: ``text[start:end]`` is the markers and content.

    ``end`` includes the line ending after the end marker. ``edit.parse_error`` when a marker
    is missing its partner or the block appears twice.
    """
    begin = re.compile(r"^[ \t]*" + re.escape(begin_marker(block_id)) + r"[ \t]*(\r?\n|$)", re.M)
    end = re.compile(r"^[ \t]*" + re.escape(end_marker(block_id)) + r"[ \t]*(\r?\n|$)", re.M)
    begins, ends = list(begin.finditer(text)), list(end.finditer(text))
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        line = text.count("\n", 0, (begins or ends)[0].start()) + 1
        raise EngramError(
            "edit.parse_error",
            f"{where}:{line}:1: Engram's '{block_id}' block markers are unbalanced or repeated",
            f"keep exactly one {begin_marker(block_id)} … {end_marker(block_id)} pair, then retry",
            file=where,
            line=line,
            column=1,
        )
    content = text[begins[0].end() : ends[0].start()]
    return begins[0].start(), ends[0].end(), content


def block_content(text: str, block_id: str, where: str = "<text>") -> str | None:
    """The content of block ``block_id`` with LF line endings (None when absent)."""
    found = find_block(text, block_id, where)
    return None if found is None else found[2].replace("\r\n", "\n")


def set_block(
    text: str, block_id: str, content: str, where: str = "<text>"
) -> tuple[str, str | None]:
    """``text`` with the block holding ``content``; and the separator added when appended."""
    eol = "\r\n" if "\r\n" in text else "\n"
    body = content.replace("\r\n", "\n")
    if body and not body.endswith("\n"):
        body += "\n"
    block = begin_marker(block_id) + "\n" + body + end_marker(block_id) + "\n"
    block = block.replace("\n", eol)
    found = find_block(text, block_id, where)
    if found is not None:
        start, end, _ = found
        # An end marker on the file's last line without a newline stays that way.
        replaced = block if text[start:end].endswith("\n") else block[: -len(eol)]
        return text[:start] + replaced + text[end:], None
    sep = "" if text == "" or text.endswith(eol + eol) else eol if text.endswith(eol) else eol * 2
    return text + sep + block, sep


def restore_block(text: str, block_id: str, original: str, where: str = "<text>") -> str:
    """``text`` with block ``block_id`` (markers included) replaced by ``original``: the
    block that was there before ``link --force`` replaced it."""
    found = find_block(text, block_id, where)
    if found is None:
        return text
    start, end, _ = found
    return text[:start] + original + text[end:]


def remove_block(text: str, block_id: str, sep: str | None = None, where: str = "<text>") -> str:
    """``text`` without block ``block_id`` (and the separator Engram added before it)."""
    found = find_block(text, block_id, where)
    if found is None:
        return text
    start, end, _ = found
    before, after = text[:start], text[end:]
    if sep and after == "" and before.endswith(sep):
        return before[: len(before) - len(sep)]
    if after == "":
        return before
    # A block in the middle: drop one blank line that separated it, if there is one.
    for eol in ("\r\n", "\n"):
        if after.startswith(eol) and (before == "" or before.endswith(eol)):
            return before + after[len(eol) :]
    return before + after
