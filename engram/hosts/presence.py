"""Is a host on this machine? What ``engram link all`` asks before linking it.

A host is present when one of its programs is on ``PATH`` or one of its user-level folders
exists. A host declares both (``Host.programs``, ``Host.config_dirs``); one that declares neither
is looked for as a program named like the host and the folders of its user-level MCP files.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from engram.edit.plan import Scope
from engram.hosts.base import Host, McpHost
from engram.hosts.context import HostContext


@dataclass(frozen=True)
class Presence:
    """Whether a host was found, and the evidence (or what was looked for) in the user's words."""

    found: bool
    reason: str


def programs(host: Host) -> tuple[str, ...]:
    """The programs that mean ``host`` is installed (default: one named like the host)."""
    return host.programs or (host.name,)


def config_dirs(host: Host, ctx: HostContext) -> list[Path]:
    """The user-level folders that mean ``host`` was used here (default: the folders of its
    user-level MCP config files)."""
    if host.config_dirs:
        return [ctx.path(location) for location in host.config_dirs]
    if isinstance(host, McpHost) and Scope.GLOBAL in host.mcp:
        return [ctx.path(c).parent for c in host.mcp[Scope.GLOBAL].candidates]
    return []


def presence(host: Host, ctx: HostContext) -> Presence:
    """Where ``host`` was found on this machine, or what was looked for and missing."""
    search = ctx.env.get("PATH", "")
    for program in programs(host):
        where = shutil.which(program, path=search)
        if where:
            return Presence(True, f"`{program}` is on PATH ({where})")
    folders = config_dirs(host, ctx)
    for folder in folders:
        if folder.is_dir():
            return Presence(True, f"{_shown(folder, ctx)} exists")
    looked = [f"`{p}` on PATH" for p in programs(host)] + [_shown(f, ctx) for f in folders]
    return Presence(False, f"not found (no {' and no '.join(looked)})")


def _shown(path: Path, ctx: HostContext) -> str:
    return (
        "~/" + path.relative_to(ctx.home).as_posix() if path.is_relative_to(ctx.home) else str(path)
    )
