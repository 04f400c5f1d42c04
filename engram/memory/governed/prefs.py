"""Per-project switches: the active roles (which filter routing) and the rule-variant mode."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from engram.errors import EngramError
from engram.memory.governed.base import KnowledgeBase
from engram.store import governed as sql

DEFAULT_VARIANT = "full"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


def _name(value: str, what: str) -> str:
    name = value.strip().lower()
    if not _NAME.match(name):
        raise EngramError(
            f"governed.bad_{what}",
            f"{what} {value!r} is not a valid name",
            "use 1-32 letters, digits, '-' or '_'",
        )
    return name


def get_roles(kb: KnowledgeBase) -> list[str]:
    """The active roles of this project ([] = no role filter)."""
    raw = sql.get_setting(kb.conn, kb.project, "roles")
    return list(json.loads(raw)) if raw else []


def set_roles(kb: KnowledgeBase, roles: Sequence[str]) -> list[str]:
    """Set the active roles (an empty list clears the filter); returns the stored roles.

    Memories tagged with roles route only when one of their roles is active; untagged
    memories always route.
    """
    names = sorted({_name(r, "role") for r in roles})
    with sql.immediate(kb.conn):
        sql.set_setting(kb.conn, kb.project, "roles", json.dumps(names))
    return names


def get_rule_variant(kb: KnowledgeBase) -> str:
    """Which wording of a rule loads render (``full`` = the body)."""
    return sql.get_setting(kb.conn, kb.project, "rule_variant") or DEFAULT_VARIANT


def set_rule_variant(kb: KnowledgeBase, mode: str) -> str:
    """Set the rule-variant mode; a rule without that variant still renders its body."""
    name = _name(mode, "variant")
    with sql.immediate(kb.conn):
        sql.set_setting(kb.conn, kb.project, "rule_variant", name)
    return name


def role_allows(memory_roles: Sequence[str], active: Sequence[str]) -> bool:
    """Whether a memory routes under the active roles."""
    return not memory_roles or not active or bool(set(memory_roles) & set(active))
