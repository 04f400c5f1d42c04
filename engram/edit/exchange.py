"""Swapping a new file into place without losing what another writer put there meanwhile.

``os.replace`` overwrites whatever is at the path *now*: if another program renamed its own
version in after Engram last read the file, that version is gone. Linux's ``renameat2`` with
``RENAME_EXCHANGE`` swaps the two names atomically instead, so the bytes that were displaced
stay on disk under the temporary name where Engram can compare them with what it read and,
if they differ, swap them back. Where the call is missing (another OS, an old kernel, a
filesystem without it) :func:`exchange` answers False and the caller falls back.

A program that rewrites a file *in place* (truncate, then write) is kept out differently: a
read lease (:func:`writers_kept_out`) cannot be taken while anyone has the file open for
writing, and while Engram holds it another process's open-for-writing waits, so Engram's
compare-and-swap never interleaves with a half-done in-place save.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 1 << 1


@cache
def _renameat2() -> object | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes += [ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def exchange(first: Path, second: Path) -> bool:
    """Atomically swap the files at ``first`` and ``second``; False when unsupported.

    Raises:
        OSError: the swap is supported but failed (a missing file, permissions).
    """
    function = _renameat2()
    if function is None:
        return False
    result = function(  # type: ignore[operator]
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


class WriterActive(Exception):
    """Another process has the file open for writing right now."""


@contextlib.contextmanager
def writers_kept_out(path: Path) -> Iterator[Callable[[], bool]]:
    """Hold a read lease on ``path`` for the block; yield "is a writer waiting to get in?".

    Raises :class:`WriterActive` when another process has ``path`` open for writing. Where
    leases are unavailable (not the file's owner, a filesystem without them, not the main
    thread) the block runs unguarded and the answer is always False.
    """
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        yield lambda: False
        return
    # A writer's open breaks the lease with SIGIO, whose default action ends the process.
    previous = signal.signal(signal.SIGIO, signal.SIG_IGN)
    try:
        held = _take_lease(fd)
        yield (
            (lambda: fcntl.fcntl(fd, fcntl.F_GETLEASE) == fcntl.F_UNLCK)
            if held
            else (lambda: False)
        )
    finally:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
        os.close(fd)
        signal.signal(signal.SIGIO, previous)


def _take_lease(fd: int) -> bool:
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except OSError as err:
        if err.errno in (errno.EAGAIN, errno.EBUSY):
            raise WriterActive from None
        return False  # EACCES (not ours), EINVAL (no leases here): go unguarded
    return True


def wait_for_writer(path: Path, limit: float = 2.0) -> None:
    """Wait (bounded) until nobody has ``path`` open for writing any more."""
    deadline = time.monotonic() + limit
    time.sleep(0.01)  # let the waiting open complete before probing
    while time.monotonic() < deadline:
        try:
            with writers_kept_out(path):
                return
        except WriterActive:
            time.sleep(0.005)


def owner_of_tree(folder: Path) -> tuple[int, int] | None:
    """The uid/gid new files under ``folder`` should get when Engram runs as root, else None.

    The nearest existing folder decides: a file Engram creates in a user's home belongs to
    that user even when ``sudo engram link`` made it.
    """
    if os.geteuid() != 0:
        return None
    probe = folder
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    try:
        info = probe.stat()
    except OSError:
        return None
    if info.st_uid == 0 and info.st_gid == 0:
        return None
    return info.st_uid, info.st_gid
