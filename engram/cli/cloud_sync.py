"""``engram sync --cloud --project P [--status | --import]``: one project with its cloud.

Cloud sync covers one project: ``--project``, else the current directory's (``--all`` is refused
by design). Failures are
one line on stderr that starts with the deterministic reason code (``cloud_config_error``,
``blocked_unenrolled``, ``auth_required``, ``policy_forbidden``, ``paused``,
``transport_failed``...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from engram.cli.output import emit_json, plural
from engram.errors import EngramError

if TYPE_CHECKING:
    from engram.sync.cloud.replicate import ReplicationReport


def _refuse(message: str, remedy: str) -> EngramError:
    return EngramError("cloud.project_required", message, remedy)


def cloud_sync(
    project: str | None, all_projects: bool, *, import_only: bool, status: bool, as_json: bool
) -> None:
    """Run one cloud sync command (push; ``--import``: pull; ``--status``: read-only)."""
    from engram.cli.selection import open_store
    from engram.store.datadir import resolve_data_dir
    from engram.sync.cloud.client import CloudSyncError
    from engram.sync.cloud.config import CloudConfig, require_remote
    from engram.sync.cloud.enrollment import as_user_error, remote_status
    from engram.sync.cloud.replicate import require_enrolled, sync_once

    if all_projects:
        raise _refuse(
            "cloud sync covers one project; --all is not supported by design",
            "pass --project NAME (one command per project)",
        )
    config = CloudConfig.load(resolve_data_dir())
    with open_store() as store:
        if not project:  # like `engram sync`: the current directory's project
            from engram.cli.selection import read_project

            project = read_project(store, None, False) or ""
        remote = require_remote(config, project)
        require_enrolled(store, project)
        if remote.routed and not remote.token:
            raise EngramError(
                "cloud.auth_required",
                f"auth_required: project {project!r} is routed to {remote.server_url} without a"
                " token",
                f"run engram cloud config --project {project} --server URL --token TOKEN",
            )
        if status:
            _print_status(remote_status(store, remote, project), as_json)
            return
        progress = None if as_json else _print_progress
        try:
            report = sync_once(
                store,
                remote,
                project,
                push_first=not import_only,
                pull_after=import_only,
                progress=progress,
            )
        except CloudSyncError as exc:
            raise as_user_error(exc, project) from None
    _print_report(report, remote.server_url, import_only=import_only, as_json=as_json)


def _print_progress(pulled: int, remote: int, start: int) -> None:
    """One plain-text import snapshot: percent of the work pending at start, counts."""
    total = max(remote - start, 0)
    percent = 100 if total == 0 else min(100, (pulled - start) * 100 // total)
    typer.echo(
        f"import progress: {percent}% — local {pulled}, remote {remote},"
        f" pending {max(remote - pulled, 0)}"
    )


def _print_report(
    report: ReplicationReport, server: str, *, import_only: bool, as_json: bool
) -> None:
    if as_json:
        emit_json(report.to_dict())
    elif import_only:
        counts = report.counts
        typer.echo(
            f"imported {plural(report.pulled, 'remote mutation')}: {counts.applied} applied,"
            f" {counts.own + counts.stale + counts.ignored} already here or superseded,"
            f" {counts.deferred} deferred"
        )
        if counts.refused:
            typer.echo(
                f"refused {plural(counts.refused, 'mutation')} of other projects in this"
                " project's log: a pull applies only the project it pulls",
                err=True,
            )
    else:
        typer.echo(
            f"pushed {plural(report.pushed, 'mutation')} to {server}"
            f" ({report.duplicates} already there)"
        )


def _print_status(state: dict[str, object], as_json: bool) -> None:
    if as_json:
        emit_json(state)
    else:
        typer.echo(f"cloud: {state['server']} project {state['project']}")
        typer.echo(
            f"local: {state['pending_mutations']} mutations pending to push,"
            f" pulled through remote seq {state['pulled_seq']}"
        )
        remote = state["remote_chunks"]
        typer.echo(
            f"remote: {remote if remote is not None else '?'} chunks,"
            f" {state['remote_pending'] if state['remote_pending'] is not None else '?'}"
            " mutations not pulled yet"
        )
    if state["reason_code"]:
        raise EngramError(
            f"cloud.{state['reason_code']}",
            f"{state['reason_code']}: {state.get('reason_message', '')}",
            "see docs/cloud.md (Troubleshooting)",
        )
