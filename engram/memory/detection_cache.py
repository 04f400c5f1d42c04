"""Project detection remembered by a long-lived process, re-checked against what it read.

The stdio server detects the project and checks its binding on every tool call: it walks up to
the repository, reads ``.git`` pointers, the shared git ``config`` (the remote), the clone's
binding and the data dir's ``project-bindings.json``. :class:`DetectionCache` does that once per
working directory and then, on each call, only compares *stamps*: for every path detection
looked at (through :class:`StampedReads`), missing ones included, the file type, device and
inode, and for a file also its size, mtime and ctime in nanoseconds (a directory's identity
only: files appear in ``.git`` on every commit). A call whose stamps all match is answered from
memory; any difference (an edited remote, ``git remote set-url``, a new ``.engram/config.json``
or ``.git`` on the way up, ``.git`` replaced by a worktree link, a moved or deleted repository, a
confirmed or removed binding) detects again, on that very call.

What is not remembered, so it is detected on every call as before:

- a detection that failed, found no repository and no config (it scans the directory's
  children), or wrote the clone's binding (the next call stamps the written file);
- a detection that read a file modified less than :data:`RACY_SECONDS` before it was stamped:
  a second write within the file system's timestamp granularity could keep its mtime and size.

Entries are kept per resolved working directory, at most :data:`MAX_ENTRIES` of them.
"""

from __future__ import annotations

import os
import stat
import time

from engram.errors import EngramError
from engram.memory import project_binding
from engram.memory.git_repo import DiskReads
from engram.memory.project import ProjectDetection, detect_project
from engram.store.datadir import plain_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engram.store.db import Store

Stamp = tuple[int, ...]
RACY_SECONDS = 2.0
MAX_ENTRIES = 64
REMEMBERED_SOURCES = frozenset({"config", "git_remote", "git_root"})
_MISSING: Stamp = (0,)


def working_directory() -> str:
    """This process's working directory.

    Raises:
        EngramError: ``project.cwd_missing`` when it was deleted (or moved out of reach).
    """
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise EngramError(
            "project.cwd_missing",
            "the folder this process runs in no longer exists (deleted, or moved away)",
            "restart it from the project's folder (for an MCP server: restart the agent host)",
        ) from None


