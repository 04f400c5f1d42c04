"""Reading a repository for citations: HEAD from disk, blob ids, and where a missing file went.

Everything a warm check needs (:func:`head_commit`, :func:`file_identity`) reads files and
spawns nothing. :func:`whereabouts` runs ``git`` — only on a cold check of a cited file that is
gone from the working tree — to follow git's rename detection from the recorded commit.

On the hook path: ``os`` only (``hashlib`` and ``subprocess`` are imported where used).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from engram.memory.git_repo import GitRepo

# Files above this size are not read (no blob id, no symbol scan): they are not cited.
MAX_FILE_BYTES = 1024 * 1024
GIT_TIMEOUT_S = 10


def head_commit(repo: GitRepo) -> str:
    """The commit HEAD names ("" on an unborn branch or an unreadable HEAD), read from disk.

    Only a hex object id comes back: the value is later an argument to ``git``, and a
    repository's files must never smuggle an option into it."""
    try:
        with open(os.path.join(repo.git_dir, "HEAD"), encoding="utf-8") as handle:
            head = handle.read(256).strip()
    except (OSError, UnicodeDecodeError):
        return ""
    commit = _ref_commit(repo, head[4:].strip()) if head.startswith("ref:") else head
    return commit if is_object_id(commit) else ""


def is_object_id(value: str) -> bool:
    """Whether ``value`` is a full SHA-1 or SHA-256 object id (lower-case hex)."""
    return len(value) in (40, 64) and all(c in "0123456789abcdef" for c in value)


def _ref_commit(repo: GitRepo, ref: str) -> str:
    if not ref.startswith("refs/") or ".." in ref:
        return ""
    for folder in (repo.git_dir, repo.common_dir):
        try:
            with open(os.path.join(folder, ref), encoding="utf-8") as handle:
                return handle.read(128).strip()
        except (OSError, UnicodeDecodeError):
            continue
    try:
        with open(os.path.join(repo.common_dir, "packed-refs"), encoding="utf-8") as handle:
            for line in handle:
                commit, _, name = line.strip().partition(" ")
                if name == ref:
                    return commit
    except (OSError, UnicodeDecodeError):
        pass
    return ""


def file_identity(root: str, path: str) -> str | None:
    """``"<mtime_ns>:<size>"`` of the regular file ``path`` under ``root``, or None if none."""
    try:
        info = os.stat(os.path.join(root, path))
    except (OSError, ValueError):
        return None
    if (info.st_mode & 0o170000) != 0o100000:  # S_ISREG without importing stat
        return None
    return f"{info.st_mtime_ns}:{info.st_size}"


def read_file(root: str, path: str) -> bytes | None:
    """The bytes of ``path`` under ``root`` (None: missing, unreadable or too big)."""
    try:
        with open(os.path.join(root, path), "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_FILE_BYTES else None


def blob_id(data: bytes) -> str:
    """Git's blob id of ``data`` (what ``git hash-object`` prints for an unfiltered file)."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def inside(root: str, path: str) -> str | None:
    """``path`` as a normalised repository-relative path if it names a regular file inside
    ``root`` (no ``..`` escape, no symlink out, nothing under ``.git``), else None."""
    if not path or path.startswith(("/", "~", "\\")) or "\\" in path or "\0" in path:
        return None
    relative = os.path.normpath(path)
    first = relative.split(os.sep, 1)[0]
    if relative.startswith("..") or first == ".git" or relative == ".":
        return None
    full = os.path.join(root, relative)
    real = os.path.realpath(full)
    if not real.startswith(os.path.realpath(root) + os.sep) or not os.path.isfile(real):
        return None
    return relative.replace(os.sep, "/")


def whereabouts(
    root: str, commit: str, path: str, memo: dict[tuple[str, ...], dict[str, str]] | None = None
) -> tuple[str | None, str]:
    """Where the missing file ``path`` went since ``commit``: ``(new_path, "")`` when git's
    rename detection follows it (committed since ``commit``, or staged), else
    ``(None, deleted_in)`` with the short id of the commit that deleted it ("" when the
    deletion is not committed, or git cannot tell).

    Only tree and index comparisons run: nothing reads the working tree through git, so no
    filter or fsmonitor a repository configures is ever started. ``memo`` keeps each
    comparison's renames for the caller's other missing files (one check of many memories)."""
    commit = commit if is_object_id(commit) else ""
    memo = {} if memo is None else memo
    where = path
    if commit:
        where = _renames(root, memo, commit, "HEAD").get(where, where)
    where = _renames(root, memo, "--cached", "HEAD").get(where, where)
    if where != path and inside(root, where) is not None:
        return where, ""
    since = f"{commit}..HEAD" if commit else "HEAD"
    out = _git(root, "log", "-1", "--format=%h", "--diff-filter=D", since, "--", path)
    return None, (out or "").strip()


def _renames(
    root: str, memo: dict[tuple[str, ...], dict[str, str]], *between: str
) -> dict[str, str]:
    """Old path -> new path for every rename git's detection finds between two trees (or
    HEAD and the index, with ``--cached``)."""
    key = (root, *between)
    if key not in memo:
        out = _git(
            root,
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--name-status",
            "-M",
            "--diff-filter=R",
            "-z",
            *between,
            "--",
        )
        fields = (out or "").split("\0")
        memo[key] = {
            fields[i + 1]: fields[i + 2]
            for i in range(0, len(fields) - 2, 3)
            if fields[i].startswith("R")
        }
    return memo[key]


def _git(root: str, *args: str) -> str | None:
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", root, "-c", "core.quotepath=off", "-c", "core.fsmonitor=false", *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
