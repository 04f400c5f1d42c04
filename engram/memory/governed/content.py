"""Identity of a memory's content: slugs, keys, normalized and integrity hashes."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import Any

_NON_SLUG = re.compile(r"[^a-z0-9]+")
SLUG_MAX = 48


def slugify(text: str) -> str:
    """A lowercase ASCII slug of ``text`` (at most 48 characters), ``memory`` when empty."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = _NON_SLUG.sub("-", ascii_text.lower()).strip("-")[:SLUG_MAX].strip("-")
    return slug or "memory"


def default_key(memory_type: str, title: str) -> str:
    """The topic key a candidate gets when none is given: ``<type>/<slug of title>``."""
    return f"{memory_type}/{slugify(title)}"


def normalized_hash(title: str, body: str) -> str:
    """Hash of title + body with case and whitespace folded: equal means duplicate."""
    folded = " ".join(f"{title}\n{body}".lower().split())
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()


def content_hash(fields: dict[str, Any]) -> str:
    """The integrity hash stored with a memory, over its canonical JSON fields."""
    canonical = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def hashed_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The columns a content hash covers (what a reader relies on), from a store row."""
    return {
        "id": row["id"],
        "scope": row["scope"],
        "tier": row["tier"],
        "key": row["key"],
        "type": row["type"],
        "title": row["title"],
        "body": row["body"],
        "variants": json.loads(row["variants"])
        if isinstance(row["variants"], str)
        else row["variants"],
        "roles": json.loads(row["roles"]) if isinstance(row["roles"], str) else row["roles"],
        "objective": row["objective"],
    }


def word_set(text: str) -> frozenset[str]:
    """Lowercased words of three letters or more, for similarity checks."""
    return frozenset(w for w in re.findall(r"\w+", text.lower()) if len(w) >= 3)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two word sets (0 when both are empty)."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)
