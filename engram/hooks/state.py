"""A tiny per-session state file, so each prompt injects only what changed.

``<data_dir>/hooks/<host>/<session>.json`` holds the newest observation id the session has
already been shown and whether the host compacted since (hosts without an after-compaction
channel get the pack again with the next prompt). Files older than a week are swept when a new
session starts, at most once an hour (``<data_dir>/hooks/<host>/.swept`` marks the last sweep:
a folder of many sessions is not listed on every start). A missing or damaged file is the same
as a fresh session.

Paths are plain strings (``os.path``): ``pathlib`` costs the hook more than its work.
"""

from __future__ import annotations

import contextlib
import os
import time

from engram import lean_json
from engram.store.datadir import write_private_file

STALE_AFTER_SECONDS = 7 * 24 * 3600
SWEEP_EVERY_SECONDS = 3600
SWEPT_MARK = ".swept"


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


def state_path(data_dir: str | os.PathLike[str], host: str, session_id: str) -> str:
    """Where the state of ``session_id`` lives.

    Hosts pick the id's characters: anything but letters, digits, ``-`` and ``_`` is written as
    hex, and very long ids are cut (with a checksum of the rest) to keep the name short.
    """
    safe = "".join(
        c if c.isascii() and (c.isalnum() or c in "-_") else f".{ord(c):x}" for c in session_id
    )
    if len(safe) > 96:
        import zlib  # only for very long ids

        safe = f"{safe[:80]}.{zlib.crc32(safe.encode()):08x}.{len(safe)}"
    return os.path.join(data_dir, "hooks", host, f"{safe or 'none'}.json")


def load_state(path: str) -> SessionState:
    """The state stored at ``path``; a fresh state when missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            raw = lean_json.loads(handle.read())
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


def save_state(path: str, state: SessionState) -> None:
    """Write ``state`` atomically (temp file + rename, mode 0600), creating the folder 0700."""
    body = {"shown_upto": state.shown_upto, "compacted": state.compacted, "project": state.project}
    write_private_file(path, lean_json.dumps(body))


def forget_state(path: str) -> None:
    """Remove a finished session's state file (missing is fine)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def sweep_stale(folder: str, now: float | None = None) -> int:
    """Remove state files untouched for a week from ``folder``; returns how many went.

    Runs at most once every ``SWEEP_EVERY_SECONDS`` per folder (the ``.swept`` mark's time):
    hosts whose sessions never send an end leave a file each, and listing them all on every
    session start would grow the hook's cost with them.
    """
    now = time.time() if now is None else now
    mark = os.path.join(folder, SWEPT_MARK)
    try:
        if 0 <= now - os.stat(mark).st_mtime < SWEEP_EVERY_SECONDS:
            return 0
    except OSError:
        pass  # never swept here (or no folder yet)
    cutoff = now - STALE_AFTER_SECONDS
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    try:
        with open(mark, "a"):
            pass
        os.utime(mark, (now, now))
    except OSError:
        pass  # a read-only folder: sweep again next time
    return removed
