"""Git metadata read straight from disk: the repository root, its origin remote, its binding.

Project detection runs on every hook and tool call, so nothing here spawns ``git``: it walks up
to the nearest ``.git`` entry, follows ``gitdir:`` / ``commondir`` files for linked worktrees and
submodules, and parses the shared ``config`` file for ``[remote "origin"]``.

The *binding* is a small private file in the repository's shared git dir that remembers the
first project label Engram gave this clone, so renaming the remote, adding a linked worktree or
moving the checkout keeps the same project. It is never tracked; each clone makes its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import re

from engram.errors import EngramError
from engram.store.records import record

TYPE_CHECKING = False  # the hook path imports this module, and pathlib costs it more than its work
if TYPE_CHECKING:
    from pathlib import Path

BINDING_FILE = "engram-project.json"
BINDING_FORMAT = 1

_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')


@record
class GitRepo:
    """A git working tree found on disk.

    Args:
        root: the working-tree root (the folder holding ``.git``).
        git_dir: this worktree's git dir (``.git`` or ``.git/worktrees/<name>``).
        common_dir: the git dir shared by every linked worktree (holds ``config``).
    """

    root: Path
    git_dir: Path
    common_dir: Path


def find_git_repo(start: Path) -> GitRepo | None:
    """The git working tree enclosing ``start`` (inclusive), or None outside any repository."""
    for folder in (start, *start.parents):
        repo = git_repo_at(folder)
        if repo is not None:
            return repo
    return None


def git_repo_at(folder: Path) -> GitRepo | None:
    """The repository whose working-tree root is exactly ``folder``, or None."""
    dot_git = folder / ".git"
    try:
        if dot_git.is_dir():
            return GitRepo(folder, dot_git, _common_dir(dot_git))
        if dot_git.is_file():
            git_dir = _gitdir_from_file(dot_git)
            if git_dir is not None and git_dir.is_dir():
                return GitRepo(folder, git_dir, _common_dir(git_dir))
    except OSError:
        return None
    return None


def _gitdir_from_file(dot_git: Path) -> Path | None:
    """Follow a ``gitdir: <path>`` file (linked worktrees, submodules)."""
    text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    if not text.startswith("gitdir:"):
        return None
    target = type(dot_git)(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else (dot_git.parent / target).resolve()


def _common_dir(git_dir: Path) -> Path:
    """A linked worktree's git dir names the shared one in its ``commondir`` file."""
    pointer = git_dir / "commondir"
    if not pointer.is_file():
        return git_dir
    target = type(git_dir)(pointer.read_text(encoding="utf-8", errors="replace").strip())
    return target if target.is_absolute() else (git_dir / target).resolve()


def origin_url(repo: GitRepo) -> str | None:
    """The ``url`` of ``[remote "origin"]`` in the shared git config, or None."""
    try:
        text = (repo.common_dir / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    in_origin = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        header = _SECTION.match(line)
        if header:
            in_origin = _is_origin_section(header.group(1), header.group(2))
            line = line[header.end() :].strip()
            if not line:
                continue
        if in_origin and "=" in line:
            key, _, value = line.partition("=")
            if key.strip().lower() == "url":
                return _config_value(value)
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
    last = re.split(r"[/:\\]", trimmed)[-1]
    return last


def read_binding(repo: GitRepo) -> str | None:
    """The label bound to this clone, or None when no binding exists yet.

    Raises:
        EngramError: ``project.binding_unavailable`` when the binding exists but is unreadable
            or corrupt (detection fails closed rather than guessing a name).
    """
    path = repo.common_dir / BINDING_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise _binding_error(path, "it is not UTF-8 text") from exc
    except OSError as exc:
        raise _binding_error(path, f"cannot read it ({exc.strerror})") from exc
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # also a 4,300-digit number, deep nesting
        raise _binding_error(path, "it is not valid JSON") from exc
    label = data.get("label") if isinstance(data, dict) else None
    if not isinstance(label, str) or not label.strip():
        raise _binding_error(path, "it has no project label")
    return label


def write_binding(repo: GitRepo, label: str) -> None:
    """Create this clone's binding (private to the user), atomically; never overwrite one."""
    path = repo.common_dir / BINDING_FILE
    import secrets  # only when writing a binding: keeps hashlib/random off the hook path

    payload = {"format": BINDING_FORMAT, "id": secrets.token_hex(16), "label": label}
    temp = path.with_name(f".{BINDING_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle)
            handle.write("\n")
        # link() refuses to replace: when two processes race, the first binding wins.
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    except OSError as exc:
        raise _binding_error(path, f"cannot write it ({exc.strerror})") from exc
    finally:
        with contextlib.suppress(OSError):  # the folder may be a file: there is no temp
            temp.unlink(missing_ok=True)


def _binding_error(path: Path, why: str) -> EngramError:
    return EngramError(
        "project.binding_unavailable",
        f"the repository's Engram binding {path} is unusable: {why}",
        "run `engram init <project>` in the repository to name the project explicitly",
        path=str(path),
    )
