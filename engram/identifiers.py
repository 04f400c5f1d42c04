"""The rule every stored id obeys, on every write path: at most 256 characters, no control
characters (C0, DEL, C1, and the Unicode line and paragraph separators).

Session ids, observation and prompt sync ids, relation ends and mutation keys are checked
with :func:`id_problem` wherever they are written — HTTP, MCP, the hooks, a git chunk, a cloud
pull, the cloud server's parse and the backup import — so whatever the store holds,
``engram export`` writes and ``engram import`` reads back. Pure: no imports.
"""

from __future__ import annotations

MAX_ID_CHARS = 256
# The largest integer SQLite and Postgres (bigint) store: the bound of every numeric id, clock
# and counter a store is given (beyond it a write fails where it lands, not where it came in).
MAX_INTEGER = 2**63 - 1
_SEPARATORS = ("\u2028", "\u2029")


def is_control(ch: str) -> bool:
    """Whether ``ch`` is a control character by this rule."""
    code = ord(ch)
    return code < 32 or 127 <= code < 160 or ch in _SEPARATORS


def id_problem(value: str) -> str | None:
    """What is wrong with ``value`` as an id (``"is longer than 256 characters"``,
    ``"contains control characters"``), or None."""
    if len(value) > MAX_ID_CHARS:
        return f"is longer than {MAX_ID_CHARS} characters"
    # Every control character by this rule is non-printable: a printable id needs no scan.
    if not value.isprintable() and any(is_control(ch) for ch in value):
        return "contains control characters"
    return None
