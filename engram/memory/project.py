"""Project identity: which project a memory belongs to, and how its name is spelled.

Every surface (CLI, MCP tools, hooks) asks the same question the same way:

1. an explicit project named in the request wins;
2. then the process override (``engram mcp --project``, then ``ENGRAM_PROJECT``);
3. then detection from the working directory (:func:`detect_project`), in the seed's order:
   nearest ``.engram/config.json`` -> git remote -> git root -> single git child ->
   ambiguous -> directory basename.

Names are normalized (lowercase, trimmed, repeated ``-`` / ``_`` collapsed; ``-`` and ``_`` stay
distinct) and a warning says when normalizing changed what the caller typed.
"""

from __future__ import annotations

import os
import time
from collections import namedtuple

from engram import lean_json, project_names
from engram.errors import EngramError
from engram.memory import git_repo
from engram.memory.git_repo import PLAIN, DiskReads, GitRepo
from engram.store.datadir import plain_path
from engram.store.records import Record, record

TYPE_CHECKING = False  # typing and dataclasses cost the hook path more than its work
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path
    from typing import Any, NamedTuple

    from engram.store.db import Store

CONFIG_DIR = ".engram"
CONFIG_FILE = "config.json"
MAX_NAME_LENGTH = project_names.MAX_NAME_LENGTH

# Child scan limits from the seed: one level deep, a bounded number of entries and time.
CHILD_SCAN_MAX_ENTRIES = 20
CHILD_SCAN_SECONDS = 0.2
NOISE_DIRS = frozenset(
    {
        "node_modules",
        "vendor",
        ".venv",
        "__pycache__",
        "target",
        "dist",
        "build",
        ".idea",
        ".vscode",
    }
)


if TYPE_CHECKING:

    class ProjectName(NamedTuple):
        """A normalized project name and, when normalizing changed the input, a warning.

        A tuple, so callers may write ``name, warning = normalize_project_name(raw)``.
        """

        name: str
        warning: str | None = None

else:  # the same tuple, without importing typing
    ProjectName = namedtuple("ProjectName", ("name", "warning"), defaults=(None,))


