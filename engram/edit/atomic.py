"""Writes that either happen completely or not at all, and a lock so two links don't race.

A file is replaced by writing a temporary file in the same folder, fsyncing it, giving it the
original's mode and renaming it over the original (then fsyncing the folder), so a reader or a
crash sees the old bytes or the new ones, never half of each.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from engram.errors import EngramError


def read_text(path: Path) -> str | None:
    """The text of ``path`` (line endings untouched), or None when it does not exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise _os_error("read", path, err) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise EngramError(
            "edit.parse_error",
            f"{path}: not UTF-8 text (byte {err.start})",
            "save the file as UTF-8, then retry",
            file=str(path),
        ) from None


def make_dirs(folder: Path) -> list[Path]:
    """Create ``folder`` and missing parents; return the ones created, outermost first."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            continue
        except OSError as err:
            raise _os_error("create the folder", path, err) from None
    return list(reversed(missing))


class _NoCheck:
    """Marker: the caller does not ask for a changed-since-read check."""


NO_CHECK = _NoCheck()


def write_atomic(
    path: Path, text: str, mode: int | None = None, expect: str | _NoCheck | None = NO_CHECK
) -> None:
    """Replace ``path`` with ``text`` atomically.

    Args:
        path: the file; its folder must exist.
        text: the new content (written as UTF-8, line endings as given).
        mode: permission bits for a new file (an existing file keeps its own mode).
        expect: the text the file held when the change was computed (None: it did not
            exist); if the file changed since (another writer), nothing is written and
            ``edit.changed_underneath`` is raised. Leave it out to skip the check.
    """
    existing = path.exists()
    # Root passes os.access; a file with every write bit off still means "hands off".
    if existing and (not os.access(path, os.W_OK) or not path.stat().st_mode & 0o222):
        raise _os_error("write", path, PermissionError(errno.EACCES, "permission denied"))
    if existing:
        mode = path.stat().st_mode & 0o7777
    elif mode is None:
        mode = 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".engram-tmp", dir=path.parent)
    except OSError as err:
        raise _os_error("write", path, err) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if not isinstance(expect, _NoCheck) and read_text(path) != expect:
            raise EngramError(
                "edit.changed_underneath",
                f"{path} changed while Engram was editing it; nothing was written",
                "run the command again",
                file=str(path),
            )
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise _os_error("write", path, err) from None
        raise
    fsync_dir(path.parent)


def remove_path(path: Path) -> None:
    """Delete the file ``path`` (one-line error when that is not allowed)."""
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as err:
        raise _os_error("remove", path, err) from None
    fsync_dir(path.parent)


def remove_empty_dirs(folders: list[Path]) -> list[Path]:
    """Remove those of ``folders`` that are empty, innermost first; return the ones removed."""
    removed: list[Path] = []
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            continue
        removed.append(folder)
    return removed


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entry list so a rename survives a crash (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def exclusive_lock(lock_file: Path) -> Iterator[None]:
    """Hold an advisory lock on ``lock_file``; ``edit.busy`` at once if another process has it."""
    make_dirs(lock_file.parent)
    try:
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        raise _os_error("open the lock file", lock_file, err) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise EngramError(
                "edit.busy",
                "another engram link/unlink is changing config files right now",
                "wait for it to finish, then run the command again",
                lock=str(lock_file),
            ) from None
        yield
    finally:
        os.close(fd)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _os_error(action: str, path: Path, err: OSError) -> EngramError:
    reason = err.strerror or str(err)
    return EngramError(
        "edit.unwritable" if action != "read" else "edit.unreadable",
        f"cannot {action} {path}: {reason.lower()}",
        "check the file's and its folder's permissions, then retry",
        file=str(path),
    )
