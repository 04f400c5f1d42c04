"""Which repositories may use a project's memories: each project is bound to its origins.

A repository names its project (``.engram/config.json``) or has it detected (remote name,
folder name), so an untrusted clone can claim ``payments`` — by config, or by being
``github.com/attacker/payments``. Engram therefore remembers, per project, the *origins* it
was used from: a normalized remote URL (``remote:github.com/team/payments``) or, without a
remote, the folder (``path:/home/me/payments``). A detected project whose origin is not bound
gets no memories injected and none written until the user runs ``engram init --confirm`` in
it once.

- A project nobody has used yet is bound to the first origin that uses it.
- A project that already has memories but no binding (made before bindings existed) is bound
  to an origin its own sessions were started in (to the first origin that uses it when no
  session recorded a folder).
- A project named explicitly (``--project``, ``ENGRAM_PROJECT``, ``engram mcp --project``) is
  the user's choice and is not checked.

Bindings live in ``<data dir>/project-bindings.json`` (0600). On the hook path: no git
subprocess, imports only :mod:`engram.lean_json` and ``os``.
"""

from __future__ import annotations

import os

from engram import lean_json
from engram.errors import EngramError
from engram.memory import git_repo
from engram.store.datadir import plain_path, write_private_file

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from engram.memory.project import ProjectDetection
    from engram.store.db import Store

BINDINGS_FILE = "project-bindings.json"
CHOSEN_SOURCES = frozenset({"explicit", "process_override", "all_projects"})
# What a remote URL's parts are, as regular expressions. The hook path reads an ASCII remote
# with string scans that accept exactly these (tests/memory/test_string_scans.py) and imports
# ``re`` only for any other text (IGNORECASE and ``\d`` mean more there).
_SCP_LIKE = r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$"
_URL = r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?([^/:]+)(?::\d+)?(/.*)?$"
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")


def normalize_remote(url: str) -> str:
    """A remote URL without scheme, user, password, port or ``.git``: ``host/owner/repo``.

    ``git@GitHub.com:Team/API.git`` and ``https://tok@github.com/team/api`` are the same
    origin. A local path remote stays a path.
    """
    text = url.strip().rstrip("/")
    if text.endswith(".git"):
        text = text[: -len(".git")]
    plain = text.isascii() and "\n" not in text
    found = url_parts(text) if plain else _match(_URL, text, ignore_case=True)
    if found and not text.lower().startswith("file:"):
        host, path = found[0], found[1] or ""
    else:
        scp = scp_parts(text) if plain else _match(_SCP_LIKE, text, ignore_case=False)
        if scp is None or text.startswith(("/", ".", "file:")):
            return "path:" + text.removeprefix("file://")
        host, path = scp[0], "/" + (scp[1] or "")
    while "//" in path:  # runs of slashes are one
        path = path.replace("//", "/")
    return f"remote:{host.lower()}/{path.strip('/').lower()}"


def _match(pattern: str, text: str, *, ignore_case: bool) -> tuple[str, str | None] | None:
    import re

    found = re.match(pattern, text, re.IGNORECASE if ignore_case else 0)
    return (found.group(1), found.group(2)) if found else None


def url_parts(text: str) -> tuple[str, str | None] | None:
    """Host and path (None when absent) of ``scheme://[user@]host[:port][/path]``: what
    ``_URL`` (case-insensitive) gives for ASCII text without a line break, else None."""
    at = 1
    while at < len(text) and text[at].lower() in _SCHEME_CHARS:
        at += 1
    if not (text[:1].isascii() and text[:1].isalpha()) or not text.startswith("://", at):
        return None
    rest = text[at + 3 :]
    user_end = min((i for i in (rest.find("@"), rest.find("/")) if i >= 0), default=-1)
    if user_end >= 0 and rest[user_end] == "@":
        found = _host_port_path(rest[user_end + 1 :])
        if found is not None:
            return found
    return _host_port_path(rest)


def _host_port_path(text: str) -> tuple[str, str | None] | None:
    host_end = _first_of(text, ":/")
    if host_end == 0:
        return None
    at = host_end
    if text[at : at + 1] == ":":
        digits = at + 1
        while digits < len(text) and text[digits] in "0123456789":
            digits += 1
        if digits == at + 1:
            return None
        at = digits
    if at < len(text) and text[at] != "/":
        return None
    return text[:host_end], (text[at:] if at < len(text) else None)


def scp_parts(text: str) -> tuple[str, str] | None:
    """Host and path of ``[user@]host:path`` (the path not starting ``//``): what
    ``_SCP_LIKE`` gives for ASCII text without a line break, else None."""
    user_end = _first_of(text, "@/")
    if 0 < user_end < len(text) and text[user_end] == "@":
        found = _host_path(text[user_end + 1 :])
        if found is not None:
            return found
    return _host_path(text)


