"""What a host planner is told: scope, folders, environment, options, the server command.

A planner takes every path from a :class:`HostContext` — never from the real ``$HOME`` — so the
same planner runs against a user's machine and against a test sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from engram.edit.plan import LinkPlan, Scope


class Base(StrEnum):
    """The folder a host's config path is relative to."""

    WORKSPACE = "workspace"  # the project the user is in
    HOME = "home"  # the user's home
    CODEX_HOME = "codex_home"  # $CODEX_HOME, else ~/.codex
    CONFIG_HOME = "config_home"  # $XDG_CONFIG_HOME, else ~/.config
    KIMI_HOME = "kimi_home"  # $KIMI_SHARE_DIR, else ~/.kimi
    VIBE_HOME = "vibe_home"  # $VIBE_HOME, else ~/.vibe
    # Desktop apps' settings folder: macOS ~/Library/Application Support, Windows %APPDATA%,
    # else $XDG_CONFIG_HOME (~/.config).
    APP_CONFIG = "app_config"


@dataclass(frozen=True)
class Location:
    """A config file a host reads, relative to one of the :class:`Base` folders.

    Args:
        base: which folder ``relpath`` starts from.
        relpath: the path below it, with ``/`` separators (``".cursor/mcp.json"``).
    """

    base: Base
    relpath: str

    def __str__(self) -> str:
        prefix = {
            Base.WORKSPACE: "",
            Base.HOME: "~/",
            Base.CODEX_HOME: "$CODEX_HOME/",
            Base.KIMI_HOME: "~/.kimi/",
            Base.VIBE_HOME: "~/.vibe/",
            Base.APP_CONFIG: "<app config>/",
        }
        return prefix.get(self.base, "$XDG_CONFIG_HOME/") + self.relpath

    def child(self, rel: str) -> Location:
        """The file or folder ``rel`` below this folder."""
        return Location(self.base, f"{self.relpath}/{rel}")

    @classmethod
    def config_folder(cls, windows: str, elsewhere: str) -> Location:
        """A host's config folder: ``windows`` below %APPDATA% on Windows, ``elsewhere`` below
        $XDG_CONFIG_HOME (``~/.config``) on every other system."""
        import sys

        if sys.platform == "win32":
            return cls(Base.APP_CONFIG, windows)
        return cls(Base.CONFIG_HOME, elsewhere)


# A host folder its own environment variable may move: base -> (variable, default below home).
_OWN_HOMES: dict[Base, tuple[str, str]] = {
    Base.KIMI_HOME: ("KIMI_SHARE_DIR", ".kimi"),
    Base.VIBE_HOME: ("VIBE_HOME", ".vibe"),
}


@dataclass(frozen=True)
class ServerCommand:
    """The command a host runs to start Engram's MCP server.

    Args:
        command: the program (``"engram-mcp"``, an absolute path, or a launcher).
        args: its arguments (a launcher's pin, ``--always-load``...).
        version: the Engram release the command runs (for the ledger, so upgrade can re-pin).
        form: how it was chosen: ``"path"`` (on PATH), ``"absolute"`` (stable install path),
            ``"uvx"`` or ``"pipx"`` (a launcher pinned to ``version``).
    """

    command: str
    args: tuple[str, ...] = ()
    version: str = ""
    form: str = "path"

    @property
    def argv(self) -> list[str]:
        """Command and arguments as one list."""
        return [self.command, *self.args]

    def with_args(self, *extra: str) -> ServerCommand:
        """The same command with ``extra`` arguments appended."""
        return ServerCommand(self.command, (*self.args, *extra), self.version, self.form)

    def shell_words(self) -> str:
        """The command as a user would type it (arguments quoted only when they need it)."""
        import shlex

        return shlex.join(self.argv)

    def engram_argv(self) -> list[str]:
        """How to run the ``engram`` CLI of the same install as this server command.

        One resolution for both: ``engram-mcp`` on PATH gives ``engram``; an absolute
        ``.../bin/engram-mcp`` gives ``.../bin/engram`` beside it; a launcher keeps its form
        without the release pin (``uvx --from engram-keeper engram``), so hook commands stay
        byte-stable across upgrades (Codex re-asks trust for a changed command).
        """
        if self.form in ("uvx", "pipx"):
            words = [w.split("==")[0] if w.startswith("engram-keeper==") else w for w in self.argv]
            at = next((i for i, w in enumerate(words) if w == "engram-mcp"), len(words) - 1)
            return [*words[:at], "engram"]
        if self.form == "path":
            return ["engram"]
        script = Path(self.command)
        suffix = ".exe" if script.suffix.lower() == ".exe" else ""
        return [str(script.with_name("engram" + suffix))]

    def hook_command(self, host: str) -> str:
        """The shell command a host runs for Engram's hooks (``engram hook <host>``)."""
        import shlex

        return shlex.join([*self.engram_argv(), "hook", host])


@dataclass(frozen=True)
class HostContext:
    """Everything a host planner may look at.

    Args:
        scope: workspace or global (``--global``).
        home: the user's home folder.
        workspace: the project folder.
        data_dir: Engram's data folder (where the link ledger lives).
        server: the resolved MCP server command.
        env: the environment (``CODEX_HOME``, ``XDG_CONFIG_HOME``...); never ``os.environ``
            directly, so tests pass a sandbox's.
        force: replace an existing, different ``engram`` entry (``--force``).
        always_load: ``--always-load`` was asked for (only Claude Code configs take it).
        hooks: install hooks beside the MCP entry (``--no-hooks`` turns it off).
        extras: install hooks, skill, instructions and rules at all (False for
            ``engram setup <agent> --mcp-only``: the MCP registration alone).
    """

    scope: Scope
    home: Path
    workspace: Path
    data_dir: Path
    server: ServerCommand
    env: Mapping[str, str] = field(default_factory=dict)
    force: bool = False
    always_load: bool = False
    hooks: bool = True
    extras: bool = True

    def base_dir(self, base: Base) -> Path:
        """The absolute folder a :class:`Base` stands for in this context."""
        if base is Base.WORKSPACE:
            return self.workspace
        if base is Base.CODEX_HOME:
            return (
                Path(self.env["CODEX_HOME"]) if self.env.get("CODEX_HOME") else self.home / ".codex"
            )
        if base is Base.APP_CONFIG:
            return self._app_config()
        if base is Base.CONFIG_HOME:
            xdg = self.env.get("XDG_CONFIG_HOME")
            return Path(xdg) if xdg else self.home / ".config"
        if base in _OWN_HOMES:
            variable, default = _OWN_HOMES[base]
            return Path(self.env[variable]) if self.env.get(variable) else self.home / default
        return self.home

    def _app_config(self) -> Path:
        import sys

        if sys.platform == "darwin":
            return self.home / "Library" / "Application Support"
        if sys.platform == "win32":
            appdata = self.env.get("APPDATA")
            return Path(appdata) if appdata else self.home / "AppData" / "Roaming"
        return self.base_dir(Base.CONFIG_HOME)

    def path(self, location: Location) -> Path:
        """The absolute path of ``location``."""
        return self.base_dir(location.base) / location.relpath

    @property
    def root(self) -> Path:
        """The folder a link is recorded under: the workspace, or the home for ``--global``."""
        return self.workspace if self.scope is Scope.WORKSPACE else self.home

    def plan(self, host: str, notices: list[str] | None = None) -> LinkPlan:
        """An empty plan for ``host`` in this context (root and server command filled in)."""
        return LinkPlan(
            host,
            self.scope,
            notices=list(notices or []),
            root=self.root,
            server_command=self.server.argv,
        )
