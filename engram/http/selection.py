"""Which project a request is for: ``project`` / ``all_projects=true`` / ENGRAM_PROJECT / cwd.

Reads resolve an omitted project to the current one (explicit, then ``ENGRAM_PROJECT``, then
detection from the server's working directory); ``all_projects=true`` reads every project and
cannot be combined with ``project``. An unknown explicit project is 404 ``unknown_project``, an
ambiguous working directory 409 ``ambiguous_project``, an invalid name 400, a working directory
that claims a project bound to other repositories 409 ``project.unconfirmed``.
"""

from __future__ import annotations

from engram.errors import EngramError
from engram.http.exchange import Call
from engram.http.problems import HttpProblem, bad_request
from engram.memory import project_binding
from engram.memory.detection_cache import REMEMBERED, working_directory
from engram.memory.project import (
    ProjectDetection,
    known_project_names,
    require_known_project,
    resolve_project,
)


def detect(call: Call, explicit: str | None) -> ProjectDetection:
    """Resolve a project name or the server's current project (no existence check).

    A project *detected* from the server's folder (its ``.engram/config.json``, remote or
    name) must be one that folder is bound to, as for the MCP tools and hooks: a folder that
    claims a project bound to other repositories is 409 ``project.unconfirmed`` (a project
    named in the request is the caller's choice and is not checked)."""
    if explicit is not None and not explicit.strip():
        raise bad_request("project.invalid_name", "project must not be blank")
    # The server's folder is detected once and re-checked by stamps (as for the MCP tools).
    detection = resolve_project(explicit, working_directory(), detect=REMEMBERED.detect)
    # Named, ambiguous (no project) and bound detections pass; a first use binds.
    if not REMEMBERED.is_trusted(call.store, call.store.path.parent, detection):
        raise project_binding.untrusted_error(detection)
    return detection


def single_project(call: Call, explicit: str | None) -> str:
    """One project name: the explicit one, else the current one (409 when ambiguous)."""
    detection = detect(call, explicit)
    if detection.source == "ambiguous":
        raise ambiguous(call, detection)
    return detection.project


def read_scope(call: Call, *, explicit: str | None = None) -> str | None:
    """The project a read is for, or None for ``all_projects=true``.

    Args:
        call: the request (its ``project`` and ``all_projects`` query parameters).
        explicit: a project taken from elsewhere (a body field) instead of the query.
    """
    project = explicit if explicit is not None else call.query("project")
    if call.query_flag("all_projects"):
        if project is not None:
            raise bad_request(
                "http.conflicting_selectors", "use either project or all_projects=true, not both"
            )
        return None
    detection = detect(call, project)
    if detection.source == "ambiguous":
        raise ambiguous(call, detection)
    if detection.source in ("explicit", "process_override"):
        try:
            require_known_project(call.store, detection.project)
        except EngramError:
            raise unknown_project(call, detection.project) from None
    return detection.project


def unknown_project(call: Call, name: str) -> HttpProblem:
    """404 ``unknown_project`` listing the projects the store knows."""
    return HttpProblem(
        404,
        "unknown_project",
        f"unknown project {name!r}",
        available_projects=known_project_names(call.store),
    )


def ambiguous(call: Call, detection: ProjectDetection) -> HttpProblem:
    """409 ``ambiguous_project``: the server's directory holds several repositories."""
    return HttpProblem(
        409,
        "ambiguous_project",
        "cannot tell which project the server's directory belongs to; pass project=NAME",
        available_projects=list(detection.available_projects),
        project_source=detection.source,
        project_path=detection.path,
    )
