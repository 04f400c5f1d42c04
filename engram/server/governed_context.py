"""The knowledge base a governed tool call works on: this process's store and workspace.

The store is the one the ``mem_*`` tools use, opened once per process on first use; the
workspace is the server's working directory (hosts start ``engram-mcp`` in the project), and
the project follows ``--project`` / ``ENGRAM_PROJECT`` / detection.
"""

from __future__ import annotations

from pathlib import Path

from engram.memory.governed import KnowledgeBase, load_config, resolve_workspace
from engram.server.mem_tools.context import STATE
from engram.server.options import current_options
from engram.store.db import Store


def store() -> Store:
    """The process's store (shared with the ``mem_*`` tools), opened on first use."""
    return STATE.store()


def knowledge_base() -> KnowledgeBase:
    """A knowledge base for one call: the store, the cwd workspace, the data-dir config."""
    opened = store()
    workspace = resolve_workspace(Path.cwd(), None, current_options().project)
    return KnowledgeBase(opened.connection, workspace, load_config(opened.path.parent))
