"""Privacy and size rules applied to text before anything is stored.

``<private>...</private>`` spans become ``[REDACTED]`` (case-insensitive, across lines; an
unclosed tag redacts to the end, so a forgotten closing tag never leaks a secret; nested spans
redact up to the outer closing tag). The byte
limit is applied *after* redaction, in UTF-8 bytes, and never cuts a character in half.
"""

from __future__ import annotations

import os

from engram.store.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

REDACTED = "[REDACTED]"
DEFAULT_LIMIT_BYTES = 100 * 1024
LIMIT_ENV = "ENGRAM_MAX_CONTENT_BYTES"

_TAG = r"<(/?)private>"  # case-insensitive; ``re`` is imported only for text with a "<"


def redact(text: str) -> str:
    """``text`` with every ``<private>...</private>`` span replaced by ``[REDACTED]``."""
    if "<" not in text:
        return text
    # Tags are counted, not paired lazily: a lazy match would end a nested span at the inner
    # closing tag and leak what follows it.
    import re

    kept: list[str] = []
    depth = 0
    pos = 0
    for tag in re.finditer(_TAG, text, re.IGNORECASE):
        if not tag.group(1):
            if depth == 0:
                kept.append(text[pos : tag.start()])
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                kept.append(REDACTED)
                pos = tag.end()
    kept.append(REDACTED if depth > 0 else text[pos:])
    return "".join(kept)


def redact_optional(text: str | None) -> str | None:
    """:func:`redact` for a field that may be absent."""
    return None if text is None else redact(text)


def truncate_utf8(text: str, limit_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits in ``limit_bytes``."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit_bytes:
        return text
    # errors="ignore" drops the partial character the byte cut may leave at the end.
    return encoded[: max(limit_bytes, 0)].decode("utf-8", errors="ignore")


@record
class CleanText:
    """Text after redaction and the byte limit, with what happened to it."""

    text: str
    redacted: bool
    truncated: bool
    original_bytes: int
    limit_bytes: int


def clean(text: str, limit_bytes: int) -> CleanText:
    """Redact, then apply the UTF-8 byte limit (``original_bytes`` counts the redacted text)."""
    redacted = redact(text)
    size = len(redacted.encode("utf-8"))
    kept = truncate_utf8(redacted, limit_bytes) if size > limit_bytes else redacted
    return CleanText(kept, redacted != text, size > limit_bytes, size, limit_bytes)


def content_limit(env: Mapping[str, str] | None = None) -> int:
    """The configured content limit in bytes (``ENGRAM_MAX_CONTENT_BYTES``, default 100 KiB).

    A missing, non-numeric or non-positive value means the default.
    """
    raw = (os.environ if env is None else env).get(LIMIT_ENV, "").strip()
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_LIMIT_BYTES
    return value if value > 0 else DEFAULT_LIMIT_BYTES
