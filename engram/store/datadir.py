"""Where the database lives, and whether it may live there.

``resolve_data_dir(env)`` picks the data directory: ``ENGRAM_DATA_DIR`` when it is set and not
blank (absolute paths only), else ``$HOME/.engram``. ``ensure_data_dir(path)`` refuses network
filesystems (NFS, SMB/CIFS) and creates the directory private to the user (0700).

Nothing here caches the home directory: tests and sandboxes change ``HOME`` per call.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from engram.errors import EngramError

DB_FILENAME = "engram.db"
DEFAULT_MOUNTINFO = Path("/proc/self/mountinfo")

# Filesystem types on which SQLite WAL locking is unsafe (mountinfo's fstype field).
NETWORK_FS_TYPES = frozenset(
    {"nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "smbfs", "ncpfs", "9p", "afs"}
)

_NETWORK_REMEDY = (
    "stop all Engram processes, copy engram.db, engram.db-wal and engram.db-shm together to a "
    "local disk, set ENGRAM_DATA_DIR to that absolute local path, then run `engram doctor` and "
    'sqlite3 "$ENGRAM_DATA_DIR/engram.db" "PRAGMA integrity_check;"'
)


def resolve_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """The data directory for an environment (default: ``os.environ``).

    Raises:
        EngramError ``store.relative_data_dir`` when ``ENGRAM_DATA_DIR`` is not absolute.
    """
    env = os.environ if env is None else env
    raw = env.get("ENGRAM_DATA_DIR", "")
    if raw.strip():
        path = Path(raw.strip())
        if not path.is_absolute():
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
    return (Path(home) if home else Path.home()) / ".engram"


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


def filesystem_type(path: Path, mountinfo: Path = DEFAULT_MOUNTINFO) -> str | None:
    """The fstype of the mount holding ``path`` (longest mount-point prefix), or None if unknown."""
    try:
        lines = mountinfo.read_text(encoding="utf-8", errors="replace").splitlines()
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


def _existing_ancestor(path: Path) -> str:
    """The resolved path of ``path`` or of its nearest existing ancestor."""
    probe = path
    while not _exists(probe) and probe.parent != probe:
        probe = probe.parent
    return str(probe.resolve())


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # inside a folder we may not enter: ensure_data_dir reports that
        return False


def _is_within(target: str, mount_point: str) -> bool:
    if mount_point == "/":
        return True
    return target == mount_point or target.startswith(mount_point.rstrip("/") + "/")


def check_local_filesystem(path: Path, mountinfo: Path = DEFAULT_MOUNTINFO) -> None:
    """Refuse a data dir on NFS or SMB/CIFS before any database file is touched.

    An unknown filesystem (no mountinfo, unrecognised type) is allowed.

    Raises:
        EngramError ``store.network_filesystem``.
    """
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
    path: Path, mountinfo: Path = DEFAULT_MOUNTINFO, *, create: bool = True
) -> Path:
    """Check ``path`` is a safe local data dir, create it 0700 if missing (unless ``create`` is
    False), and return the database file path.

    Raises:
        EngramError: ``store.network_filesystem``, ``store.bad_data_dir``,
            ``store.unsafe_data_dir`` (world-writable, another user's, or a symlinked database).
    """
    check_local_filesystem(path, mountinfo)
    try:
        exists, is_dir = path.exists(), path.is_dir()
    except OSError as exc:
        raise EngramError(
            "store.bad_data_dir",
            f"cannot reach the data directory {path}: {(exc.strerror or str(exc)).lower()}",
            "set ENGRAM_DATA_DIR to a folder you can read and write",
        ) from None
    if not exists:
        if not create:
            return path / DB_FILENAME
        _make_private_dir(path)
    elif not is_dir:
        raise EngramError(
            "store.bad_data_dir",
            f"the data directory {path} exists but is not a directory",
            "remove it or set ENGRAM_DATA_DIR to another absolute path",
        )
    check_private(path)
    return path / DB_FILENAME


def _make_private_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, mode=0o700)
    except FileExistsError:
        pass  # another process created it between the check and mkdir
    except OSError as exc:
        raise EngramError(
            "store.bad_data_dir",
            f"cannot create the data directory {path}: {exc.strerror}",
            "set ENGRAM_DATA_DIR to a writable absolute path",
        ) from exc
    os.chmod(path, 0o700)


def check_private(path: Path) -> None:
    """Refuse a data dir others could tamper with; tighten one of ours that others can read.

    Raises:
        EngramError: ``store.unsafe_data_dir``.
    """
    info = path.stat()
    if info.st_uid != os.geteuid():
        raise _unsafe(path, f"it belongs to another user (uid {info.st_uid})")
    if info.st_mode & 0o002:
        raise _unsafe(path, "it is writable by every user on this machine")
    database = path / DB_FILENAME
    if database.is_symlink():
        raise _unsafe(path, f"{database} is a symlink (it could point at anyone's file)")
    if info.st_mode & 0o077 and _is_engram_folder(path):
        os.chmod(path, 0o700)
        sys.stderr.write(
            f"engram: made the data directory {path} private (mode 700; it was "
            f"{info.st_mode & 0o777:o})\n"
        )


def _is_root(path: Path) -> bool:
    return Path(os.path.abspath(path)) == Path(os.path.abspath(path)).parent


def _is_engram_folder(path: Path) -> bool:
    """Only a folder that is Engram's alone is re-moded (never ``/`` or a home directory)."""
    if _is_root(path) or path == Path.home():
        return False
    if (path / DB_FILENAME).exists() or path.name == ".engram":
        return True
    try:
        return not any(path.iterdir())
    except OSError:
        return False


def _unsafe(path: Path, why: str) -> EngramError:
    return EngramError(
        "store.unsafe_data_dir",
        f"refusing the data directory {path}: {why}",
        "use a directory only you own with mode 700 (chmod 700 it, or set ENGRAM_DATA_DIR)",
        data_dir=str(path),
    )