def stamp(path: str) -> Stamp:
    """What a path is now: missing, an error (by errno), a directory's identity, or a file's
    identity, size, mtime and ctime."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return _MISSING
    except OSError as exc:
        return (-1, exc.errno or 0)
    except ValueError:  # a NUL in the path: no such file, as os.path.isfile says
        return _MISSING
    kind = stat.S_IFMT(info.st_mode)
    if kind == stat.S_IFDIR:
        return (kind, info.st_dev, info.st_ino)
    return (kind, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


class StampedReads(DiskReads):
    """:class:`DiskReads` that notes the stamp of each path before looking at it."""

    def __init__(self) -> None:
        self.stamps: dict[str, Stamp] = {}

    def note(self, path: str) -> Stamp:
        """Stamp ``path`` now; the first stamp of a path is the one kept (the oldest)."""
        found = stamp(path)
        self.stamps.setdefault(path, found)
        return found

    def is_dir(self, path: str) -> bool:
        return self.note(path)[0] == stat.S_IFDIR

    def is_file(self, path: str) -> bool:
        return self.note(path)[0] == stat.S_IFREG

    def read_text(self, path: str, errors: str = "strict") -> str:
        self.note(path)
        return super().read_text(path, errors)

    def resolve(self, path: str) -> str:
        self.note(path)  # the identity of what the symlinks lead to
        return super().resolve(path)

    def settled(self, since_ns: int) -> bool:
        """Whether every stamp still holds and no file was written within
        :data:`RACY_SECONDS` before ``since_ns`` (when stamping started)."""
        return all(
            not racy(noted, since_ns) and stamp(path) == noted
            for path, noted in self.stamps.items()
        )


def racy(noted: Stamp, since_ns: int) -> bool:
    """Whether a file's stamp is too recent to trust: written within :data:`RACY_SECONDS`
    before ``since_ns``, a second write could leave it unchanged."""
    return len(noted) > 4 and noted[4] >= since_ns - int(RACY_SECONDS * 1e9)


class _Entry:
    __slots__ = ("detection", "origin", "stamps")

    def __init__(
        self, detection: ProjectDetection, origin: str | None, stamps: dict[str, Stamp]
    ) -> None:
        self.detection, self.origin = detection, origin
        self.stamps = tuple(stamps.items())

    def holds(self) -> bool:
        """Whether every path still stamps as it did."""
        return all(stamp(path) == noted for path, noted in self.stamps)


class DetectionCache:
    """Detections and the bindings file, remembered while the files they came from hold."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._last: _Entry | None = None
        self._bindings: dict[str, tuple[Stamp, dict[str, list[str]]]] = {}
        self._binding_paths: dict[str | os.PathLike[str], str] = {}  # data dir -> its file

    def detect(self, cwd: str | os.PathLike[str] | None = None) -> ProjectDetection:
        """:func:`engram.memory.project.detect_project` of ``cwd`` (default: this process's
        working directory), from memory when nothing it read has changed. Raises what
        detection raises."""
        # getcwd() names no symlink (POSIX): only a folder given by the caller is resolved.
        real = working_directory() if cwd is None else os.path.realpath(os.fspath(cwd))
        entry = self._entries.get(real)
        if entry is None or not entry.holds():
            entry = self._detected(real)
        self._last = entry
        return entry.detection

    def _detected(self, real: str) -> _Entry:
        self._entries.pop(real, None)
        reads = StampedReads()
        started = time.time_ns()
        reads.note(real)  # the folder itself: a checkout moved away and another put there
        detection = detect_project(real, reads)
        if detection.source not in REMEMBERED_SOURCES:
            return _Entry(detection, None, {})
        entry = _Entry(detection, project_binding.origin_of(detection, reads), reads.stamps)
        if reads.settled(started):
            if len(self._entries) >= MAX_ENTRIES:  # list(): one step, whatever other threads do
                self._entries.pop(next(iter(list(self._entries)), ""), None)
            self._entries[real] = entry
        return entry

    def origin_of(self, detection: ProjectDetection) -> str:
        """:func:`engram.memory.project_binding.origin_of`, remembered with the detection."""
        entry = self._last
        if entry is not None and entry.detection is detection and entry.origin is not None:
            return entry.origin
        return project_binding.origin_of(detection)

    def bindings(self, data_dir: str | os.PathLike[str]) -> dict[str, list[str]]:
        """:func:`engram.memory.project_binding.load_bindings`, read again when the file's stamp
        changed. The answer is shared: read it, never change it."""
        path = self._binding_paths.get(data_dir)
        if path is None:
            path = os.path.join(plain_path(data_dir), project_binding.BINDINGS_FILE)
            if len(self._binding_paths) < MAX_ENTRIES:
                self._binding_paths[data_dir] = path
        started = time.time_ns()
        noted = stamp(path)
        known = self._bindings.get(path)
        if known is not None and known[0] == noted:
            return known[1]
        self._bindings.pop(path, None)
        loaded = project_binding.load_bindings(data_dir)
        if not racy(noted, started) and stamp(path) == noted and len(self._bindings) < MAX_ENTRIES:
            self._bindings[path] = (noted, loaded)
        return loaded

    def is_trusted(
        self, store: Store, data_dir: str | os.PathLike[str], detection: ProjectDetection
    ) -> bool:
        """:func:`engram.memory.project_binding.is_trusted` with the remembered origin and
        bindings."""
        if detection.source in project_binding.CHOSEN_SOURCES or not detection.project:
            return True
        known = (self.origin_of(detection), self.bindings(data_dir))
        return project_binding.is_trusted(store, data_dir, detection, known)

    def clear(self) -> None:
        """Forget everything (tests that switch data dirs in one process)."""
        self._entries.clear()
        self._bindings.clear()


REMEMBERED = DetectionCache()
