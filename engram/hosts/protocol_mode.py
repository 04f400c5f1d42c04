"""How much of the memory protocol an agent's hook scripts print: ``full`` or ``slim``.

The Go tool's Claude Code scripts ask ``engram protocol-mode claude-code`` at every session
start and after compaction, and print their protocol text unless the answer is ``slim``. The
choice is made with ``engram setup <agent> --protocol slim|full`` and kept, as the Go tool keeps
it, in ``protocol-mode.json`` in the data dir (``{"<agent>": "slim"}``), so a Go binary sharing
the data dir reads the same answer.

Every doubt answers ``full`` (no file, an unreadable or malformed one, no entry, an unknown
value): the protocol text is never dropped by accident. A malformed file is never overwritten
either: the write is refused and the file left for the user to look at.
"""

from __future__ import annotations

import json
from pathlib import Path

from engram.errors import EngramError

FILE_NAME = "protocol-mode.json"
FULL, SLIM = "full", "slim"
MODES = (FULL, SLIM)
MAX_BYTES = 64 * 1024


def _names(agent: str) -> list[str]:
    """The keys an agent may be stored under: as typed, then Engram's name and aliases."""
    from engram.hosts.registry import find_host

    names = [agent.strip().lower()]
    try:
        host = find_host(agent)
    except EngramError:
        return names
    return [*names, host.name, *host.aliases]


def _read(data_dir: Path) -> dict[str, object] | None:
    path = data_dir / FILE_NAME
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_protocol_mode(data_dir: Path, agent: str) -> str:
    """``slim`` when that was chosen for ``agent``, else ``full``."""
    modes = _read(data_dir) or {}
    for name in _names(agent):
        if name in modes:
            return SLIM if modes[name] == SLIM else FULL
    return FULL


def write_protocol_mode(data_dir: Path, agent: str, mode: str) -> None:
    """Keep ``mode`` for ``agent`` (under the name typed and Engram's name), other agents' kept.

    Raises:
        EngramError: ``setup.bad_protocol`` for a mode other than full/slim;
            ``setup.protocol_file_unreadable`` when the file exists but is not a JSON object.
    """
    from engram.store.datadir import write_private_file

    if mode not in MODES:
        raise EngramError(
            "setup.bad_protocol", f"unknown protocol mode {mode!r}", "use --protocol full or slim"
        )
    path = data_dir / FILE_NAME
    modes = _read(data_dir)
    if modes is None:
        if path.exists():
            raise EngramError(
                "setup.protocol_file_unreadable",
                f"{path} is not a JSON object of agent modes; it was left as it is",
                "fix or remove it by hand, then run engram setup again",
            )
        modes = {}
    for name in dict.fromkeys(_names(agent)[:2]):
        modes[name] = mode
    data_dir.mkdir(parents=True, exist_ok=True)
    write_private_file(path, json.dumps(modes, indent=2, sort_keys=True) + "\n")
