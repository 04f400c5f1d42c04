"""Can the host itself read this file? Each host's own JSON rules, checked before link writes.

Engram's editor reads JSONC (comments and trailing commas), but hosts are stricter: Claude Code's
``.mcp.json`` and settings, Cursor's and Windsurf's files are strict JSON; Gemini CLI's
``settings.json`` takes comments but refuses trailing commas; OpenCode reads full JSONC. A file
the host cannot read is reported with the host's rule and where it breaks, never extended in the
same style (a copied trailing comma once kept Gemini CLI from starting).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from engram.edit.jsonc.scanner import JsoncSyntaxError, Tok, line_col, scan


class Dialect(StrEnum):
    """How strictly a host parses its JSON files."""

    JSON = "strict JSON (no comments, no trailing commas)"
    JSON_COMMENTS = "JSON with comments but no trailing commas"
    JSONC = "JSONC (comments and trailing commas)"


def host_cannot_read(path: Path, dialect: Dialect) -> str | None:
    """Why the host cannot read ``path`` under ``dialect`` ("line 4, column 3: a trailing
    comma"), or None when it can (or the file does not exist yet)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return None  # the editor reports unreadable files itself
    if not text.strip() or dialect is Dialect.JSONC:
        return None
    try:
        tokens = [t for t in scan(text) if t.kind is not Tok.WHITESPACE]
    except JsoncSyntaxError:
        return None  # not JSONC either: the editor's parse error says where
    for n, token in enumerate(tokens):
        if token.kind in (Tok.LINE_COMMENT, Tok.BLOCK_COMMENT) and dialect is Dialect.JSON:
            return _at(text, token.start, "a comment")
        if token.kind is Tok.COMMA:
            following = next(
                (t for t in tokens[n + 1 :] if t.kind not in (Tok.LINE_COMMENT, Tok.BLOCK_COMMENT)),
                None,
            )
            if following is not None and following.kind in (Tok.CLOSE_BRACE, Tok.CLOSE_BRACKET):
                return _at(text, token.start, "a trailing comma")
    return None


def _at(text: str, offset: int, what: str) -> str:
    line, column = line_col(text, offset)
    return f"line {line}, column {column}: {what}"
