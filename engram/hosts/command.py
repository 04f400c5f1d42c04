"""Choosing the command hosts run to start Engram's MCP server.

Order (first that applies wins):

1. ``engram-mcp`` is on the user's PATH: register the bare name. It survives upgrades and
   reinstalls, and every terminal host finds it.
2. The running Engram's own ``engram-mcp`` script lives in a stable, unversioned place (a
   pipx or ``uv tool`` venv, a plain virtualenv, ``~/.local/bin``): register its absolute
   path. GUI hosts do not inherit the shell's PATH, an absolute path needs none, and these
   places keep their path across ``pipx upgrade`` / ``uv tool upgrade``.
3. ``uvx`` or ``pipx`` exists: register the launcher's absolute path with
   ``--from engram-keeper==<version>`` / ``run --spec engram-keeper==<version>``: pinned to the
   installed release, so the host runs what the user installed; ``engram upgrade`` re-pins it.
4. Otherwise the absolute path of the script anyway, marked ``"versioned"`` so doctor and the
   link output can say it breaks when that install goes away.

A path is *versioned* when one of its folders carries the release (``engram-keeper-0.1.0``,
``.../0.1.0/...``) or it sits in a launcher's throwaway cache (``uv/archive-v0``,
``pipx/.cache``, ``_npx``): those disappear or change on upgrade.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from engram import __version__
from engram.hosts.context import ServerCommand

DISTRIBUTION = "engram-keeper"
SCRIPT = "engram-mcp"
_THROWAWAY = ("archive-v0", "/pipx/.cache/", "/_npx/", "/.cache/uv/", "/builds-v0/")


def resolve_server_command(
    env: Mapping[str, str],
    *,
    version: str = __version__,
    scripts_dir: Path | None = None,
) -> ServerCommand:
    """The server command to register, chosen as the module docstring describes.

    Args:
        env: the environment whose ``PATH`` is searched.
        version: the installed Engram release (the pin for launcher forms).
        scripts_dir: where the running install keeps its console scripts (default: the folder
            of ``sys.executable``, which is the venv's ``bin``).
    """
    search_path = env.get("PATH", "")
    if shutil.which(SCRIPT, path=search_path):
        return ServerCommand(SCRIPT, (), version, "path")
    folder = scripts_dir if scripts_dir is not None else Path(sys.executable).parent
    own = folder / (SCRIPT + (".exe" if os.name == "nt" else ""))
    if own.is_file() and not is_versioned_path(own, version):
        return ServerCommand(str(own), (), version, "absolute")
    pin = f"{DISTRIBUTION}=={version}"
    uvx = shutil.which("uvx", path=search_path)
    if uvx:
        return ServerCommand(uvx, ("--from", pin, SCRIPT), version, "uvx")
    pipx = shutil.which("pipx", path=search_path)
    if pipx:
        return ServerCommand(pipx, ("run", "--spec", pin, SCRIPT), version, "pipx")
    return ServerCommand(str(own), (), version, "versioned")


def is_versioned_path(path: Path, version: str) -> bool:
    """Whether ``path`` names a release or a launcher cache (so it breaks after an upgrade)."""
    text = path.as_posix()
    if any(marker in text for marker in _THROWAWAY):
        return True
    pattern = re.compile(rf"(^|[-_/]){re.escape(version)}($|[-_/])")
    return any(pattern.search(part) for part in path.parent.parts)
