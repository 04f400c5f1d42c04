"""Where the database lives, and whether it may live there.

``resolve_data_dir(env)`` picks the data directory: ``ENGRAM_DATA_DIR`` when it is set and not
blank (absolute paths only), else ``$HOME/.engram``. ``ensure_data_dir(path)`` refuses network
filesystems (NFS, SMB/CIFS) and creates the directory private to the user (0700).

Nothing here caches the home directory: tests and sandboxes change ``HOME`` per call.

The hook path opens the store on every call, and ``pathlib`` costs it more than its work: the
functions here work on plain strings (``os.path``), spelled as ``str(Path(...))`` would spell
them (:func:`plain_path`); :func:`data_dir_of` is :func:`resolve_data_dir` as a string.
"""

from __future__ import annotations

import _thread
import contextlib
import errno
import os
import sys

from engram.errors import EngramError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    PathText = str | os.PathLike[str]

DB_FILENAME = "engram.db"
DEFAULT_MOUNTINFO = "/proc/self/mountinfo"

# Filesystem types on which SQLite WAL locking is unsafe (mountinfo's fstype field).
NETWORK_FS_TYPES = frozenset(
    {"nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "smbfs", "ncpfs", "9p", "afs"}
)

_NETWORK_REMEDY = (
    "stop all Engram processes, copy engram.db, engram.db-wal and engram.db-shm together to a "
    "local disk, set ENGRAM_DATA_DIR to that absolute local path, then run `engram doctor` and "
    'sqlite3 "$ENGRAM_DATA_DIR/engram.db" "PRAGMA integrity_check;"'
)


def plain_path(path: PathText) -> str:
    """``path`` as ``str(Path(path))`` spells it on POSIX (repeated slashes, ``.`` parts and a
    trailing slash dropped; ``..`` kept), without importing pathlib."""
    text = os.fspath(path)
    head = (
        "//" if text.startswith("//") and not text.startswith("///") else "/" * text[:1].count("/")
    )
    return head + "/".join(part for part in text.split("/") if part and part != ".") or "."


def resolve_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """The data directory for an environment (default: ``os.environ``).

    Raises:
        EngramError ``store.relative_data_dir`` when ``ENGRAM_DATA_DIR`` is not absolute.
    """
    from pathlib import Path

    return Path(data_dir_of(env))


def data_dir_of(env: Mapping[str, str] | None = None) -> str:
    """:func:`resolve_data_dir` as a plain string (same checks, same errors)."""
    env = os.environ if env is None else env
    raw = env.get("ENGRAM_DATA_DIR", "")
    if raw.strip():
        path = plain_path(raw.strip())
        if not os.path.isabs(path):
            raise EngramError(
                "store.relative_data_dir",
                f"ENGRAM_DATA_DIR must be an absolute path, got {raw.strip()!r}",
                "set ENGRAM_DATA_DIR to an absolute path (or unset it to use ~/.engram)",
            )
        if _is_root(path):
            # Engram would write its database next to the system's folders and make / private.
            raise EngramError(
                "store.bad_data_dir",
                f"ENGRAM_DATA_DIR={raw.strip()!r} names the root of the filesystem",
                "set ENGRAM_DATA_DIR to a folder of its own (or unset it to use ~/.engram)",
            )
        return path
    home = env.get("HOME", "").strip() or env.get("USERPROFILE", "").strip()
    return os.path.join(plain_path(home or _home()), ".engram")


def _home() -> str:
    """``Path.home()``: the home directory of the user running Engram."""
    return os.path.expanduser("~")


def _unescape_mount_path(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as octal (``\\040``)."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 4 <= len(field) and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def filesystem_type(path: PathText, mountinfo: PathText = DEFAULT_MOUNTINFO) -> str | None:
    """The fstype of the mount holding ``path`` (longest mount-point prefix), or None if unknown."""
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    target = _existing_ancestor(path)
    best: tuple[int, str] | None = None
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or not tail:
            continue
        mount_point = _unescape_mount_path(fields[4])
        if _is_within(target, mount_point) and (best is None or len(mount_point) > best[0]):
            best = (len(mount_point), tail[0])
    return best[1] if best else None


def _existing_ancestor(path: PathText) -> str:
    """The resolved path of ``path`` or of its nearest existing ancestor."""
    probe = plain_path(path)
    while not _exists(probe) and _parent(probe) != probe:
        probe = _parent(probe)
    return os.path.realpath(probe)


def _parent(path: str) -> str:
    """``Path(path).parent`` for a :func:`plain_path` string."""
    return os.path.dirname(path) or "."


def _exists(path: str) -> bool:
    try:
        os.stat(path)
    except (OSError, ValueError):  # inside a folder we may not enter: ensure_data_dir says so
        return False
    return True


def _is_within(target: str, mount_point: str) -> bool:
    if mount_point == "/":
        return True
    return target == mount_point or target.startswith(mount_point.rstrip("/") + "/")


def check_local_filesystem(path: PathText, mountinfo: PathText = DEFAULT_MOUNTINFO) -> None:
    """Refuse a data dir on NFS or SMB/CIFS before any database file is touched.

    An unknown filesystem (no mountinfo, unrecognised type) is allowed.

    Raises:
        EngramError ``store.network_filesystem``.
    """
    path = plain_path(path)
    fstype = filesystem_type(path, mountinfo)
    if fstype is None:
        return
    base = fstype.split(".")[-1] if fstype.startswith("fuse.") else fstype
    if base.lower() in NETWORK_FS_TYPES:
        raise EngramError(
            "store.network_filesystem",
            f"the data directory {path} is on a network filesystem ({fstype}); "
            "SQLite WAL is unsafe there",
            _NETWORK_REMEDY,
            data_dir=str(path),
            fstype=fstype,
        )


def ensure_data_dir(
    path: PathText, mountinfo: PathText = DEFAULT_MOUNTINFO, *, create: bool = True
) -> str:
    """Check ``path`` is a safe local data dir, create it 0700 if missing (unless ``create`` is
    False), and return the database file path (a :func:`plain_path` string).

    Raises:
        EngramError: ``store.network_filesystem``, ``store.bad_data_dir``,
            ``store.unsafe_data_dir`` (world-writable, another user's, or a symlinked database).
    """
    path = plain_path(path)
    check_local_filesystem(path, mountinfo)
    try:
        exists, is_dir = _reach(path)
    except OSError as exc:
        raise EngramError(
            "store.bad_data_dir",
            f"cannot reach the data directory {path}: {(exc.strerror or str(exc)).lower()}",
            "set ENGRAM_DATA_DIR to a folder you can read and write",
        ) from None
    if not exists:
        if not create:
            return os.path.join(path, DB_FILENAME)
        _make_private_dir(path)
    elif not is_dir:
        raise EngramError(
            "store.bad_data_dir",
            f"the data directory {path} exists but is not a directory",
            "remove it or set ENGRAM_DATA_DIR to another absolute path",
        )
    check_private(path)
    return os.path.join(path, DB_FILENAME)


def _reach(path: str) -> tuple[bool, bool]:
    """``(path.exists(), path.is_dir())`` as pathlib answers them: a missing or unreachable
    path (ENOENT, ENOTDIR, ELOOP...) does not exist; any other failure (EACCES) raises."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno in _MISSING:
            return False, False
        raise
    except ValueError:
        return False, False
    return True, (info.st_mode & 0o170000) == 0o040000


_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})  # pathlib's list


def _make_private_dir(path: str) -> None:
    try:
        os.makedirs(path, mode=0o700)
    except FileExistsError:
        pass  # another process created it between the check and mkdir
    except OSError as exc:
        raise EngramError(
            "store.bad_data_dir",
            f"cannot create the data directory {path}: {exc.strerror}",
            "set ENGRAM_DATA_DIR to a writable absolute path",
        ) from exc
    os.chmod(path, 0o700)


def write_private_file(path: PathText, text: str) -> None:
    """Replace the file at ``path`` with ``text`` atomically: a temporary file beside it
    (0600, never through a symlink, one name per writing thread), then a rename; its folder is
    created 0700 when missing. Readers see the old file or the new one, never part of one.

    Raises:
        OSError: the folder or the file cannot be written (the temporary file is removed).
    """
    folder, name = os.path.split(plain_path(path))
    os.makedirs(folder, mode=0o700, exist_ok=True)
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.{_thread.get_ident()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, os.path.join(folder, name))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def check_private(path: PathText) -> None:
    """Refuse a data dir others could tamper with; tighten one of ours that others can read.

    Raises:
        EngramError: ``store.unsafe_data_dir``.
    """
    path = plain_path(path)
    info = os.stat(path)
    if info.st_uid != os.geteuid():
        raise _unsafe(path, f"it belongs to another user (uid {info.st_uid})")
    if info.st_mode & 0o002:
        raise _unsafe(path, "it is writable by every user on this machine")
    database = os.path.join(path, DB_FILENAME)
    if os.path.islink(database):
        raise _unsafe(path, f"{database} is a symlink (it could point at anyone's file)")
    if info.st_mode & 0o077 and _is_engram_folder(path):
        os.chmod(path, 0o700)
        sys.stderr.write(
            f"engram: made the data directory {path} private (mode 700; it was "
            f"{info.st_mode & 0o777:o})\n"
        )


def _is_root(path: str) -> bool:
    absolute = os.path.abspath(path)
    return os.path.dirname(absolute) == absolute


def _is_engram_folder(path: str) -> bool:
    """Only a folder that is Engram's alone is re-moded (never ``/`` or a home directory)."""
    if _is_root(path) or path == plain_path(_home()):
        return False
    if _exists(os.path.join(path, DB_FILENAME)) or os.path.basename(path) == ".engram":
        return True
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def _unsafe(path: str, why: str) -> EngramError:
    return EngramError(
        "store.unsafe_data_dir",
        f"refusing the data directory {path}: {why}",
        "use a directory only you own with mode 700 (chmod 700 it, or set ENGRAM_DATA_DIR)",
        data_dir=str(path),
    )
