"""``engram sync``: share memories through the repository's ``.engram/`` folder (docs/sync.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from engram.cli.output import emit_json, plural

if TYPE_CHECKING:
    from engram.store.db import Store
    from engram.sync.gitdir import SyncFolder
    from engram.sync.trust import TrustGate


def sync_command(
    import_chunks: Annotated[
        bool, typer.Option("--import", help="Apply every chunk not applied here yet.")
    ] = False,
    status: Annotated[
        bool, typer.Option("--status", help="Chunks in the repository vs applied, pending.")
    ] = False,
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            help="Export this project (default: current); with --import, apply only its"
            " chunks' mutations.",
        ),
    ] = None,
    confirm: Annotated[
        bool,
        typer.Option(
            "--confirm",
            help="With --import --project: trust this repository for that project (binds it).",
        ),
    ] = False,
    all_projects: Annotated[bool, typer.Option("--all", help="Export every project.")] = False,
    revisions: Annotated[
        bool, typer.Option("--revisions", help="List versions that lost a concurrent edit.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
    cloud: Annotated[
        bool,
        typer.Option(
            "--cloud", help="Sync one enrolled project with the cloud (ENGRAM_CLOUD_SYNC=1)."
        ),
    ] = False,
) -> None:
    """Write new memories as a chunk in .engram/ (commit it), or import teammates' chunks."""
    from engram.cli.selection import open_store
    from engram.sync.gitdir import locate

    if sum((import_chunks, status, revisions)) > 1:
        raise typer.BadParameter("use only one of --import, --status and --revisions")
    if all_projects and project is not None:
        raise typer.BadParameter("use either --project or --all, not both")
    if cloud or os.environ.get("ENGRAM_CLOUD_SYNC", "").strip() == "1":
        from engram.cli.cloud_sync import cloud_sync

        cloud_sync(project, all_projects, import_only=import_chunks, status=status, as_json=as_json)
        return
    folder = locate(Path.cwd())
    with open_store() as store:
        if revisions:
            _revisions(store, as_json)
        elif import_chunks:
            _import(store, folder, _import_gate(store, folder, project, confirm), as_json)
        elif status:
            _status(store, folder, _scope(store, project, all_projects, status=True), as_json)
        else:
            _export(store, folder, _scope(store, project, all_projects, status=False), as_json)


def _scope(store: Store, project: str | None, all_projects: bool, *, status: bool) -> str | None:
    from engram.cli.selection import read_project, write_project

    if all_projects:
        return None
    if status or project is not None:
        return read_project(store, project, False)
    return write_project(store, None)


def _export(store: Store, folder: SyncFolder, project: str | None, as_json: bool) -> None:
    from engram.sync.export import export_chunk

    report = export_chunk(store, folder, project=project)
    if as_json:
        emit_json(report.to_dict())
    elif report.chunk_id is None:
        typer.echo("nothing new to sync")
    else:
        many = len(report.chunk_ids) > 1
        what = f"{len(report.chunk_ids)} chunks" if many else f"chunk {report.chunk_id}"
        where = Path(report.path or "").parent if many else report.path
        typer.echo(
            f"wrote {what} ({plural(report.mutations, 'mutation')}) to {where} — commit .engram/ to share it"
        )


def _import_gate(store: Store, folder: SyncFolder, project: str | None, confirm: bool) -> TrustGate:
    """The projects this repository's chunks may write: bound ones, or ``--project`` once
    confirmed (``--confirm``, or yes at the prompt on a terminal)."""
    import sys

    from engram.memory.project import normalize_project_name
    from engram.sync.repository_trust import confirm_project, repository_trust, unconfirmed
    from engram.sync.trust import TrustGate

    trust = repository_trust(store, store.path.parent, folder.repo_root)
    if project is None:
        if not trust.projects:
            raise unconfirmed(trust, None)
        return trust.gate()
    name = normalize_project_name(project).name
    if name in trust.projects:
        return TrustGate.for_projects({name}, "git")
    if not confirm and sys.stdin.isatty():
        confirm = typer.confirm(
            f"trust this repository ({trust.origin}) with project {name!r}? its chunks can"
            " then change and delete that project's memories",
            default=False,
        )
    if not confirm:
        raise unconfirmed(trust, name)
    return confirm_project(store.path.parent, trust, name).gate()


def _import(store: Store, folder: SyncFolder, gate: TrustGate, as_json: bool) -> None:
    from engram.sync.importer import import_chunks

    report = import_chunks(store, folder, gate=gate)
    if as_json:
        emit_json(report.to_dict())
        return
    counts = report.counts
    typer.echo(
        f"imported {plural(len(report.chunks), 'chunk')}: {counts.applied} applied,"
        f" {counts.stale + counts.ignored + counts.own} already here or superseded,"
        f" {counts.deferred} deferred"
    )
    if counts.refused:
        others = ", ".join(repr(p) for p in sorted(report.refused_projects)) or "other projects"
        trusted = ", ".join(repr(p) for p in sorted(gate.projects))
        typer.echo(
            f"refused {plural(counts.refused, 'mutation')} of {others}: this repository is"
            f" trusted for {trusted} only ({plural(len(report.held), 'chunk')} kept for a later"
            " confirmation)",
            err=True,
        )
    if report.retried:
        typer.echo(
            f"retried {report.retried} deferred: {report.recovered} applied, {report.dead} dead"
        )
    for chunk_id in report.missing:
        typer.echo(f"warning: manifest lists chunk {chunk_id} but its file is missing", err=True)


def _status(store: Store, folder: SyncFolder, project: str | None, as_json: bool) -> None:
    from engram.sync.status import folder_status

    state = folder_status(store, folder, project)
    if as_json:
        emit_json(state.to_dict())
        return
    typer.echo(f"repository: {folder.path}")
    typer.echo(
        f"chunks: {state.repository_chunks} in the repository,"
        f" {state.chunks_applied} applied or written here,"
        f" {state.repository_chunks_not_applied} not imported yet"
    )
    typer.echo(f"pending: {plural(state.pending_mutations, 'local mutation')} not yet synced")
    typer.echo(
        f"deferred: {state.deferred_count} waiting, {state.dead_count} dead;"
        f" {state.revisions_kept} losing versions kept"
    )
    if state.last_sync_at:
        typer.echo(f"last sync: {state.last_sync_at}")


def _revisions(store: Store, as_json: bool) -> None:
    from engram.cli.output import one_line
    from engram.sync.status import kept_revisions

    kept = kept_revisions(store)
    if as_json:
        emit_json({"revisions": kept})
        return
    if not kept:
        typer.echo("no losing versions kept")
    for row in kept:
        payload = row["payload"]
        text = payload.get("title") or payload.get("summary") or payload.get("content") or ""
        typer.echo(
            f"{row['entity']} {row['key']}: version {row['clock']}@{row['origin']} lost to"
            f" {row['winner_clock']}@{row['winner_origin']} — {one_line(str(text), 60)}"
        )


def register(app: typer.Typer) -> None:
    """Add ``sync`` to the root app."""
    app.command("sync")(sync_command)
