"""A sandboxed home, workspace and data dir for tests (and for anyone scripting Engram).

Every test that touches a home directory uses :class:`Sandbox`; nothing here reads the real
``$HOME``. The pytest fixture ``sandbox`` in ``tests/conftest.py`` builds one per test and applies
its environment with ``monkeypatch``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

# The per-request envelope (``_meta``) Claude Code 2.1 sends with server/discover, tools/list
# and tools/call in the 2026-07-28 era, as recorded: tests and benches replay its opening.
CLAUDE_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {
        "name": "claude-code",
        "title": "Claude Code",
        "version": "2.1.332",
        "description": "Anthropic's agentic coding tool",
        "websiteUrl": "https://claude.com/claude-code",
    },
    "io.modelcontextprotocol/clientCapabilities": {
        "roots": {"listChanged": True},
        "elicitation": {"form": {}, "url": {}},
    },
}


@dataclass
class Sandbox:
    """A temporary home + workspace + data dir.

    Args:
        root: an empty temporary folder; ``home``, ``workspace`` and ``data`` are made below it.
    """

    root: Path
    home: Path = field(init=False)
    workspace: Path = field(init=False)
    data_dir: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.workspace = self.root / "workspace"
        self.data_dir = self.home / ".engram"
        self.home.mkdir(parents=True, exist_ok=True)
        self.workspace.mkdir(parents=True, exist_ok=True)

    def env(self, **extra: str) -> dict[str, str]:
        """An environment for subprocesses: the current one pointed at this sandbox."""
        env = dict(os.environ)
        for key in (
            "ENGRAM_PROJECT",
            "CODEX_HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
            "ENGRAM_SESSION_OBJECTIVE",
        ):
            env.pop(key, None)
        env.update(
            HOME=str(self.home),
            USERPROFILE=str(self.home),
            ENGRAM_DATA_DIR=str(self.data_dir),
            ENGRAM_NO_UPDATE_CHECK="1",
        )
        env.update(extra)
        return env