@record
class ProjectDetection(Record):
    """Where the current project came from.

    Args:
        project: the normalized name ("" when ``source`` is ``ambiguous`` or ``all_projects``).
        source: ``explicit``, ``process_override``, ``config``, ``git_remote``, ``git_root``,
            ``git_child``, ``ambiguous``, ``dir_basename`` or ``all_projects``.
        path: the folder that defines the project ("" for explicit names).
        cwd: the directory detection started from.
        available_projects: candidates when ambiguous.
        warning: advisory text (a normalized name, a promoted child...).
        error_hint: why no project was selected, when none was.
    """

    project: str
    source: str
    path: str = ""
    cwd: str = ""
    available_projects: tuple[str, ...] = ()
    warning: str | None = None
    error_hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``available_projects`` as a list, empty optionals dropped)."""
        data = Record.to_dict(self)  # not super(): @record rebuilds the class
        data["available_projects"] = list(self.available_projects)
        return {k: v for k, v in data.items() if v is not None}


def normalize_project_name(raw: str) -> ProjectName:
    """Normalize a project name: lowercase, trimmed, repeated ``-``/``_`` collapsed.

    Raises:
        EngramError: ``project.invalid_name`` for an empty name, a path, or control characters.
    """
    name = project_names.normalized_name(raw)
    problem = project_names.name_problem(name)
    if problem:
        raise EngramError(
            "project.invalid_name",
            f"invalid project name {raw!r}: {problem}",
            "use a short name such as `my-app` (letters, digits, '-', '_', '.')",
        )
    warning = None
    if name != raw:
        warning = f"project name {raw!r} was normalized to {name!r}"
    return ProjectName(name, warning)


def resolve_project(
    explicit: str | None,
    cwd: str | os.PathLike[str],
    *,
    process_override: str | None = None,
    environ: Mapping[str, str] | None = None,
    detect: Callable[[str], ProjectDetection] | None = None,
) -> ProjectDetection:
    """The project for one call: explicit, then process override, then ``ENGRAM_PROJECT``, then cwd.

    Args:
        explicit: a project named in the request (``--project``, a tool argument), or None.
        cwd: the working directory to detect from when nothing is named.
        process_override: a process-wide default (``engram mcp --project``), or None.
        environ: the environment to read ``ENGRAM_PROJECT`` from (default ``os.environ``).
        detect: how ``cwd`` is detected (default :func:`detect_project`; a long-lived server
            passes :meth:`engram.memory.detection_cache.DetectionCache.detect`).
    """
    env = os.environ if environ is None else environ
    if explicit is not None:
        named = normalize_project_name(explicit)
        return ProjectDetection(named.name, "explicit", cwd=plain_path(cwd), warning=named.warning)
    override = process_override or env.get("ENGRAM_PROJECT", "").strip() or None
    if override is not None:
        named = normalize_project_name(override)
        return ProjectDetection(
            named.name, "process_override", cwd=plain_path(cwd), warning=named.warning
        )
    return (detect or detect_project)(plain_path(cwd))


def detect_project(cwd: str | os.PathLike[str], reads: DiskReads = PLAIN) -> ProjectDetection:
    """Detect the project for a working directory (the seed's six cases, in order).

    ``reads`` is how the configuration and git files are looked at (a long-lived server passes
    one that notes their stamps: :mod:`engram.memory.detection_cache`).

    Raises:
        EngramError: ``project.bad_config`` for an unreadable ``.engram/config.json`` and
            ``project.binding_unavailable`` for a corrupt or unwritable git binding — detection
            fails closed instead of falling back to a directory name.
    """
    cwd = os.path.realpath(os.fspath(cwd))  # Path.resolve(), as a plain string
    repo = git_repo.find_git_repo(cwd, reads)
    config = _nearest_config(cwd, repo.root if repo else cwd, reads)
    if config is not None:
        named = read_project_config(config, reads)
        owner = os.path.dirname(os.path.dirname(config))
        return ProjectDetection(named.name, "config", owner, cwd, warning=named.warning)
    if repo is not None:
        return _detect_in_repo(repo, cwd, reads)
    children = git_children(cwd)
    if len(children) == 1:
        child = detect_project(children[0])
        hint = f"using the only git repository below {cwd}: {os.path.basename(children[0])}"
        return ProjectDetection(
            child.project, "git_child", child.path, cwd, warning=_join(child.warning, hint)
        )
    if len(children) > 1:
        names = tuple(sorted({child_name(child) for child in children}))
        return ProjectDetection(
            "",
            "ambiguous",
            cwd,
            cwd,
            available_projects=names,
            error_hint="several git repositories below this directory; name one with --project "
            "or run `engram init <name>` here",
        )
    named = normalize_project_name(os.path.basename(cwd) or "root")
    return ProjectDetection(named.name, "dir_basename", cwd, cwd, warning=named.warning)


def _join(first: str | None, second: str) -> str:
    return f"{first}; {second}" if first else second


def _nearest_config(cwd: str, top: str, reads: DiskReads) -> str | None:
    """The nearest ``.engram/config.json`` from ``cwd`` up to ``top`` (inclusive)."""
    folder = cwd
    while True:
        candidate = os.path.join(folder, CONFIG_DIR, CONFIG_FILE)
        if reads.is_file(candidate):
            return candidate
        parent = os.path.dirname(folder) or "."
        if folder == top or parent == folder:
            return None
        folder = parent


def read_project_config(path: str | os.PathLike[str], reads: DiskReads = PLAIN) -> ProjectName:
    """The normalized ``project_name`` in a ``.engram/config.json``.

    Raises:
        EngramError: ``project.bad_config`` when the file is unreadable or names no valid project.
    """
    try:
        data = lean_json.loads(reads.read_text(os.fspath(path)))
    except (OSError, ValueError) as exc:  # ValueError: also not UTF-8, a 4,300-digit number
        raise _config_error(path, f"it is not readable JSON ({exc})") from exc
    except RecursionError:
        raise _config_error(path, "its JSON is nested too deeply to read") from None
    name = data.get("project_name") if isinstance(data, dict) else None
    if not isinstance(name, str):
        raise _config_error(path, "it has no string `project_name`")
    try:
        return normalize_project_name(name)
    except EngramError as exc:
        raise _config_error(path, exc.message) from exc


def _config_error(path: str | os.PathLike[str], why: str) -> EngramError:
    return EngramError(
        "project.bad_config",
        f"{path} is invalid: {why}",
        "fix it or rewrite it with `engram init <project> --force`",
        path=str(path),
    )


def _detect_in_repo(repo: GitRepo, cwd: str, reads: DiskReads) -> ProjectDetection:
    """Cases 2 and 3: reuse the clone's binding, or create it from the remote or root name."""
    url = git_repo.origin_url(repo, reads)
    source = "git_remote" if url else "git_root"
    label = git_repo.read_binding(repo, reads)
    warning = None
    if label is None:
        raw = git_repo.repo_name_from_url(url) if url else os.path.basename(repo.root)
        named = normalize_project_name(raw)
        git_repo.write_binding(repo, named.name)
        # Two processes may race to create it; the file on disk is the one that counts.
        label = git_repo.read_binding(repo, reads) or named.name
        warning = named.warning
    name = normalize_project_name(label).name
    return ProjectDetection(name, source, repo.root, cwd, warning=warning)


def git_children(cwd: str | os.PathLike[str]) -> list[str]:
    """Git working trees directly below ``cwd`` (bounded in entries and time)."""
    deadline = time.monotonic() + CHILD_SCAN_SECONDS
    found: list[str] = []
    try:
        entries = sorted(os.scandir(cwd), key=lambda entry: entry.name)
    except OSError:
        return []
    scanned = 0
    for entry in entries:
        if entry.name.startswith(".") or entry.name in NOISE_DIRS:
            continue
        if scanned >= CHILD_SCAN_MAX_ENTRIES or time.monotonic() > deadline:
            break
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if not is_dir:
            continue
        scanned += 1
        if git_repo.git_repo_at(entry.path) is not None:
            found.append(entry.path)
    return found


def child_name(child: str) -> str:
    """A child repository's canonical name without writing anything (for ambiguity lists)."""
    config = os.path.join(child, CONFIG_DIR, CONFIG_FILE)
    if os.path.isfile(config):
        return read_project_config(config).name
    repo = git_repo.git_repo_at(child)
    if repo is not None:
        label = git_repo.read_binding(repo)
        if label is not None:
            return normalize_project_name(label).name
        url = git_repo.origin_url(repo)
        if url:
            return normalize_project_name(git_repo.repo_name_from_url(url)).name
    return normalize_project_name(os.path.basename(child)).name


def write_project_config(directory: Path, name: str | None, *, force: bool) -> ProjectName:
    """Write ``<directory>/.engram/config.json`` naming the project (``engram init``).

    Args:
        directory: the folder whose identity is being pinned.
        name: the project name; None uses the folder's basename.
        force: replace an existing config instead of refusing.

    Raises:
        EngramError: ``project.config_exists`` without ``force``; ``project.invalid_name``.
    """
    named = normalize_project_name(name if name is not None else directory.resolve().name)
    path = directory / CONFIG_DIR / CONFIG_FILE
    if path.exists() and not force:
        raise EngramError(
            "project.config_exists",
            f"{path} already exists",
            "pass --force to replace it",
            path=str(path),
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{CONFIG_FILE}.{os.getpid()}.tmp")
    import json  # indented for people: lean_json writes no indent

    temp.write_text(json.dumps({"project_name": named.name}, indent=2) + "\n", encoding="utf-8")
    os.replace(temp, path)
    return named


def require_known(project: str, known: Iterable[str]) -> None:
    """Refuse a project the store has never seen (read commands must not invent buckets).

    Raises:
        EngramError: ``project.unknown`` carrying ``available_projects``.
    """
    available = sorted(set(known))
    if project in available:
        return
    listing = ", ".join(available) if available else "none yet"
    raise EngramError(
        "project.unknown",
        f"unknown project {project!r} (known projects: {listing})",
        "pick one of the known projects, or use --all",
        available_projects=available,
    )


def known_project_names(store: Store) -> list[str]:
    """Every project name the store holds any row for (cheap: index walks, no counting)."""
    from engram.store.project_names import distinct_names

    with store.read() as conn:
        return distinct_names(conn)


def require_known_project(store: Store, project: str) -> None:
    """Refuse a project the store has never seen, listing the ones it has.

    Raises:
        EngramError: ``project.unknown`` carrying ``available_projects``.
    """
    from engram.store.project_names import project_exists

    with store.read() as conn:
        if project_exists(conn, project):
            return
    require_known(project, known_project_names(store))


def require_single(detection: ProjectDetection) -> str:
    """The detected project, or an ``project.ambiguous`` error listing the candidates."""
    if detection.source != "ambiguous":
        return detection.project
    raise EngramError(
        "project.ambiguous",
        "cannot tell which project this directory belongs to "
        f"(candidates: {', '.join(detection.available_projects)})",
        "pass --project NAME, or run `engram init <name>` in this directory",
        available_projects=list(detection.available_projects),
    )


def similar_projects(name: str, known: Iterable[str]) -> list[str]:
    """Existing projects that look like a variant of ``name`` (case, separators, typos)."""
    squashed = _squash(name)
    similar = []
    for other in sorted(set(known)):
        if other == name:
            continue
        other_squashed = _squash(other)
        if (
            squashed == other_squashed
            or (
                min(len(squashed), len(other_squashed)) >= 3 and _contains(squashed, other_squashed)
            )
            or levenshtein(squashed, other_squashed) <= (1 if len(squashed) < 6 else 2)
        ):
            similar.append(other)
    return similar


def _squash(name: str) -> str:
    return project_names.project_key(name)


def _contains(a: str, b: str) -> bool:
    return a in b or b in a


def levenshtein(a: str, b: str) -> int:
    """Edit distance between two strings (insert, delete, substitute)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]
