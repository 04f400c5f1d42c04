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
import time
from collections.abc import Iterator
from pathlib import Path

from engram.edit.exchange import (
    WriterActive,
    exchange,
    owner_of_tree,
    wait_for_writer,
    writers_kept_out,
)
from engram.errors import EngramError


def read_text(path: Path) -> str | None:
    """The text of ``path`` (line endings untouched), or None when it does not exist.

    A symlink is read at its target; a dangling one is ``edit.dangling_symlink`` (Engram
    neither writes through it nor deletes it).
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if path.is_symlink():
            raise _dangling(path) from None
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


def read_settled(path: Path, pause: float = 0.02, tries: int = 3) -> str | None:
    """:func:`read_text`, but an existing empty file is re-read a few times first.

    A program rewriting a config in place truncates it before writing: an empty read is
    usually that moment, and taking it for the file's content would drop every key in it.
    """
    text = read_text(path)
    for _ in range(tries):
        if text != "":
            return text
        time.sleep(pause)
        text = read_text(path)
    return text


def make_dirs(folder: Path, mode: int | None = None) -> list[Path]:
    """Create ``folder`` and missing parents; return the ones created, outermost first.

    ``mode`` is given to ``folder`` itself when it is created (Engram's data dir: 0700).
    """
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        current = current.parent
    owner = owner_of_tree(folder) if missing else None
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            continue
        except OSError as err:
            raise _os_error("create the folder", path, err) from None
        if owner is not None:
            with contextlib.suppress(OSError):
                os.chown(path, *owner)
    if mode is not None and missing:
        os.chmod(folder, mode)
    return list(reversed(missing))


class _NoCheck:
    """Marker: the caller does not ask for a changed-since-read check."""


NO_CHECK = _NoCheck()


def write_atomic(
    path: Path, text: str, mode: int | None = None, expect: str | _NoCheck | None = NO_CHECK
) -> None:
    """Replace ``path`` with ``text`` atomically, keeping its mode, owner and symlink.

    A symlink is followed and its target replaced (the link stays a link). A file with
    several hard links is refused (``edit.hard_linked``): replacing it would split them.

    Args:
        path: the file; its folder must exist.
        text: the new content (written as UTF-8, line endings as given).
        mode: permission bits for a new file (an existing file keeps its own mode).
        expect: the text the file held when the change was computed (None: it did not
            exist); if the file changed since (another writer), nothing of theirs is lost:
            ``edit.changed_underneath`` is raised and their bytes stay. Leave it out to skip
            the check.
    """
    target = _edit_target(path)
    try:
        info: os.stat_result | None = target.stat()
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise _os_error("write", path, err) from None
    owner: tuple[int, int] | None
    if info is not None:
        _check_replaceable(target, info)
        mode, owner = info.st_mode & 0o7777, (info.st_uid, info.st_gid)
    else:
        mode = 0o666 & ~_umask() if mode is None else mode
        owner = owner_of_tree(target.parent)
    tmp = _write_temporary(target, text, mode, owner)
    try:
        _put_in_place(tmp, target, text, expect, existed=info is not None)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise _os_error("write", path, err) from None
        raise
    fsync_dir(target.parent)


def _edit_target(path: Path) -> Path:
    """The file to replace: ``path`` itself, or the file its symlink (chain) points at."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    if not target.exists():
        raise _dangling(path)
    return target


def _check_replaceable(target: Path, info: os.stat_result) -> None:
    # Root passes os.access; a file with every write bit off still means "hands off".
    if not os.access(target, os.W_OK) or not info.st_mode & 0o222:
        raise _os_error("write", target, PermissionError(errno.EACCES, "permission denied"))
    if info.st_nlink > 1:
        raise EngramError(
            "edit.hard_linked",
            f"{target} has {info.st_nlink} hard links; replacing it would leave the others "
            "with the old text, so Engram did not write it",
            "make it a single file (or a symlink to one), or add Engram's entry by hand",
            file=str(target),
        )


def _write_temporary(target: Path, text: str, mode: int, owner: tuple[int, int] | None) -> str:
    """A fully written, fsynced sibling of ``target`` with the final mode and owner."""
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".engram-tmp", dir=target.parent
        )
    except OSError as err:
        raise _os_error("write", target, err) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if owner is not None and owner != (os.geteuid(), os.getegid()):
            with contextlib.suppress(PermissionError):  # only root may give files away
                os.chown(tmp, *owner)
        os.chmod(tmp, mode)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise _os_error("write", target, err) from None
        raise
    return tmp


def _put_in_place(
    tmp: str, target: Path, text: str, expect: str | _NoCheck | None, *, existed: bool
) -> None:
    """Move ``tmp`` to ``target``; with ``expect``, never over bytes Engram has not seen."""
    if isinstance(expect, _NoCheck):
        os.replace(tmp, target)
        return
    if read_text(target) != expect:
        raise _changed(target)
    if not existed or expect is None:
        try:
            os.link(tmp, target)  # refuses to replace a file another writer just created
        except FileExistsError:
            raise _changed(target) from None
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            os.replace(tmp, target)  # a filesystem without hard links
            return
        os.unlink(tmp)
        return
    try:
        with writers_kept_out(target) as writer_waiting:
            if read_text(target) != expect:
                raise _changed(target)
            if not exchange(Path(tmp), target):
                os.replace(tmp, target)
                return
            if Path(tmp).read_bytes() != expect.encode("utf-8"):
                _swap_back(Path(tmp), target, text)
                raise _changed(target)
            displaced_wanted = writer_waiting()
    except WriterActive:
        raise _changed(target) from None
    if displaced_wanted:
        # An in-place writer opened the old file while Engram swapped: it is writing into
        # the displaced copy now. Let it finish, then its bytes win and Engram starts over.
        wait_for_writer(Path(tmp))
        os.replace(tmp, target)
        raise _changed(target)
    os.unlink(tmp)


def _swap_back(tmp: Path, target: Path, ours: str) -> None:
    """Another writer replaced the file between Engram's check and its swap: give it back."""
    exchange(tmp, target)
    if tmp.read_bytes() != ours.encode("utf-8"):
        # A third version landed in between: it is the newest, keep it in place.
        os.replace(tmp, target)


def _changed(path: Path) -> EngramError:
    return EngramError(
        "edit.changed_underneath",
        f"{path} kept changing while Engram was editing it; nothing was written",
        "close the program that is rewriting it (or wait for it), then run the command again",
        file=str(path),
    )


def _dangling(path: Path) -> EngramError:
    return EngramError(
        "edit.dangling_symlink",
        f"{path} is a symlink to {os.readlink(path)}, which does not exist; Engram left it alone",
        "create the file it points to (or remove the link), then run the command again",
        file=str(path),
    )


def remove_path(path: Path) -> None:
    """Delete the file ``path`` (one-line error when that is not allowed); a symlink stays."""
    if path.is_symlink():
        return
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
    make_dirs(lock_file.parent, 0o700)  # the data dir: private whoever creates it
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
