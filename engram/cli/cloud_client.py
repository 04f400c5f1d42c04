"""Client-side ``engram cloud`` commands: ``config``, ``status``, ``enroll``, ``unenroll``.

``engram sync --cloud`` lives with ``engram sync`` (:mod:`engram.cli.sync`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from engram.cli.output import emit_json

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]


def _data_dir() -> Path:
    from engram.store.datadir import resolve_data_dir

    return resolve_data_dir()


def config_command(
    server: Annotated[str | None, typer.Option("--server", help="The cloud server URL.")] = None,
    project: Annotated[
        str | None, typer.Option("--project", help="Route only this project to --server.")
    ] = None,
    token: Annotated[
        str | None,
        typer.Option("--token", help="The bearer token (the routed project's with --project)."),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file", help="Read the token from this file (mode 0600).", dir_okay=False
        ),
    ] = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="Send --project back to the global remote.")
    ] = False,
) -> None:
    """Persist the cloud server URL in cloud.json (or route one project to its own cloud)."""
    if token_file is not None:
        from engram.cli.token_output import read_token_file

        if token is not None:
            raise typer.BadParameter("pass --token or --token-file, not both")
        token = read_token_file(token_file)
    from engram.cli.selection import open_store
    from engram.sync.cloud.config import CloudConfig, normalize_url
    from engram.sync.cloud.enrollment import route_project

    if project is None:
        if clear:
            raise typer.BadParameter("--clear goes with --project")
        if not server:
            raise typer.BadParameter("pass --server URL")
        config = CloudConfig.load(_data_dir())
        config.server_url = normalize_url(server)
        if token is not None:
            config.token = token.strip()
        path = config.save(_data_dir())
        kept = " with its token (the file is 0600)" if token else ""
        typer.echo(f"cloud server set to {config.server_url}{kept} in {path}")
        return
    if clear and (server or token):
        raise typer.BadParameter("--clear cannot be combined with --server or --token")
    with open_store() as store:
        change = route_project(store, _data_dir(), project, server=server, token=token, clear=clear)
    where = change.remote.server_url if change.remote else "(no global server)"
    typer.echo(f"project {project} now syncs with {where}")
    if change.remote and change.remote.routed and not change.remote.token:
        typer.echo(
            "warning: no --token: autosync skips this project and sync --cloud fails", err=True
        )
    if change.catch_up_error:
        typer.echo(
            f"warning: catch-up pull failed ({change.catch_up_error}); routing kept — retry"
            f" with engram sync --cloud --import --project {project}",
            err=True,
        )
    elif change.caught_up is not None:
        typer.echo(f"caught up: {change.caught_up.pulled} remote mutations pulled")


def enroll_command(project: Annotated[str, typer.Argument(help="The project to enroll.")]) -> None:
    """Enroll one project for cloud replication."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.enrollment import enroll

    with open_store() as store:
        added = enroll(store, project)
    typer.echo(f"project {project} {'enrolled' if added else 'was already enrolled'}")


def unenroll_command(
    project: Annotated[str, typer.Argument(help="The project to unenroll.")],
) -> None:
    """Stop replicating one project (nothing is deleted locally or remotely)."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.enrollment import unenroll

    with open_store() as store:
        removed = unenroll(store, project)
    typer.echo(f"project {project} {'unenrolled' if removed else 'was not enrolled'}")


def status_command(as_json: JsonOption = False) -> None:
    """Show the cloud config, enrolled projects and their readiness (changes nothing)."""
    from engram.cli.selection import open_store
    from engram.sync.cloud.status import cloud_overview

    with open_store() as store:
        overview = cloud_overview(store, _data_dir())
    if as_json:
        emit_json(overview)
        return
    for line in overview["lines"]:
        typer.echo(line)


def register(cloud_app: typer.Typer) -> None:
    """Add the client-side commands to the ``cloud`` group."""
    cloud_app.command("config")(config_command)
    cloud_app.command("status")(status_command)
    cloud_app.command("enroll")(enroll_command)
    cloud_app.command("unenroll")(unenroll_command)
