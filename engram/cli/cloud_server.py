"""Server-side ``engram cloud`` commands: ``serve``, ``bootstrap admin|recover-token``,
``repair materialize-mutations``. They talk to Postgres (``ENGRAM_DATABASE_URL``), never to the
local store. psycopg, Starlette and uvicorn are imported inside the commands."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from engram.cli.output import emit_json, plural
from engram.cli.token_output import TokenFileOption, show_token
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
    """Run the cloud server (sync API, admin API, dashboard) over Postgres.

    With ENGRAM_DATABASE_URL unset it starts (and stops) its own PostgreSQL under the data
    dir, with generated secrets kept there; see docs/cloud.md."""
    from engram.cloud.app import serve
    from engram.cloud.settings import CloudSettings

    if os.environ.get("ENGRAM_DATABASE_URL", "").strip():
        serve(CloudSettings.from_env())
        return
    from engram.cloud.embedded_postgres import EmbeddedPostgres, team_dir
    from engram.cloud.team_secrets import server_environment

    # uvicorn re-raises the SIGTERM it caught once it has shut down; as an exception it lets
    # the cluster below stop in order instead of being orphaned.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGHUP, _exit_on_signal)
    with EmbeddedPostgres(team_dir()).start() as pg:
        settings = CloudSettings.from_env(server_environment(pg, os.environ))
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
        banner = [
            f"database: {pg.describe()}",
            f"dashboard: http://{host}:{settings.port}/dashboard",
            "first admin (in another terminal): engram cloud bootstrap admin --username YOU"
            " --issue-token",
        ]
        serve(settings, banner=banner)


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(0)


@contextmanager
def _open_cloud_store() -> Iterator[tuple[CloudStore, Mapping[str, str]]]:
    """The cloud database and the environment its server runs with: ENGRAM_DATABASE_URL's,
    or the embedded team server's (attached when `engram cloud serve` runs it, else started
    for this command)."""
    from engram.cloud.store.db import CloudStore

    if os.environ.get("ENGRAM_DATABASE_URL", "").strip():
        with CloudStore.open(os.environ["ENGRAM_DATABASE_URL"].strip(), max_size=2) as store:
            yield store, os.environ
        return
    from engram.cloud.embedded_postgres import EmbeddedPostgres, team_dir
    from engram.cloud.team_secrets import server_environment

    pg = EmbeddedPostgres(team_dir())
    with contextlib.ExitStack() as stack:
        if not pg.attach():
            stack.enter_context(pg.start())
        env = server_environment(pg, os.environ)
        with CloudStore.open(env["ENGRAM_DATABASE_URL"], max_size=2) as store:
            yield store, env


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
    token_file: TokenFileOption = None,
) -> None:
    """Create the first managed admin (refused when one already exists)."""
    from engram.cloud.bootstrap import bootstrap_admin
    from engram.cloud.settings import pepper_from_env

    with _open_cloud_store() as (store, env):
        pepper = pepper_from_env(env) if issue_token is not None else ""
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
    show_token(result.raw_token, result.token, token_file)


@bootstrap_app.command("recover-token")
def recover_token_command(
    name: Annotated[str, typer.Option("--name", help="Name of the new token.")] = "recovered",
    revoke_existing: Annotated[
        bool,
        typer.Option("--revoke-existing", help="Replace the sole admin's unused token."),
    ] = False,
    token_file: TokenFileOption = None,
) -> None:
    """Issue a token for the stranded sole managed admin (only in the documented states)."""
    from engram.cloud.bootstrap import recover_token
    from engram.cloud.settings import pepper_from_env

    with _open_cloud_store() as (store, env):
        pepper = pepper_from_env(env)
        result = recover_token(store, pepper=pepper, name=name, revoke_existing=revoke_existing)
    typer.echo(f"recovered a token for admin {result.user['username']}")
    show_token(result.raw_token, result.token, token_file)


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
    with _open_cloud_store() as (store, _env):
        report = materialize_project(store, project, apply=apply)
    if as_json:
        emit_json(report.__dict__)
        return
    verb = "materialized" if apply else "would materialize"
    typer.echo(
        f"{project}: {verb} {plural(report.mutations, 'mutation')}"
        f" into {plural(report.chunks, 'chunk')}"
    )


def register(cloud_app: typer.Typer) -> None:
    """Add the server-side commands to the ``cloud`` group."""
    cloud_app.command("serve")(serve_command)
    cloud_app.add_typer(bootstrap_app)
    cloud_app.add_typer(repair_app)


__all__ = ["EngramError", "register"]
