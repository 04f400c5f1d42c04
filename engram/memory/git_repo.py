"""Git metadata read straight from disk: the repository root, its origin remote, its binding.

Project detection runs on every hook and tool call, so nothing here spawns ``git``: it walks up
to the nearest ``.git`` entry, follows ``gitdir:`` / ``commondir`` files for linked worktrees and
submodules, and parses the shared ``config`` file for ``[remote "origin"]``.

Paths are plain strings (``os.path``, spelled as ``str(Path(...))`` would spell them): detection
runs on the hook path, and ``pathlib`` costs a hook more than its work.

The *binding* is a small private file in the repository's shared git dir that remembers the
first project label Engram gave this clone, so renaming the remote, adding a linked worktree or
moving the checkout keeps the same project. It is never tracked; each clone makes its own.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from engram import lean_json
from engram.errors import EngramError
from engram.store.datadir import plain_path
from engram.store.records import record

BINDING_FILE = "engram-project.json"
BINDING_FORMAT = 1

# A section header's name: ``[remote "origin"]``, ``[core]``, ``[remote.origin]``.
_SECTION_NAME = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")


@record
class GitRepo:
    """A git working tree found on disk.

    Args:
        root: the working-tree root (the folder holding ``.git``).
        git_dir: this worktree's git dir (``.git`` or ``.git/worktrees/<name>``).
        common_dir: the git dir shared by every linked worktree (holds ``config``).
    """

    root: str
    git_dir: str
    common_dir: str


# What detection reads (a git config, a pointer file, a project config) is a few KiB; a bound
# keeps a hostile folder from making a hook or the server read without end.
MAX_READ_BYTES = 1 << 20
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class DiskReads:
    """How detection looks at the disk. This one just looks;
    :class:`engram.memory.detection_cache.StampedReads` also notes the stamp of every path it
    looks at, so a remembered detection can tell when one of them changed."""

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory (following symlinks)."""
        return os.path.isdir(path)

    def is_file(self, path: str) -> bool:
        """Whether ``path`` is a regular file (following symlinks)."""
        return os.path.isfile(path)

    def read_text(self, path: str, errors: str = "strict") -> str:
        """The UTF-8 text of the regular file ``path``, at most :data:`MAX_READ_BYTES`.

        A folder may come from anyone (an unpacked archive can hold a ``.git`` whose ``config``
        is a symlink to ``/dev/zero`` or a FIFO): such a file is refused, never read or waited on.

        Raises:
            OSError: what ``open`` raises; ``EINVAL`` for a file that is not a regular file,
                ``EFBIG`` for one above the bound.
            UnicodeDecodeError: text that is not UTF-8 (with ``errors="strict"``).
        """
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)  # a FIFO never blocks the open
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file", path)
            data = handle.read(MAX_READ_BYTES + 1)
        if len(data) > MAX_READ_BYTES:
            raise OSError(errno.EFBIG, f"larger than {MAX_READ_BYTES:,} bytes", path)
        return data.decode("utf-8", errors)

    def resolve(self, path: str) -> str:
        """``path`` with its symlinks resolved (:func:`os.path.realpath`)."""
        return os.path.realpath(path)


PLAIN = DiskReads()


def find_git_repo(start: str | os.PathLike[str], reads: DiskReads = PLAIN) -> GitRepo | None:
    """The git working tree enclosing ``start`` (inclusive), or None outside any repository."""
    folder = plain_path(start)
    while True:
        repo = git_repo_at(folder, reads)
        if repo is not None:
            return repo
        parent = os.path.dirname(folder) or "."  # Path.parent
        if parent == folder:
            return None
        folder = parent


def git_repo_at(folder: str | os.PathLike[str], reads: DiskReads = PLAIN) -> GitRepo | None:
    """The repository whose working-tree root is exactly ``folder``, or None."""
    root = plain_path(folder)
    dot_git = os.path.join(root, ".git")
    try:
        if reads.is_dir(dot_git):
            return GitRepo(root, dot_git, _common_dir(dot_git, reads))
        if reads.is_file(dot_git):
            git_dir = _gitdir_from_file(dot_git, reads)
            if git_dir is not None and reads.is_dir(git_dir):
                return GitRepo(root, git_dir, _common_dir(git_dir, reads))
    except OSError:
        return None
    return None


def _beside(folder: str, target: str, reads: DiskReads) -> str:
    """``target`` as written in a git pointer file: absolute, or relative to ``folder``."""
    target = plain_path(target)
    return target if os.path.isabs(target) else reads.resolve(os.path.join(folder, target))


def _gitdir_from_file(dot_git: str, reads: DiskReads) -> str | None:
    """Follow a ``gitdir: <path>`` file (linked worktrees, submodules)."""
    text = reads.read_text(dot_git, "replace").strip()
    if not text.startswith("gitdir:"):
        return None
    return _beside(os.path.dirname(dot_git), text[len("gitdir:") :].strip(), reads)


def _common_dir(git_dir: str, reads: DiskReads) -> str:
    """A linked worktree's git dir names the shared one in its ``commondir`` file."""
    pointer = os.path.join(git_dir, "commondir")
    if not reads.is_file(pointer):
        return git_dir
    return _beside(git_dir, reads.read_text(pointer, "replace").strip(), reads)


