"""``engram conflicts list|show|stats|scan|deferred``: the maintainer's conflict audit.

Output is label-colon aligned (``--json`` for scripts). Without ``--project`` the project is
detected from the working directory, as for every read command.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from engram.cli.output import emit_json, plural

if TYPE_CHECKING:
    from engram.memory.conflict_scan import Confirm, ScanOptions

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]
ProjectOption = Annotated[
    str | None,
    typer.Option("--project", help="Project name (default: ENGRAM_PROJECT, then detection)."),
]
AllOption = Annotated[bool, typer.Option("--all", help="Every project.")]

conflicts_app = typer.Typer(
    name="conflicts",
    help="Audit memories that may contradict each other: list, show, stats, scan, deferred.",
    no_args_is_help=True,
)


def labelled(pairs: Iterable[tuple[str, Any]]) -> str:
    """``label: value`` lines with the values aligned in one column."""
    rows = [(label, "" if value is None else str(value)) for label, value in pairs]
    width = max((len(label) for label, _ in rows), default=0) + 1
    return "\n".join(f"{label + ':':<{width}} {value}".rstrip() for label, value in rows)


def _end(obs_id: object, title: object, sync_id: object) -> str:
    if obs_id is None:
        return f"{sync_id} (gone)"
    return f"#{obs_id} {title}"


@conflicts_app.command("list")
def list_command(
    project: ProjectOption = None,
    all_projects: AllOption = False,
    status: Annotated[
        str | None,
        typer.Option("--status", help="pending, judged, orphaned or ignored."),
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="RFC 3339: created at or after.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", help="Rows (default 50, max 500).")] = 50,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Rows to skip.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """List relations that may be conflicts, newest first."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.conflicts import check_status, list_conflicts, parse_since

    check_status(status)
    parse_since(since)
    with open_store() as store:
        name = read_project(store, project, all_projects)
        page = list_conflicts(
            store, project=name, status=status, since=since, limit=limit, offset=offset
        )
    if as_json:
        emit_json({"project": name, **page.to_dict()})
        return
    if not page.relations:
        typer.echo("no relations")
        return
    last = page.offset + len(page.relations)
    typer.echo(f"showing {page.offset + 1}-{last} of {page.total}")
    for row in page.relations:
        data = row.to_dict()
        typer.echo("")
        typer.echo(
            labelled(
                [
                    ("id", data["id"]),
                    ("sync_id", data["sync_id"]),
                    ("relation", data["relation"]),
                    ("judgment_status", data["judgment_status"]),
                    (
                        "source",
                        _end(row.view.source_obs_id, data["source_title"], data["source_id"]),
                    ),
                    (
                        "target",
                        _end(row.view.target_obs_id, data["target_title"], data["target_id"]),
                    ),
                    ("created_at", data["created_at"]),
                ]
            )
        )


@conflicts_app.command("show")
def show_command(
    relation_id: Annotated[int, typer.Argument(help="The relation's numeric id.")],
    as_json: JsonOption = False,
) -> None:
    """Show one relation in full, with both memories."""
    from engram.cli.selection import open_store
    from engram.memory.conflicts import show_conflict

    with open_store() as store:
        detail = show_conflict(store, relation_id)
    data = detail.to_dict()
    if as_json:
        emit_json(data)
        return
    typer.echo(
        labelled(
            [
                ("relation_id", data["id"]),
                ("sync_id", data["sync_id"]),
                ("relation", data["relation"]),
                ("judgment_status", data["judgment_status"]),
                ("project", data["project"]),
                ("created_at", data["created_at"]),
                ("updated_at", data["updated_at"]),
                ("source_id", data["source_id"]),
                ("source_title", data["source_title"]),
                ("target_id", data["target_id"]),
                ("target_title", data["target_title"]),
                ("confidence", data["confidence"]),
                ("reason", data["reason"]),
                ("marked_by", data["marked_by_kind"]),
            ]
        )
    )
    for label, key in (("source", "source_snippet"), ("target", "target_snippet")):
        if data[key]:
            typer.echo(f"\n{label}: {data[key]}")