def _host_path(text: str) -> tuple[str, str] | None:
    host_end = _first_of(text, ":/")
    if host_end == 0 or text[host_end : host_end + 1] != ":":
        return None
    path = text[host_end + 1 :]
    return None if not path or path.startswith("//") else (text[:host_end], path)


def _first_of(text: str, chars: str) -> int:
    """The index of the first of ``chars`` in ``text`` (``len(text)`` when there is none)."""
    found = [i for i in (text.find(char) for char in chars) if i >= 0]
    return min(found, default=len(text))


def origin_of(detection: ProjectDetection, reads: git_repo.DiskReads = git_repo.PLAIN) -> str:
    """Where a detected project's claim comes from: its repository's remote, else its folder —
    with ``<private>`` spans redacted, like every path Engram stores (both sides of a check go
    through here, so redaction never changes a verdict)."""
    from engram.memory.redaction import redact

    start = plain_path(detection.path or detection.cwd or ".")
    repo = git_repo.find_git_repo(start, reads)
    if repo is not None:
        url = git_repo.origin_url(repo, reads)
        return redact(normalize_remote(url) if url else f"path:{repo.root}")
    return redact(f"path:{start}")


def load_bindings(data_dir: str | os.PathLike[str]) -> dict[str, list[str]]:
    """``{project: [origin, ...]}`` from the data dir ({} when there is no file yet)."""
    path = os.path.join(plain_path(data_dir), BINDINGS_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            raw = lean_json.loads(handle.read())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as exc:
        raise EngramError(
            "project.bindings_unreadable",
            f"cannot read {path}: {exc}",
            "fix or delete it (then confirm each repository with `engram init --confirm`)",
        ) from None
    projects = raw.get("projects") if isinstance(raw, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {
        str(name): [str(o) for o in origins]
        for name, origins in projects.items()
        if isinstance(origins, list)
    }


def bind(data_dir: str | os.PathLike[str], project: str, origin: str) -> None:
    """Add ``origin`` to ``project``'s bound origins (idempotent; written atomically, 0600)."""
    bindings = load_bindings(data_dir)
    origins = bindings.setdefault(project, [])
    if origin in origins:
        return
    origins.append(origin)
    payload: dict[str, Any] = {"version": 1, "projects": bindings}
    path = os.path.join(plain_path(data_dir), BINDINGS_FILE)
    import json  # indented for people: lean_json writes no indent

    write_private_file(path, json.dumps(payload, indent=2, sort_keys=True) + "\n")


def is_trusted(
    store: Store,
    data_dir: str | os.PathLike[str],
    detection: ProjectDetection,
    known: tuple[str, Mapping[str, list[str]]] | None = None,
) -> bool:
    """Whether memories of ``detection.project`` may flow into (and from) where it was
    detected; binds the origin on first use (see the module docstring).

    ``known`` is ``(origin_of(detection), load_bindings(data_dir))`` when the caller already
    has them (:mod:`engram.memory.detection_cache` remembers both)."""
    if detection.source in CHOSEN_SOURCES or not detection.project:
        return True
    origin, bindings = known or (origin_of(detection), load_bindings(data_dir))
    bound = bindings.get(detection.project)
    if bound is not None:
        return origin in bound
    if _unused(store, detection.project) or _own_session_origin(store, detection, origin):
        bind(data_dir, detection.project, origin)
        return True
    return False


def _unused(store: Store, project: str) -> bool:
    from engram.store.project_names import project_exists

    with store.locked() as conn:
        return not project_exists(conn, project)


def _own_session_origin(store: Store, detection: ProjectDetection, origin: str) -> bool:
    """A project from before bindings: trusted where its own sessions ran (or, when no
    session recorded a folder, wherever it is first used)."""
    from engram.store.project_names import session_directories

    with store.locked() as conn:
        folders = session_directories(conn, detection.project)
    if not folders:
        return True
    from pathlib import Path

    here = origin.removeprefix("path:") if origin.startswith("path:") else detection.path
    root = Path(here or detection.cwd)
    return any(Path(folder) == root or Path(folder).is_relative_to(root) for folder in folders)


def untrusted_error(detection: ProjectDetection) -> EngramError:
    """The refusal for a repository that claims a project it is not bound to."""
    return EngramError(
        "project.unconfirmed",
        f"this repository ({origin_of(detection)}) claims project {detection.project!r}, "
        "which is bound to other repositories; its memories were not used",
        "if this repository really is that project, run `engram init --confirm` in it once",
        project=detection.project,
    )


def confirm_here(data_dir: Path, cwd: Path, name: str | None = None) -> tuple[str, str]:
    """``engram init --confirm``: bind this folder's origin to its project (or ``name``).

    Returns ``(project, origin)``.
    """
    from engram.memory.project import detect_project, normalize_project_name, require_single

    detection = detect_project(cwd)
    project = normalize_project_name(name).name if name else require_single(detection)
    origin = origin_of(detection)
    bind(data_dir, project, origin)
    return project, origin
