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
subprocess, imports only ``json``/``os``/``re``.
"""

from __future__ import annotations

import json
import os
import re

from engram.errors import EngramError
from engram.memory import git_repo
from engram.store.datadir import plain_path, write_private_file

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from engram.memory.project import ProjectDetection
    from engram.store.db import Store

BINDINGS_FILE = "project-bindings.json"
CHOSEN_SOURCES = frozenset({"explicit", "process_override", "all_projects"})
# Compiled on first use (re caches them): the hook path rarely needs them.
_SCP_LIKE = r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$"
_URL = r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?([^/:]+)(?::\d+)?(/.*)?$"


def normalize_remote(url: str) -> str:
    """A remote URL without scheme, user, password, port or ``.git``: ``host/owner/repo``.

    ``git@GitHub.com:Team/API.git`` and ``https://tok@github.com/team/api`` are the same
    origin. A local path remote stays a path.
    """
    text = url.strip().rstrip("/")
    if text.endswith(".git"):
        text = text[: -len(".git")]
    found = re.match(_URL, text, re.IGNORECASE)
    if found and not text.lower().startswith("file:"):
        host, path = found.group(1), found.group(2) or ""
    else:
        scp = re.match(_SCP_LIKE, text)
        if scp is None or text.startswith(("/", ".", "file:")):
            return "path:" + text.removeprefix("file://")
        host, path = scp.group(1), "/" + scp.group(2)
    path = re.sub(r"/+", "/", path).strip("/")
    return f"remote:{host.lower()}/{path.lower()}"


def origin_of(detection: ProjectDetection) -> str:
    """Where a detected project's claim comes from: its repository's remote, else its folder —
    with ``<private>`` spans redacted, like every path Engram stores (both sides of a check go
    through here, so redaction never changes a verdict)."""
    from engram.memory.redaction import redact

    start = plain_path(detection.path or detection.cwd or ".")
    repo = git_repo.find_git_repo(start)
    if repo is not None:
        url = git_repo.origin_url(repo)
        return redact(normalize_remote(url) if url else f"path:{repo.root}")
    return redact(f"path:{start}")


def load_bindings(data_dir: str | os.PathLike[str]) -> dict[str, list[str]]:
    """``{project: [origin, ...]}`` from the data dir ({} when there is no file yet)."""
    path = os.path.join(plain_path(data_dir), BINDINGS_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            raw = json.loads(handle.read())
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
    write_private_file(path, json.dumps(payload, indent=2, sort_keys=True) + "\n")


def is_trusted(store: Store, data_dir: str | os.PathLike[str], detection: ProjectDetection) -> bool:
    """Whether memories of ``detection.project`` may flow into (and from) where it was
    detected; binds the origin on first use (see the module docstring)."""
    if detection.source in CHOSEN_SOURCES or not detection.project:
        return True
    origin = origin_of(detection)
    bound = load_bindings(data_dir).get(detection.project)
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
