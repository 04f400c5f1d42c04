"""A tiny per-session state file, so each prompt injects only what changed.

``<data_dir>/hooks/<host>/<session>.json`` holds the newest observation id the session has
already been shown and whether the host compacted since (hosts without an after-compaction
channel get the pack again with the next prompt). Files older than a week are swept when a new
session starts. A missing or damaged file is the same as a fresh session.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from pathlib import Path

STALE_AFTER_SECONDS = 7 * 24 * 3600


class SessionState:
    """What one session has seen (a plain class: the hook path pays for every dataclass).

    Args:
        shown_upto: the newest observation id already injected (0: none yet).
        compacted: the host compacted since the last injection of the pack.
        project: the project the pack was built for.
    """

    __slots__ = ("compacted", "project", "shown_upto")

    def __init__(self, shown_upto: int = 0, compacted: bool = False, project: str = "") -> None:
        self.shown_upto = shown_upto
        self.compacted = compacted
        self.project = project

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionState):
            return NotImplemented
        return (self.shown_upto, self.compacted, self.project) == (
            other.shown_upto,
            other.compacted,
            other.project,
        )

    def __repr__(self) -> str:
        return (
            f"SessionState(shown_upto={self.shown_upto!r}, compacted={self.compacted!r}, "
            f"project={self.project!r})"
        )


def state_path(data_dir: Path, host: str, session_id: str) -> Path:
    """Where the state of ``session_id`` lives.

    Hosts pick the id's characters: anything but letters, digits, ``-`` and ``_`` is written as
    hex, and very long ids are cut (with a checksum of the rest) to keep the name short.
    """
    safe = "".join(
        c if c.isascii() and (c.isalnum() or c in "-_") else f".{ord(c):x}" for c in session_id
    )
    if len(safe) > 96:
        safe = f"{safe[:80]}.{zlib.crc32(safe.encode()):08x}.{len(safe)}"
    return data_dir / "hooks" / host / f"{safe or 'none'}.json"


def load_state(path: Path) -> SessionState:
    """The state stored at ``path``; a fresh state when missing or unreadable."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return SessionState()
    if not isinstance(raw, dict):
        return SessionState()
    upto = raw.get("shown_upto")
    project = raw.get("project")
    return SessionState(
        shown_upto=upto if isinstance(upto, int) else 0,
        compacted=raw.get("compacted") is True,
        project=project if isinstance(project, str) else "",
    )


def save_state(path: Path, state: SessionState) -> None:
    """Write ``state`` atomically (temp file + rename, mode 0600), creating the folder 0700."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    body = {"shown_upto": state.shown_upto, "compacted": state.compacted, "project": state.project}
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(body))
    os.replace(tmp, path)


def forget_state(path: Path) -> None:
    """Remove a finished session's state file (missing is fine)."""
    path.unlink(missing_ok=True)


def sweep_stale(folder: Path, now: float | None = None) -> int:
    """Remove state files untouched for a week from ``folder``; returns how many went."""
    cutoff = (time.time() if now is None else now) - STALE_AFTER_SECONDS
    removed = 0
    try:
        entries = list(folder.iterdir())
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.suffix == ".json" and entry.stat().st_mtime < cutoff:
                entry.unlink()
                removed += 1
        except OSError:
            continue
    return removed
