"""``engram cloud user|token|grant``: manage a team's users, tokens and grants from the shell,
through the server's admin API with a managed admin's token (the global remote of
``engram cloud config``, or ``ENGRAM_CLOUD_SERVER`` / ``ENGRAM_CLOUD_TOKEN``). The dashboard does
the same in a browser; raw tokens are printed once, like ``bootstrap``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import typer

from engram.cli.output import emit_json
from engram.cli.token_output import TokenFileOption, show_token
from engram.errors import EngramError

user_app = typer.Typer(name="user", help="Team users (managed admin token).", no_args_is_help=True)
token_app = typer.Typer(name="token", help="Users' sync tokens.", no_args_is_help=True)
grant_app = typer.Typer(name="grant", help="Which projects a user reaches.", no_args_is_help=True)
JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]
Username = Annotated[str, typer.Argument(help="The user's username.")]


def _call(method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    from engram.store.datadir import resolve_data_dir
    from engram.sync.cloud.client import CloudClient, CloudSyncError
    from engram.sync.cloud.config import CloudConfig

    remote = CloudConfig.load(resolve_data_dir()).global_remote()
    if remote is None:
        raise EngramError(
            "cloud.cloud_config_error",
            "cloud_config_error: no cloud server is configured",
            "run engram cloud config --server URL --token ADMIN_TOKEN",
        )
    if not remote.token:
        raise EngramError(
            "cloud.auth_required",
            f"auth_required: no token for {remote.server_url}",
            "run engram cloud config --server URL --token ADMIN_TOKEN (a managed admin's token)",
        )
    try:
        return CloudClient(remote).admin(method, path, body)
    except CloudSyncError as exc:
        raise EngramError(
            f"cloud.{exc.reason_code}", f"{exc.reason_code}: {exc.message}", exc.remedy()
        ) from None


def _principal(username: str) -> str:
    for user in _call("GET", "/admin/users"):
        if user.get("username") == username:
            return str(user["principal_id"])
    raise EngramError(
        "cloud.unknown_user",
        f"no user {username!r} on the cloud server",
        "list them with engram cloud user list",
    )


def _issue(principal_id: str, name: str, token_file: Path | None) -> None:
    made = _call("POST", f"/admin/users/{principal_id}/tokens", {"name": name})
    show_token(made["raw_token"], made["token"], token_file)


@user_app.command("add")
def user_add(
    username: Username,
    email: Annotated[str, typer.Option("--email", help="The user's email.")] = "",
    admin: Annotated[bool, typer.Option("--admin", help="Make the user an admin.")] = False,
    grant_project: Annotated[
        list[str] | None, typer.Option("--grant-project", help="Grant this project (repeatable).")
    ] = None,
    issue_token: Annotated[
        str | None, typer.Option("--issue-token", help="Also issue a token with this name.")
    ] = None,
    token_file: TokenFileOption = None,
) -> None:
    """Create a user, grant projects, optionally issue a token (printed once)."""
    body = {"username": username, "email": email, "role": "admin" if admin else "member"}
    user = _call("POST", "/admin/users", body)
    typer.echo(f"created {user['role']} {user['username']} ({user['principal_id']})")
    for project in grant_project or []:
        _call("POST", f"/admin/users/{user['principal_id']}/grants", {"project": project})
        typer.echo(f"granted project {project}")
    if issue_token:
        _issue(user["principal_id"], issue_token, token_file)


@user_app.command("list")
def user_list(as_json: JsonOption = False) -> None:
    """List the team's users."""
    users = _call("GET", "/admin/users")
    if as_json:
        emit_json(users)
        return
    for user in users:
        state = "enabled" if user["enabled"] else "disabled"
        typer.echo(f"{user['username']}  {user['role']}  {state}  {user['principal_id']}")


def _set_enabled(username: str, enabled: bool) -> None:
    verb = "enable" if enabled else "disable"
    _call("POST", f"/admin/users/{_principal(username)}/{verb}")
    typer.echo(f"user {username} {verb}d")


@user_app.command("disable")
def user_disable(username: Username) -> None:
    """Disable a user: every token of theirs fails on the next request."""
    _set_enabled(username, False)


@user_app.command("enable")
def user_enable(username: Username) -> None:
    """Enable a disabled user again."""
    _set_enabled(username, True)


@token_app.command("issue")
def token_issue(
    username: Username,
    name: Annotated[str, typer.Option("--name", help="A name for the token.")] = "laptop",
    token_file: TokenFileOption = None,
) -> None:
    """Issue a token for a user (printed once)."""
    _issue(_principal(username), name, token_file)


@token_app.command("list")
def token_list(username: Username, as_json: JsonOption = False) -> None:
    """List a user's tokens (metadata only, never the token)."""
    tokens = _call("GET", f"/admin/users/{_principal(username)}/tokens")
    if as_json:
        emit_json(tokens)
        return
    for token in tokens:
        state = "revoked" if token["revoked_at"] else "active"
        typer.echo(f"{token['id']}  {token['name']}  {token['token_prefix']}…  {state}")


@token_app.command("revoke")
def token_revoke(
    token_id: Annotated[str, typer.Argument(help="The token's id (tok_…).")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the audit).")] = "",
) -> None:
    """Revoke a token: it fails on the next request."""
    _call("POST", f"/admin/tokens/{quote(token_id, safe='')}/revoke", {"reason": reason})
    typer.echo(f"token {token_id} revoked")


@grant_app.command("add")
def grant_add(
    username: Username, project: Annotated[str, typer.Argument(help="The project.")]
) -> None:
    """Let a user sync a project."""
    _call("POST", f"/admin/users/{_principal(username)}/grants", {"project": project})
    typer.echo(f"granted project {project} to {username}")


@grant_app.command("revoke")
def grant_revoke(
    username: Username, project: Annotated[str, typer.Argument(help="The project.")]
) -> None:
    """Take a project back from a user."""
    path = f"/admin/users/{_principal(username)}/grants/{quote(project, safe='')}/revoke"
    _call("POST", path)
    typer.echo(f"revoked project {project} from {username}")


@grant_app.command("list")
def grant_list(username: Username, as_json: JsonOption = False) -> None:
    """List the projects a user reaches."""
    grants = _call("GET", f"/admin/users/{_principal(username)}/grants")
    if as_json:
        emit_json(grants)
        return
    for grant in grants:
        typer.echo(grant["project"])


def register(cloud_app: typer.Typer) -> None:
    """Add ``user``, ``token`` and ``grant`` to the ``cloud`` group."""
    cloud_app.add_typer(user_app)
    cloud_app.add_typer(token_app)
    cloud_app.add_typer(grant_app)
