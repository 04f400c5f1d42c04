"""The reading pages: overview, stats, activity, the browser, projects, contributors, details.

Lists are paged (20 a page) and filtered in SQL; a member sees only granted projects. Lists
that HTMX refreshes (browser tabs, project and contributor lists, project detail tabs) answer
with their fragment for ``HX-Request: true`` and the full page otherwise.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from starlette.responses import Response

from engram.cloud.dashboard import charts
from engram.cloud.dashboard.render import zone, zone_name
from engram.cloud.dashboard.screens import PAGE_SIZE, Screen, pages, screen
from engram.cloud.store import projects as project_store
from engram.cloud.store import readmodel

CHART_DAYS = 30
KINDS = {"observations": "observation", "sessions": "session", "prompts": "prompt"}


def _today() -> date:
    return datetime.now(zone()).date() if zone() is not None else datetime.now().date()


def _not_found(screen: Screen, what: str) -> Response:
    return screen.render("error.html", status=404, status_code=404, message=f"no such {what}")


@screen()
def overview(screen: Screen) -> Response:
    """GET /dashboard — what the agents learned lately, at a glance."""
    visible = screen.viewer.projects()
    since = (_today() - timedelta(days=CHART_DAYS - 1)).isoformat()
    per_day = readmodel.observations_per_day(screen.conn, since, visible)
    _, recent = readmodel.live_page(screen.conn, "observation", projects=visible, limit=8)
    counts = {
        kind: readmodel.live_count(screen.conn, entity, visible) for kind, entity in KINDS.items()
    }
    chart = charts.bar_chart(
        charts.day_series(per_day, CHART_DAYS, _today()),
        f"Observations per day, last {CHART_DAYS} days",
        label_every=5,
    )
    return screen.render("overview.html", counts=counts, recent=recent, chart=chart)


@screen()
def stats(screen: Screen) -> Response:
    """GET /dashboard/stats — counts and charts per project and contributor."""
    visible = screen.viewer.projects()
    per_project = readmodel.observations_per_project(screen.conn, visible)
    per_day = readmodel.contributors_per_day(screen.conn, CHART_DAYS, zone_name(), visible)
    totals = readmodel.totals(screen.conn)
    return screen.render(
        "stats.html",
        totals=totals,
        per_project=per_project,
        project_chart=charts.bar_chart(
            [charts.Bar(name, n) for name, n in per_project.items()], "Observations per project"
        ),
        contributor_chart=charts.bar_chart(
            charts.day_series(per_day, CHART_DAYS, _today()),
            f"Active contributors per day, last {CHART_DAYS} days",
            label_every=5,
        ),
    )


@screen()
def activity(screen: Screen) -> Response:
    """GET /dashboard/activity — recent pushes, pulls and refusals (the sync audit)."""
    rows = [
        row
        for row in project_store.list_sync_audit(screen.conn, limit=100)
        if screen.viewer.may_see(row["project"])
    ]
    return screen.render("activity.html", rows=rows[:50])


def _browse(screen: Screen, kind: str, *, project: str = "", base: str = "") -> Response:
    entity = KINDS[kind]
    wanted = project or screen.query("project")
    visible = screen.viewer.projects()
    if wanted:
        visible = [wanted] if screen.viewer.may_see(wanted) else []
    query = screen.query("q")
    total, _ = readmodel.live_page(screen.conn, entity, projects=visible, query=query, limit=1)
    paging = pages(total, screen.page_number())
    _, rows = readmodel.live_page(
        screen.conn, entity, projects=visible, query=query, limit=PAGE_SIZE, offset=paging["offset"]
    )
    return screen.render(
        "browser.html",
        partial="partials/entity_list.html",
        kind=kind,
        rows=rows,
        paging=paging,
        q=query,
        project=wanted,
        base=base or f"/dashboard/browser/{kind}",
    )


@screen()
def browser(screen: Screen) -> Response:
    """GET /dashboard/browser — observations, with tabs for sessions and prompts."""
    return _browse(screen, "observations")


def _browser_tab(kind: str):  # type: ignore[no-untyped-def]
    @screen()
    def tab(screen: Screen) -> Response:
        return _browse(screen, kind)

    tab.__name__ = f"browser_{kind}"
    return tab


@screen()
def projects(screen: Screen) -> Response:
    """GET /dashboard/projects (and /projects/list for HTMX) — paged, with Paused badges."""
    total, _ = readmodel.projects_page(
        screen.conn, projects=screen.viewer.projects(), query=screen.query("q"), limit=1
    )
    paging = pages(total, screen.page_number())
    _, rows = readmodel.projects_page(
        screen.conn,
        projects=screen.viewer.projects(),
        query=screen.query("q"),
        limit=PAGE_SIZE,
        offset=paging["offset"],
    )
    return screen.render(
        "projects.html",
        partial="partials/project_list.html",
        rows=rows,
        paging=paging,
        q=screen.query("q"),
    )


@screen()
def project_detail(screen: Screen) -> Response:
    """GET /dashboard/projects/{project} — one project with observation/session/prompt tabs."""
    name = screen.request.path_params["project"]
    found = project_store.get_project(screen.conn, name)
    if found is None or not screen.viewer.may_see(name):
        return _not_found(screen, "project")
    counts = {kind: readmodel.live_count(screen.conn, e, [name]) for kind, e in KINDS.items()}
    return screen.render("project.html", project=found, counts=counts)


def _project_tab(kind: str):  # type: ignore[no-untyped-def]
    @screen()
    def tab(screen: Screen) -> Response:
        name = screen.request.path_params["name"]
        if not screen.viewer.may_see(name) or project_store.get_project(screen.conn, name) is None:
            return _not_found(screen, "project")
        return _browse(screen, kind, project=name, base=f"/dashboard/projects/{name}/{kind}")

    tab.__name__ = f"project_{kind}"
    return tab


@screen()
def contributors(screen: Screen) -> Response:
    """GET /dashboard/contributors (and /contributors/list) — who pushed, most recent first."""
    visible = screen.viewer.projects()
    total, _ = readmodel.contributors_page(screen.conn, projects=visible, limit=1)
    paging = pages(total, screen.page_number())
    _, rows = readmodel.contributors_page(
        screen.conn, projects=visible, limit=PAGE_SIZE, offset=paging["offset"]
    )
    per_day = readmodel.contributors_per_day(screen.conn, CHART_DAYS, zone_name(), visible)
    chart = charts.bar_chart(
        charts.day_series(per_day, CHART_DAYS, _today()),
        f"Active contributors per day, last {CHART_DAYS} days",
        label_every=5,
    )
    return screen.render(
        "contributors.html",
        partial="partials/contributor_list.html",
        rows=rows,
        paging=paging,
        chart=chart,
    )


@screen()
def contributor(screen: Screen) -> Response:
    """GET /dashboard/contributors/{contributor} — one contributor's projects and memories."""
    name = screen.request.path_params["contributor"]
    visible = screen.viewer.projects()
    projects_of = readmodel.contributor_projects(screen.conn, name, visible)
    if not projects_of:
        return _not_found(screen, "contributor")
    _, recent = readmodel.live_page(
        screen.conn, "observation", projects=visible, contributor=name, limit=PAGE_SIZE
    )
    return screen.render("contributor.html", name=name, projects=projects_of, recent=recent)


