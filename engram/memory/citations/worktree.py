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
MAX_FILE_BYTES = 4 * 1024 * 1024
GIT_TIMEOUT_S = 10


def head_commit(repo: GitRepo) -> str:
    """The commit HEAD names ("" on an unborn branch or an unreadable HEAD), read from disk."""
    try:
        with open(os.path.join(repo.git_dir, "HEAD"), encoding="utf-8") as handle:
            head = handle.read().strip()
    except OSError:
        return ""
    if not head.startswith("ref:"):
        return head
    return _ref_commit(repo, head[4:].strip())


def _ref_commit(repo: GitRepo, ref: str) -> str:
    for folder in (repo.git_dir, repo.common_dir):
        try:
            with open(os.path.join(folder, ref), encoding="utf-8") as handle:
                return handle.read().strip()
        except OSError:
            continue
    try:
        with open(os.path.join(repo.common_dir, "packed-refs"), encoding="utf-8") as handle:
            for line in handle:
                commit, _, name = line.strip().partition(" ")
                if name == ref:
                    return commit
    except OSError:
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


def whereabouts(root: str, commit: str, path: str) -> tuple[str | None, str]:
    """Where the missing file ``path`` went since ``commit``: ``(new_path, "")`` when git's
    rename detection follows it, else ``(None, deleted_in)`` with the short id of the commit
    that deleted it ("" when the deletion is not committed, or git cannot tell)."""
    if commit:
        renamed = _renamed_to(root, commit, path)
        if renamed is not None:
            return renamed, ""
    since = f"{commit}..HEAD" if commit else "HEAD"
    out = _git(root, "log", "-1", "--format=%h", "--diff-filter=D", since, "--", path)
    return None, (out or "").strip()


def _renamed_to(root: str, commit: str, path: str) -> str | None:
    out = _git(
        root, "diff", "--no-ext-diff", "--name-status", "-M", "--diff-filter=R", "-z", commit, "--"
    )
    if not out:
        return None
    fields = out.split("\0")
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index]
        if status.startswith(("R", "C")) and index + 2 < len(fields):
            old, new = fields[index + 1], fields[index + 2]
            if status.startswith("R") and old == path and inside(root, new) is not None:
                return new
            index += 3
        else:
            index += 2
    return None


def _git(root: str, *args: str) -> str | None:
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", root, "-c", "core.quotepath=off", *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
