"""Suggesting a stable ``topic_key`` (``family/slug``) so evolving memories upsert in place.

The family comes from the observation type (``architecture`` → ``architecture/``, ``bugfix`` →
``bug/``, ``decision`` → ``decision/``...), or, for other types, from words in the title;
the slug is the title's first meaningful words (the content's first line when there is no
title), lowercase and hyphenated.
"""

from __future__ import annotations

import re

from engram.errors import EngramError

FAMILY_BY_TYPE = {
    "architecture": "architecture",
    "decision": "decision",
    "bugfix": "bug",
    "bug": "bug",
    "pattern": "pattern",
    "config": "config",
    "discovery": "discovery",
    "learning": "learning",
    "preference": "preference",
    "session_summary": "session",
}
# For untyped saves: a title word that names the family.
FAMILY_BY_WORD = (
    (("fix", "fixed", "bug", "crash", "error", "regression"), "bug"),
    (("decide", "decided", "chose", "choose", "decision", "adopt"), "decision"),
    (("architecture", "design", "layer", "module", "schema"), "architecture"),
    (("config", "configure", "setting", "env", "setup"), "config"),
    (("pattern", "convention", "naming"), "pattern"),
    (("prefer", "prefers", "preference"), "preference"),
)
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "into",
        "over",
        "via",
        "is",
        "are",
        "was",
        "be",
        "use",
        "used",
        "using",
        "add",
        "added",
        "fix",
        "fixed",
        "chose",
        "chosen",
        "decided",
        "decide",
        "make",
        "made",
        "set",
    ]
)
MAX_SLUG_WORDS = 5
_WORD = re.compile(r"[^\W_]+")


def suggest_topic_key(
    type_: str | None = None, title: str | None = None, content: str | None = None
) -> str:
    """A ``family/slug`` topic key from type + title (or the content's first line).

    Raises:
        EngramError: ``memory.empty_topic_input`` when title and content are both blank.
    """
    source = (title or "").strip() or _first_line(content or "")
    words = [w.lower() for w in _WORD.findall(source)]
    if not words:
        raise EngramError(
            "memory.empty_topic_input",
            "a title or content is needed to suggest a topic key",
            "pass the title you are about to save",
        )
    family = FAMILY_BY_TYPE.get((type_ or "").strip().lower()) or _family_from_words(words)
    meaningful = [w for w in words if w not in STOP_WORDS and w != family] or words
    return f"{family}/{'-'.join(meaningful[:MAX_SLUG_WORDS])}"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _family_from_words(words: list[str]) -> str:
    present = set(words)
    for triggers, family in FAMILY_BY_WORD:
        if present.intersection(triggers):
            return family
    return "topic"