def _entity(screen: Screen, entity: str, project: str, key: str) -> dict[str, object] | None:
    if not screen.viewer.may_see(project):
        return None
    return readmodel.live_one(screen.conn, entity, project, key)


@screen()
def session_detail(screen: Screen) -> Response:
    """GET /dashboard/sessions/{project}/{session_id} — a session, its memories and prompts."""
    params = screen.request.path_params
    found = _entity(screen, "session", params["project"], params["session_id"])
    if found is None:
        return _not_found(screen, "session")
    lists = {
        kind: readmodel.live_page(
            screen.conn,
            KINDS[kind],
            projects=[params["project"]],
            session_id=params["session_id"],
            limit=50,
        )[1]
        for kind in ("observations", "prompts")
    }
    return screen.render("session.html", session=found, lists=lists)


@screen()
def session_by_id(screen: Screen) -> Response:
    """GET /dashboard/browser/sessions/{session_id} — a session found by id alone."""
    session_id = screen.request.path_params["session_id"]
    for project in screen.viewer.projects() or [
        row["name"] for row in project_store.list_projects(screen.conn)
    ]:
        if readmodel.live_one(screen.conn, "session", project, session_id) is not None:
            return screen.redirect(f"/dashboard/sessions/{project}/{session_id}")
    return _not_found(screen, "session")


def _detail(kind: str, template: str):  # type: ignore[no-untyped-def]
    @screen()
    def detail(screen: Screen) -> Response:
        params = screen.request.path_params
        found = _entity(screen, kind, params["project"], params["sync_id"])
        if found is None:
            return _not_found(screen, kind)
        return screen.render(template, item=found, session_id=params["session_id"])

    detail.__name__ = f"{kind}_detail"
    return detail


observation_detail = _detail("observation", "observation.html")
prompt_detail = _detail("prompt", "prompt.html")
browser_observations = _browser_tab("observations")
browser_sessions = _browser_tab("sessions")
browser_prompts = _browser_tab("prompts")
project_observations = _project_tab("observations")
project_sessions = _project_tab("sessions")
project_prompts = _project_tab("prompts")
