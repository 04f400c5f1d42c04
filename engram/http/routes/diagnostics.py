"""Stats and doctor: what the store holds, and the same report as ``engram doctor --json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.routing import BaseRoute, Route

from engram.errors import EngramError
from engram.http.exchange import Call, endpoint, reply
from engram.http.problems import HttpProblem
from engram.http.selection import read_scope
from engram.memory import projects


def _scope_or_500(call: Call) -> str | None:
    try:
        return read_scope(call)
    except EngramError as exc:
        if exc.code.startswith("store.") or exc.code == "project.binding_unavailable":
            raise HttpProblem(
                500, "project_resolution_failed", "project resolution failed"
            ) from None
        raise


@endpoint(inline=True)
def stats(call: Call) -> Any:
    """GET /stats — counts for the current project (``project=`` / ``all_projects=true``)."""
    project = _scope_or_500(call)
    try:
        return projects.stats(call.store, project=project).to_dict()
    except Exception:
        return reply({"error": "stats unavailable"}, 500)


@endpoint()
def doctor(call: Call) -> Any:
    """GET /doctor?project=X&check=CODE — read-only diagnostics (the ``--json`` report)."""
    from engram.doctor.runner import DoctorContext, run_doctor

    read_scope(call)  # an unknown explicit project is a 404, like every project-scoped route
    report = run_doctor(DoctorContext.from_environment(Path.cwd()), only=call.query("check"))
    return report.to_dict()


ROUTES: list[BaseRoute] = [
    Route("/stats", stats, methods=["GET"]),
    Route("/doctor", doctor, methods=["GET"]),
]