def origin_url(repo: GitRepo, reads: DiskReads = PLAIN) -> str | None:
    """The ``url`` of ``[remote "origin"]`` in the shared git config, or None."""
    try:
        text = reads.read_text(os.path.join(repo.common_dir, "config"), "replace")
    except OSError:
        return None
    in_origin = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        header = section_header(line)
        if header:
            section, subsection, end = header
            in_origin = _is_origin_section(section, subsection)
            line = line[end:].strip()
            if not line:
                continue
        if in_origin and "=" in line:
            key, _, value = line.partition("=")
            if key.strip().lower() == "url":
                return _config_value(value)
    return None


def section_header(line: str) -> tuple[str, str | None, int] | None:
    """The ``[section "subsection"]`` header that starts ``line``: its section, its raw
    subsection (None without one) and where the header ends; None when ``line`` starts none.

    A string scan (the hook path imports no ``re``) that accepts exactly what
    ``^\\[\\s*([A-Za-z0-9.-]+)(?:\\s+"((?:[^"\\\\]|\\\\.)*)")?\\s*\\]`` matches."""
    if not line.startswith("["):
        return None
    start = _skip_space(line, 1)
    end = start
    while end < len(line) and line[end] in _SECTION_NAME:
        end += 1
    if end == start:
        return None
    quoted = _subsection(line, end)
    if quoted is not None:
        close = _skip_space(line, quoted[1])
        if line[close : close + 1] == "]":
            return line[start:end], quoted[0], close + 1
    close = _skip_space(line, end)
    if line[close : close + 1] == "]":
        return line[start:end], None, close + 1
    return None


def _skip_space(line: str, at: int) -> int:
    while at < len(line) and line[at].isspace():  # re's \s is str.isspace()
        at += 1
    return at


def _subsection(line: str, at: int) -> tuple[str, int] | None:
    """Whitespace then a double-quoted subsection (backslash escapes kept raw) at ``at``:
    its text and the index after its closing quote."""
    opening = _skip_space(line, at)
    if opening == at or line[opening : opening + 1] != '"':
        return None
    at = opening + 1
    while at < len(line):
        char = line[at]
        if char == '"':
            return line[opening + 1 : at], at + 1
        if char == "\\":
            if line[at + 1 : at + 2] in ("", "\n"):  # an escape takes one more character
                return None
            at += 1
        at += 1
    return None


def _is_origin_section(section: str, subsection: str | None) -> bool:
    if subsection is not None:
        return section.lower() == "remote" and subsection == "origin"
    # Legacy ``[remote.origin]`` spelling: the subsection is lower-cased by git.
    return section.lower() == "remote.origin"


def _config_value(value: str) -> str:
    """A git config value without surrounding quotes or a trailing comment."""
    value = value.strip()
    if value.startswith('"'):
        end = value.find('"', 1)
        return value[1:end] if end > 0 else value[1:]
    for marker in (" #", " ;", "\t#", "\t;"):
        cut = value.find(marker)
        if cut >= 0:
            value = value[:cut]
    return value.strip()


def repo_name_from_url(url: str) -> str:
    """The repository name in a remote URL: ``git@host:team/api.git`` -> ``api``."""
    trimmed = url.strip().rstrip("/")
    if trimmed.endswith(".git"):
        trimmed = trimmed[: -len(".git")]
    return trimmed[max(trimmed.rfind("/"), trimmed.rfind(":"), trimmed.rfind("\\")) + 1 :]


def read_binding(repo: GitRepo, reads: DiskReads = PLAIN) -> str | None:
    """The label bound to this clone, or None when no binding exists yet.

    Raises:
        EngramError: ``project.binding_unavailable`` when the binding exists but is unreadable
            or corrupt (detection fails closed rather than guessing a name).
    """
    path = os.path.join(repo.common_dir, BINDING_FILE)
    try:
        text = reads.read_text(path)
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise _binding_error(path, "it is not UTF-8 text") from exc
    except OSError as exc:
        raise _binding_error(path, f"cannot read it ({exc.strerror})") from exc
    try:
        data = lean_json.loads(text)
    except (ValueError, RecursionError) as exc:  # also a 4,300-digit number, deep nesting
        raise _binding_error(path, "it is not valid JSON") from exc
    label = data.get("label") if isinstance(data, dict) else None
    if not isinstance(label, str) or not label.strip():
        raise _binding_error(path, "it has no project label")
    return label


def write_binding(repo: GitRepo, label: str) -> None:
    """Create this clone's binding (private to the user), atomically; never overwrite one."""
    path = os.path.join(repo.common_dir, BINDING_FILE)
    import secrets  # only when writing a binding: keeps hashlib/random off the hook path

    payload = {"format": BINDING_FORMAT, "id": secrets.token_hex(16), "label": label}
    temp = os.path.join(repo.common_dir, f".{BINDING_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(lean_json.dumps(payload))
            handle.write("\n")
        # link() refuses to replace: when two processes race, the first binding wins.
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    except OSError as exc:
        raise _binding_error(path, f"cannot write it ({exc.strerror})") from exc
    finally:
        with contextlib.suppress(OSError):  # the folder may be a file: there is no temp
            os.unlink(temp)


def _binding_error(path: str, why: str) -> EngramError:
    return EngramError(
        "project.binding_unavailable",
        f"the repository's Engram binding {path} is unusable: {why}",
        "run `engram init <project>` in the repository to name the project explicitly",
        path=str(path),
    )
