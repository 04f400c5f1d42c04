"""``engram cloud upgrade doctor|repair|bootstrap|remirror|status|rollback --project P``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from engram.cli.output import emit_json

upgrade_app = typer.Typer(
    name="upgrade",
    help="Bring an existing local project's history into the cloud (and back out).",
    no_args_is_help=True,
)
ProjectOption = Annotated[str, typer.Option("--project", help="The project to upgrade.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]


def _data_dir() -> Path:
    from engram.store.datadir import resolve_data_dir

    return resolve_data_dir()


@upgrade_app.command("doctor")
def doctor_command(project: ProjectOption, as_json: JsonOption = False) -> None:
    """Read-only readiness diagnosis: ready | blocked (class/reason)."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.upgrade import diagnose

    with open_store() as store:
        found = diagnose(store, _data_dir(), project)
    if as_json:
        emit_json(found.to_dict())
        return
    if found.status == "ready":
        typer.echo(f"{project}: ready")
    else:
        typer.echo(f"{project}: blocked ({found.repair_class}/{found.reason_code}) {found.message}")
    for finding in found.findings:
        typer.echo(f"  {finding}")


@upgrade_app.command("repair")
def repair_command(
    project: ProjectOption,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list the actions.")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Apply the local repairs.")] = False,
) -> None:
    """Plan (--dry-run) or apply (--apply) local-safe repairs; nothing remote changes."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.upgrade import repair

    if dry_run == apply:
        raise typer.BadParameter("pass exactly one of --dry-run or --apply")
    with open_store() as store:
        actions = repair(store, project, apply=apply, data_dir=_data_dir())
    if not actions:
        typer.echo(f"{project}: nothing to repair")
    for action in actions:
        typer.echo(f"{'applied' if apply else 'would'}: {action}")


@upgrade_app.command("bootstrap")
def bootstrap_command(
    project: ProjectOption,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue from the last checkpoint.")
    ] = False,
) -> None:
    """Enroll, push and verify, with a checkpoint after each stage (--resume continues)."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.upgrade import bootstrap

    with open_store() as store:
        state = bootstrap(store, _data_dir(), project)
    typer.echo(f"{project}: {state['stage']}")


@upgrade_app.command("remirror")
def remirror_command(project: ProjectOption) -> None:
    """Rebuild the cloud copy from the authoritative local data (re-push everything)."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.upgrade import remirror

    with open_store() as store:
        report = remirror(store, _data_dir(), project)
    typer.echo(
        f"{project}: re-sent {report.pushed + report.duplicates} mutations"
        f" ({report.pushed} new to the cloud)"
    )


@upgrade_app.command("status")
def status_command(project: ProjectOption, as_json: JsonOption = False) -> None:
    """Show the upgrade stage, class and reason."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.upgrade import upgrade_status

    with open_store() as store:
        state = upgrade_status(store, project)
    if as_json:
        emit_json(state)
        return
    reason = f" ({state['reason_message']})" if state["reason_message"] else ""
    typer.echo(f"{project}: stage {state['stage']}{reason}")


@upgrade_app.command("rollback")
def rollback_command(project: ProjectOption) -> None:
    """Restore the pre-upgrade snapshot (refused after bootstrap_verified)."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.upgrade import rollback

    with open_store() as store:
        stage = rollback(store, project)
    typer.echo(f"{project}: rolled back from {stage}; nothing was deleted locally or remotely")


def register(cloud_app: typer.Typer) -> None:
    """Add ``cloud upgrade`` to the ``cloud`` group."""
    cloud_app.add_typer(upgrade_app)
