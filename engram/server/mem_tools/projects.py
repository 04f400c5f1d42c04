"""Projects and health: mem_current_project, mem_list_projects, mem_stats, mem_merge_projects,
mem_doctor."""

from __future__ import annotations

from typing import Any

from engram.errors import EngramError
from engram.memory import project as projects_id
from engram.memory import projects
from engram.memory.project import ProjectDetection
from engram.server.envelope import ToolOutcome
from engram.server.mem_tools.context import STATE, answer, cwd, read_project
from engram.server.mem_tools.params import PROJECT_READ
from engram.server.options import current_options
from engram.server.registry import Param, ToolCall, ToolSpec, register

AGENT = frozenset({"agent"})
ADMIN = frozenset({"admin"})


def run_current_project(call: ToolCall) -> ToolOutcome:
    """mem_current_project: the detection result; never an error, even when ambiguous."""
    here = cwd()
    try:
        override = current_options().project
        if override:
            detection = projects_id.resolve_project(None, here, process_override=override)
        else:
            detection = projects_id.detect_project(here)
    except EngramError as exc:
        detection = ProjectDetection("", "error", cwd=str(here), error_hint=exc.one_line())
    data: dict[str, Any] = {
        "project": detection.project,
        "project_source": detection.source,
        "project_path": detection.path,
        "cwd": detection.cwd or str(here),
        "available_projects": list(detection.available_projects),
        "warning": detection.warning or "",
    }
    if detection.error_hint:
        data["error_hint"] = detection.error_hint
    if detection.project:
        text = f"Project: {detection.project} (from {detection.source}, {detection.path or here})"
    else:
        text = "No single project here: " + (detection.error_hint or "")
        if detection.available_projects:
            text += f"\navailable_projects: {', '.join(detection.available_projects)}"
    if detection.warning:
        text += f"\nwarning: {detection.warning}"
    return ToolOutcome(text, data)


def run_list_projects(call: ToolCall) -> ToolOutcome:
    """mem_list_projects: every known project with its counts, most observations first."""
    try:
        rows = projects.list_projects(STATE.store())
    except EngramError as exc:
        raise EngramError(
            "server.list_projects_failed", f"List projects failed: {exc.message}", exc.remedy
        ) from exc
    items = [
        {
            "name": p.name,
            "observation_count": p.observation_count,
            "session_count": p.session_count,
            "prompt_count": p.prompt_count,
            "directories": list(p.directories),
        }
        for p in rows
    ]
    lines = [f"{len(items)} projects:"] + [
        f"- {p['name']}: {p['observation_count']} observations, {p['session_count']} sessions, "
        f"{p['prompt_count']} prompts"
        for p in items
    ]
    return ToolOutcome("\n".join(lines), {"projects": items, "count": len(items)})


def run_stats(call: ToolCall) -> ToolOutcome:
    """mem_stats: counts for the current project (or ``project``); every project only when
    ``all_projects`` is true."""
    detection = None if call.get("all_projects") else read_project(call.get("project"))
    found = projects.stats(STATE.store(), project=detection.project if detection else None)
    text = (
        f"Sessions: {found.sessions}\nObservations: {found.observations}\n"
        f"Prompts: {found.prompts}\nPinned: {found.pinned}\nRelations: {found.relations}\n"
        f"Projects: {', '.join(found.projects) or 'none'}"
    )
    return answer(detection, text, found.to_dict())


def run_merge(call: ToolCall) -> ToolOutcome:
    """mem_merge_projects: fold case / separator spellings of one project into ``to``."""
    sources = [name.strip() for name in str(call.get("from")).split(",") if name.strip()]
    report = projects.merge_projects(STATE.store(), sources, call.get("to"), apply=True)
    total = report.total
    if total.observations + total.sessions + total.prompts == 0:
        text = f"Nothing moved into {report.target}: no records under {', '.join(sources)}"
    else:
        text = (
            f"Merged {', '.join(sources)} into {report.target}: {total.observations} "
            f"observations, {total.sessions} sessions, {total.prompts} prompts moved"
        )
    return ToolOutcome(text, {"result": report.to_dict()})


def run_doctor(call: ToolCall) -> ToolOutcome:
    """mem_doctor: the same JSON report as ``engram doctor --json`` (read-only)."""
    from engram.doctor.runner import DoctorContext
    from engram.doctor.runner import run_doctor as doctor

    if call.get("project"):
        read_project(call.get("project"))
    report = doctor(DoctorContext.from_environment(cwd()), only=call.get("check"))
    data = report.to_dict()
    lines = [f"{f['severity']}: {f['code']} {f['message']}" for f in data.get("findings", [])]
    return ToolOutcome("\n".join(lines) or "No findings.", data)


register(
    ToolSpec(
        name="mem_current_project",
        title="Current project",
        description="Detect the current project from the working directory. Call it first in a "
        "session. Never fails: when the directory holds several projects the project is empty "
        "and available_projects lists them.",
        params=(),
        run=run_current_project,
        family="mem",
        profiles=AGENT,
        read_only=True,
    )
)

register(
    ToolSpec(
        name="mem_list_projects",
        title="List projects",
        description="List every project Engram knows, with observation, session and prompt "
        "counts and known directories, most observations first. Use it to pick a project for "
        "mem_search / mem_context when the directory matches none.",
        params=(),
        run=run_list_projects,
        family="mem",
        profiles=AGENT,
        read_only=True,
    )
)

register(
    ToolSpec(
        name="mem_doctor",
        title="Memory doctor",
        description="Run read-only diagnostics; returns the same JSON report as "
        "`engram doctor --json`. Optional project and check (a code or family, e.g. store).",
        params=(PROJECT_READ, Param("check", "string", "Only findings with this code or family")),
        run=run_doctor,
        family="mem",
        profiles=AGENT,
        read_only=True,
    )
)

register(
    ToolSpec(
        name="mem_stats",
        title="Memory statistics",
        description="Memory statistics of the current project (or project): sessions, "
        "observations, prompts, pins, relations; all_projects: true counts every project.",
        params=(
            PROJECT_READ,
            Param("all_projects", "boolean", "Count every project instead of the current one"),
        ),
        run=run_stats,
        family="mem",
        profiles=ADMIN,
        read_only=True,
    )
)

register(
    ToolSpec(
        name="mem_merge_projects",
        title="Merge projects",
        description="Admin: merge spellings of one project (case, spaces, -/_ variants such as "
        "foo-bar and foo_bar) into a canonical name. from: comma-separated source names; to: "
        "the target. Unrelated names are rejected.",
        params=(
            Param("from", "string", "Comma-separated source project names", required=True),
            Param("to", "string", "Canonical target project name", required=True),
        ),
        run=run_merge,
        family="mem",
        profiles=ADMIN,
        read_only=False,
        destructive=True,
    )
)
