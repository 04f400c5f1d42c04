"""The knowledge base a governed operation works on: store connection, workspace, config."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from engram.memory.governed.approvals import utc_now
from engram.memory.governed.config import GovernedConfig
from engram.memory.governed.workspace import Workspace


@dataclass(frozen=True, slots=True)
class KnowledgeBase:
    """Everything one governed call needs.

    Args:
        conn: an open store connection (migrated).
        workspace: the workspace the call is bound to.
        config: validated governed settings.
        clock: returns "now" in UTC (tests pass a fixed or advancing clock).
    """

    conn: sqlite3.Connection
    workspace: Workspace
    config: GovernedConfig = field(default_factory=GovernedConfig)
    clock: Callable[[], datetime] = utc_now

    @property
    def project(self) -> str:
        """The workspace's project."""
        return self.workspace.project

    def now(self) -> datetime:
        """The current time from the clock."""
        return self.clock()

    def today(self) -> str:
        """Today's date (UTC) as ``YYYY-MM-DD``."""
        return self.clock().date().isoformat()


@contextmanager
def open_knowledge_base(
    workspace: Path | None = None,
    project: str | None = None,
    process_override: str | None = None,
) -> Iterator[KnowledgeBase]:
    """Open the default store and bind it to a workspace (default: cwd) for one operation."""
    from engram.memory.governed.config import load_config
    from engram.memory.governed.workspace import resolve_workspace
    from engram.store.db import Store

    ws = resolve_workspace(workspace, project, process_override)
    store = Store.open()
    try:
        yield KnowledgeBase(store.connection, ws, load_config(store.path.parent))
    finally:
        store.close()
