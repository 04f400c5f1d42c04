"""Whether a host started from a desktop launcher (not a terminal) finds Engram's commands.

Such a host gets the system's PATH, not the shell's. A command found only on the shell's PATH
(``~/.local/bin`` of a ``uv tool`` or ``pipx`` install) is one finding, the same for every
registration and hook that names it, so doctor prints it once with ``[N places]``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

from engram.doctor.findings import Finding, Severity
from engram.installation import install_command, install_method

DEFAULT_MINIMAL_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
CODE = "host.shell_path_only"


def minimal_path(env: Mapping[str, str]) -> str:
    """The PATH a desktop-started host is assumed to get (``ENGRAM_MINIMAL_PATH`` overrides)."""
    return env.get("ENGRAM_MINIMAL_PATH") or DEFAULT_MINIMAL_PATH


def shell_path_only(program: str, env: Mapping[str, str], where: str) -> Finding | None:
    """The finding for ``program`` when it is on the shell's PATH but not the launcher's."""
    if shutil.which(program, path=minimal_path(env)):
        return None
    found = shutil.which(program, path=env.get("PATH", ""))
    if not found:
        return None
    folder = os.path.dirname(found)
    return Finding(
        CODE,
        Severity.WARN,
        f"Engram's commands are only on your shell PATH ({folder}); hosts you start from a"
        " terminal find them, a host started from a desktop launcher may not",
        where,
        _remedy(folder),
    )


def _remedy(folder: str) -> str:
    link = f"sudo ln -s {folder}/engram {folder}/engram-mcp /usr/local/bin/"
    if install_method() in ("uv-tool", "pipx"):
        return (
            f"for desktop launchers, log in again if your login profile adds {folder} to PATH,"
            f" or link them into a system folder: `{link}`"
        )
    return f"install Engram as a tool (`{install_command(['cloud', 'tui'])}`), or `{link}`"
