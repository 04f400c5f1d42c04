"""Server-side ``engram cloud`` commands: ``serve``, ``bootstrap admin|recover-token``,
``repair materialize-mutations``. They talk to Postgres (``ENGRAM_DATABASE_URL``), never to the
local store. psycopg, Starlette and uvicorn are imported inside the commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from engram.cli.output import emit_json
from engram.errors import EngramError

if TYPE_CHECKING:
    from engram.cloud.store.db import CloudStore

DEFAULT_TOKEN_NAME = "bootstrap"
bootstrap_app = typer.Typer(
    name="bootstrap",
    help="Create the first managed admin, or recover its token.",
    no_args_is_help=True,
)
repair_app = typer.Typer(
    name="repair", help="Server-side repairs of the cloud database.", no_args_is_help=True
)


def serve_command() -> None:
    """Run the cloud server (sync API + admin API) over Postgres, configured by env vars."""
    from engram.cloud.app import serve
    from engram.cloud.settings import CloudSettings

    serve(CloudSettings.from_env())


def _open_cloud_store() -> CloudStore:
    from engram.cloud.settings import database_url_from_env
    from engram.cloud.store.db import CloudStore

    return CloudStore.open(database_url_from_env(), max_size=2)


def _print_token(raw: str | None, token: dict[str, object] | None) -> None:
    if raw is None or token is None:
        return
    typer.echo(f"token {token['name'] or token['id']} ({token['id']}) — shown once, store it now:")
    typer.echo(raw)


class _OptionalTokenName(TyperCommand):
    """``--issue-token [name]``: the option's value may be left out (Typer's parser has no
    optional values, so a bare ``--issue-token`` gets the default name here)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        fixed: list[str] = []
        for index, arg in enumerate(args):
            fixed.append(arg)
            following = args[index + 1] if index + 1 < len(args) else "--"
            if arg == "--issue-token" and following.startswith("--"):
                fixed.append(DEFAULT_TOKEN_NAME)
        return list(super().parse_args(ctx, fixed))


@bootstrap_app.command("admin", cls=_OptionalTokenName)
def bootstrap_admin_command(
    username: Annotated[str, typer.Option("--username", help="The admin's username.")],
    email: Annotated[str, typer.Option("--email", help="The admin's email.")] = "",
    grant_project: Annotated[
        list[str] | None,
        typer.Option("--grant-project", help="Grant this project (repeatable)."),
    ] = None,
    issue_token: Annotated[
        str | None,
        typer.Option(
            "--issue-token",
            help="Also issue a sync token with this name (printed once).",
        ),
    ] = None,
) -> None:
    """Create the first managed admin (refused when one already exists)."""
    from engram.cloud.bootstrap import bootstrap_admin
    from engram.cloud.settings import pepper_from_env

    pepper = pepper_from_env() if issue_token is not None else ""
    with _open_cloud_store() as store:
        result = bootstrap_admin(
            store,
            username=username,
            email=email,
            grant_projects=list(grant_project or []),
            token_name=issue_token,
            pepper=pepper,
        )
    user = result.user
    typer.echo(f"created admin {user['username']} ({user['principal_id']})")
    for project in result.grants:
        typer.echo(f"granted project {project}")
    _print_token(result.raw_token, result.token)


@bootstrap_app.command("recover-token")
def recover_token_command(
    name: Annotated[str, typer.Option("--name", help="Name of the new token.")] = "recovered",
    revoke_existing: Annotated[
        bool,
        typer.Option("--revoke-existing", help="Replace the sole admin's unused token."),
    ] = False,
) -> None:
    """Issue a token for the stranded sole managed admin (only in the documented states)."""
    from engram.cloud.bootstrap import recover_token
    from engram.cloud.settings import pepper_from_env

    pepper = pepper_from_env()
    with _open_cloud_store() as store:
        result = recover_token(store, pepper=pepper, name=name, revoke_existing=revoke_existing)
    typer.echo(f"recovered a token for admin {result.user['username']}")
    _print_token(result.raw_token, result.token)


@repair_app.command("materialize-mutations")
def materialize_command(
    project: Annotated[str, typer.Option("--project", help="The cloud project.")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report only.")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Insert the missing chunks.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Backfill cloud chunks for mutations accepted before they were materialized."""
    from engram.cloud.materialize import materialize_project

    if dry_run == apply:
        raise typer.BadParameter("pass exactly one of --dry-run or --apply")
    with _open_cloud_store() as store:
        report = materialize_project(store, project, apply=apply)
    if as_json:
        emit_json(report.__dict__)
        return
    verb = "materialized" if apply else "would materialize"
    typer.echo(f"{project}: {verb} {report.mutations} mutation(s) into {report.chunks} chunk(s)")


def register(cloud_app: typer.Typer) -> None:
    """Add the server-side commands to the ``cloud`` group."""
    cloud_app.command("serve")(serve_command)
    cloud_app.add_typer(bootstrap_app)
    cloud_app.add_typer(repair_app)


__all__ = ["EngramError", "register"]
