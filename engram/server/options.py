"""The ``engram-mcp`` command line, parsed without importing the MCP SDK.

Options: ``--tools=agent|admin|governed|all|<name,...>`` (default ``all``), ``--project NAME``,
``--always-load``, ``--no-elicitation``. An unknown option is ignored with a note on stderr —
hosts sometimes pass flags from newer releases, and a crash there would drop the server.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

PROFILES = ("agent", "admin", "governed", "all")


@dataclass(frozen=True)
class ServerOptions:
    """What the process was started with.

    Args:
        tools: a profile name (``agent``, ``admin``, ``governed``, ``all``) or explicit tool names.
        project: the process project override (``--project``, else ``ENGRAM_PROJECT``), or None.
        always_load: mark ``engram_load`` with ``_meta["anthropic/alwaysLoad"]``.
        no_elicitation: keep the chat approval-token flow even for clients that can elicit.
        ignored: options that were not understood (already reported on stderr).
    """

    tools: tuple[str, ...] = ("all",)
    project: str | None = None
    always_load: bool = False
    no_elicitation: bool = False
    ignored: tuple[str, ...] = field(default=())


# The options of the running process; `governed` tools read no_elicitation from here.
_current = ServerOptions()


def current_options() -> ServerOptions:
    """The options ``engram-mcp`` was started with (defaults outside the server)."""
    return _current


def set_current_options(options: ServerOptions) -> None:
    """Record the running process's options (called once by the entry point)."""
    global _current
    _current = options


def parse_options(
    argv: Sequence[str], environ: dict[str, str] | None = None, stderr: TextIO | None = None
) -> ServerOptions:
    """Parse ``engram-mcp`` arguments; unknown ones are noted on ``stderr`` and ignored."""
    env = os.environ if environ is None else environ
    err = sys.stderr if stderr is None else stderr
    tools = "all"
    project: str | None = None
    always_load = no_elicitation = False
    ignored: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        name, separator, value = arg.partition("=")
        has_value = bool(separator)
        needs_value = name in ("--tools", "--project") and not has_value
        if needs_value and i + 1 < len(args) and not args[i + 1].startswith("--"):
            value, has_value = args[i + 1], True
            i += 1
        if name == "--tools" and has_value and value.strip():
            tools = value.strip()
        elif name == "--project" and has_value and value.strip():
            project = value.strip()
        elif arg == "--always-load":
            always_load = True
        elif arg == "--no-elicitation":
            no_elicitation = True
        else:
            ignored.append(arg)
        i += 1
    for arg in ignored:
        print(f"engram-mcp: ignoring unknown option {arg!r}", file=err)
    if project is None and env.get("ENGRAM_PROJECT", "").strip():
        project = env["ENGRAM_PROJECT"].strip()
    selection = tuple(part.strip() for part in tools.split(",") if part.strip()) or ("all",)
    return ServerOptions(selection, project, always_load, no_elicitation, tuple(ignored))
