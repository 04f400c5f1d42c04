"""Governed project knowledge: the operations behind the ``engram_*`` tools and their CLI twins.

Rules, decisions and conventions an agent loads by task, written only after a human approved
them; plus short working-tier notes. Every surface (MCP tools, CLI, hooks) calls these
functions with a :class:`KnowledgeBase` (store connection + workspace + config).

Read: :func:`route`, :func:`load`, :func:`search`, :func:`verify`, :func:`status`.
Propose: :func:`propose` (``engram_save`` / ``engram_save_session``), :func:`propose_note`.
Write: :func:`commit` (an approved token), :func:`write_candidates` (``save-session --force``),
:func:`promote` (note -> durable), :func:`set_roles`, :func:`set_rule_variant`.
"""

from __future__ import annotations

from engram.memory.governed.approvals import decline
from engram.memory.governed.base import KnowledgeBase, open_knowledge_base
from engram.memory.governed.commit import commit, select_numbers, write_candidates
from engram.memory.governed.config import GovernedConfig, load_config
from engram.memory.governed.health import status, status_text, verify
from engram.memory.governed.journal import journal_matches
from engram.memory.governed.load import fetch, index_cards, load, most_used
from engram.memory.governed.models import (
    Candidate,
    CommitOutcome,
    JournalMatch,
    LoadPack,
    Proposal,
    Route,
    journal_section,
)
from engram.memory.governed.notes import promote, propose_note
from engram.memory.governed.prefs import set_roles, set_rule_variant
from engram.memory.governed.proposals import propose, propose_session, save_session_forced
from engram.memory.governed.routing import classify, route
from engram.memory.governed.search import search
from engram.memory.governed.tokens import estimate_tokens
from engram.memory.governed.workspace import Workspace, resolve_workspace

__all__ = [
    "Candidate",
    "CommitOutcome",
    "GovernedConfig",
    "JournalMatch",
    "KnowledgeBase",
    "LoadPack",
    "Proposal",
    "Route",
    "Workspace",
    "classify",
    "commit",
    "decline",
    "estimate_tokens",
    "fetch",
    "index_cards",
    "journal_matches",
    "journal_section",
    "load",
    "load_config",
    "most_used",
    "open_knowledge_base",
    "promote",
    "propose",
    "propose_note",
    "propose_session",
    "resolve_workspace",
    "route",
    "save_session_forced",
    "search",
    "select_numbers",
    "set_roles",
    "set_rule_variant",
    "status",
    "status_text",
    "verify",
    "write_candidates",
]
