"""The knowledge base a governed tool call works on: this process's store and workspace.

The store is opened once per process, on the first governed call; the workspace is the
server's working directory (hosts start ``engram-mcp`` in the project), and the project
follows ``--project`` / ``ENGRAM_PROJECT`` / detection.
"""

from __future__ import annotations

from pathlib import Path

from engram.memory.governed import KnowledgeBase, load_config, resolve_workspace
from engram.server.options import current_options
from engram.store.db import Store

_store: Store | None = None


def store() -> Store:
    """The process's store, opened (and migrated) on first use."""
    global _store
    if _store is None:
        _store = Store.open()
    return _store


def knowledge_base() -> KnowledgeBase:
    """A knowledge base for one call: the store, the cwd workspace, the data-dir config."""
    opened = store()
    workspace = resolve_workspace(Path.cwd(), None, current_options().project)
    return KnowledgeBase(opened.connection, workspace, load_config(opened.path.parent))