@conflicts_app.command("stats")
def stats_command(
    project: ProjectOption = None, all_projects: AllOption = False, as_json: JsonOption = False
) -> None:
    """Count relations by judgment status and relation, plus the sync queue's deferred rows."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.conflicts import STATUSES, conflict_stats

    with open_store() as store:
        name = read_project(store, project, all_projects)
        stats = conflict_stats(store, project=name)
    if as_json:
        emit_json(stats.to_dict())
        return
    rows: list[tuple[str, Any]] = [("project", name or "(all projects)")]
    rows += [(status, stats.by_judgment_status.get(status, 0)) for status in STATUSES]
    rows += [("deferred", stats.deferred), ("dead", stats.dead)]
    typer.echo(labelled(rows))
    if stats.by_relation:
        typer.echo("\nBy relation type")
        typer.echo(labelled(sorted(stats.by_relation.items())))


@conflicts_app.command("scan")
def scan_command(
    project: ProjectOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report only (the default).")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Insert pending relations.")] = False,
    max_insert: Annotated[
        int, typer.Option("--max-insert", min=0, help="Rows --apply may insert (default 100).")
    ] = 100,
    since: Annotated[
        str | None, typer.Option("--since", help="RFC 3339: only memories created since.")
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=100, help="Memories per page (1-100).")
    ] = 100,
    cursor: Annotated[
        int | None, typer.Option("--cursor", min=0, help="Resume after a printed next_cursor.")
    ] = None,
    semantic: Annotated[
        bool, typer.Option("--semantic", help="Judge candidates with ENGRAM_AGENT_CLI.")
    ] = False,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, max=20, help="Parallel LLM calls (1-20).")
    ] = 5,
    timeout_per_call: Annotated[
        int, typer.Option("--timeout-per-call", min=1, max=600, help="Seconds per LLM call.")
    ] = 60,
    max_semantic: Annotated[
        int, typer.Option("--max-semantic", min=0, help="LLM calls at most (default 100).")
    ] = 100,
    yes: Annotated[bool, typer.Option("--yes", help="Skip the cost confirmation.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Scan one page of a project's memories for conflict candidates."""
    if dry_run and apply:
        raise typer.BadParameter("--dry-run and --apply are mutually exclusive; pick one")
    from engram.cli.selection import open_store, read_project
    from engram.memory.conflict_judge import Judge, agent_from_env
    from engram.memory.conflict_scan import ScanOptions, scan

    judge = Judge(agent_from_env()) if semantic else None
    with open_store() as store:
        name = read_project(store, project, False)
        assert name is not None
        options = ScanOptions(
            project=name,
            limit=limit,
            cursor=cursor,
            since=since,
            apply=apply,
            max_insert=max_insert,
            semantic=semantic,
            concurrency=concurrency,
            timeout_per_call=timeout_per_call,
            max_semantic=max_semantic,
        )
        confirm = None if yes else _confirmer(options, judge.name if judge else "")
        report = scan(store, options, judge=judge, confirm=confirm)
    data = report.to_dict()
    if as_json:
        emit_json(data)
    else:
        typer.echo(labelled((k, v) for k, v in data.items() if k != "warning"))
    if report.capped:
        typer.echo(f"WARNING: {data['warning']}", err=True)
    for error in report.errors[:5]:
        typer.echo(f"warning: semantic judge: {error}", err=True)


@conflicts_app.command("deferred")
def deferred_command(
    status: Annotated[
        str | None, typer.Option("--status", help="deferred, dead or applied.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", help="Rows (default 50, max 500).")] = 50,
    inspect: Annotated[
        str | None, typer.Option("--inspect", help="Print one row's payload by its sync id.")
    ] = None,
    replay: Annotated[bool, typer.Option("--replay", help="Retry every deferred row now.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Inspect or replay pulled sync mutations that wait for a missing parent."""
    if inspect is not None and replay:
        raise typer.BadParameter("--inspect and --replay are mutually exclusive; pick one")
    from engram.cli.selection import open_store
    from engram.sync import deferred

    with open_store() as store:
        if replay:
            counts = deferred.replay_deferred(store)
            if as_json:
                emit_json(counts)
            else:
                typer.echo(labelled(counts.items()))
            return
        if inspect is not None:
            row = deferred.inspect_deferred(store, inspect)
            if as_json:
                emit_json(row)
                return
            shown = {k: v for k, v in row.items() if k not in ("payload", "payload_raw")}
            typer.echo(labelled(shown.items()))
            typer.echo("payload:")
            typer.echo(
                json.dumps(row["payload"], indent=2) if row["payload_valid"] else row["payload_raw"]
            )
            return
        page = deferred.list_deferred(store, status=status, limit=limit)
    if as_json:
        emit_json(page.to_dict())
        return
    if not page.rows:
        typer.echo("no deferred rows")
        return
    typer.echo(f"showing {len(page.rows)} of {page.total}")
    for row in page.rows:
        typer.echo("")
        typer.echo(
            labelled(
                (key, row[key])
                for key in (
                    "sync_id",
                    "entity",
                    "apply_status",
                    "retry_count",
                    "first_seen_at",
                    "last_error",
                )
            )
        )


def _confirmer(options: ScanOptions, agent: str) -> Confirm:
    def confirm(calls: int, tokens: int) -> bool:
        message = (
            f"Semantic scan: up to {plural(calls, agent + ' call')}, about {tokens:,} input tokens"
            f" (max {options.max_semantic}, {options.concurrency} at a time). Continue?"
        )
        if not sys.stdin.isatty():
            typer.echo(f"{message} [y/N]: no terminal to ask — pass --yes", err=True)
            return False
        return typer.confirm(message, default=False, err=True)

    return confirm


def register(app: typer.Typer) -> None:
    """Add ``engram conflicts`` to the root app."""
    app.add_typer(conflicts_app)
