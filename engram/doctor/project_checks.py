"""The workspace's project and the repositories it is bound to (see
:mod:`engram.memory.project_binding`). Read-only: doctor never binds anything."""

from __future__ import annotations

from collections.abc import Iterator

from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import Check, DoctorContext
from engram.errors import EngramError

CONFIRM = "if this repository really is that project, run `engram init --confirm` here"


def check_project_binding(ctx: DoctorContext) -> Iterator[Finding]:
    """``project.binding``: which origins the detected project is bound to, and this one."""
    from engram.memory.project import detect_project
    from engram.memory.project_binding import BINDINGS_FILE, load_bindings, origin_of
    from engram.store.datadir import resolve_data_dir

    try:
        data_dir = resolve_data_dir(ctx.env)
        detection = detect_project(ctx.workspace)
        bindings = load_bindings(data_dir)
    except EngramError as exc:
        yield Finding("project.binding", Severity.WARN, exc.message, remedy=exc.remedy)
        return
    if not detection.project:
        yield Finding("project.binding", Severity.SKIP, "no single project in this folder")
        return
    file = str(data_dir / BINDINGS_FILE)
    origin, bound = origin_of(detection), bindings.get(detection.project)
    name = detection.project
    if bound is None:
        message = f"project {name!r} is not bound yet; its first use here binds it to {origin}"
        yield Finding("project.binding", Severity.PASS, message, file)
    elif origin in bound:
        message = f"project {name!r} is bound to {', '.join(bound)} (this repository: {origin})"
        yield Finding("project.binding", Severity.PASS, message, file)
    else:
        message = (
            f"this repository ({origin}) claims project {name!r}, which is bound to "
            f"{', '.join(bound)}: its memories are not injected or written here"
        )
        yield Finding("project.binding", Severity.WARN, message, file, CONFIRM)


CHECKS: list[Check] = [check_project_binding]
