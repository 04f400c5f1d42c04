"""The ``/admin/*`` JSON API.

Users, tokens and grants need a managed-token admin (legacy admins and members get 403).
Project sync controls and the audit logs are also open to the legacy ``ENGRAM_CLOUD_ADMIN``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from engram.cloud import identity
from engram.cloud.gate import managed_admin, project_controller
from engram.cloud.new_projects import project_name, require_not_a_variant
from engram.cloud.problems import CloudProblem, invalid
from engram.cloud.routes.requests import admitted, context, int_param, offload, read_json
from engram.cloud.store import auth_audit, principals, projects
from engram.cloud.store.db import CloudStore

ADMIN_BODY_LIMIT = 64 * 1024


def jsonable(value: Any) -> Any:
    """Rows with datetimes as ISO-8601 strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def _in_transaction(store: CloudStore, func: Callable[..., Any], *args: Any) -> Any:
    with store.transaction() as conn:
        return func(conn, *args)


async def _run(
    request: Request, func: Callable[..., Any], *args: Any, status: int = 200
) -> JSONResponse:
    result = await offload(_in_transaction, context(request).store, func, *args)
    return JSONResponse(jsonable(result), status_code=status)


def _text(body: dict[str, Any], name: str) -> str:
    value = body.get(name, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise invalid("invalid_request", f"{name} must be a string")
    return value


async def list_users(request: Request) -> JSONResponse:
    await admitted(request, "admin.users", require=managed_admin)
    return await _run(request, principals.list_users)


async def create_user(request: Request) -> JSONResponse:
    body = await read_json(request, ADMIN_BODY_LIMIT)
    await admitted(request, "admin.users.create", require=managed_admin)

    def create(conn: Any) -> Any:
        return identity.create_user(
            conn,
            _text(body, "username"),
            email=_text(body, "email"),
            display_name=_text(body, "display_name"),
            role=_text(body, "role") or "member",
        )

    return await _run(request, create, status=201)


def _set_enabled(enabled: bool) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> JSONResponse:
        await admitted(request, "admin.users.enable", require=managed_admin)
        principal_id = request.path_params["principal_id"]
        return await _run(request, identity.set_enabled, principal_id, enabled)

    return endpoint


async def list_tokens(request: Request) -> JSONResponse:
    await admitted(request, "admin.tokens", require=managed_admin)
    principal_id = request.path_params["principal_id"]

    def tokens(conn: Any) -> Any:
        identity.require_user(conn, principal_id)
        return principals.list_tokens(conn, principal_id)

    return await _run(request, tokens)


async def create_token(request: Request) -> JSONResponse:
    body = await read_json(request, ADMIN_BODY_LIMIT)
    caller = await admitted(request, "admin.tokens.create", require=managed_admin)
    pepper = context(request).settings.token_pepper
    if not pepper:
        raise CloudProblem(
            409, "blocked", "pepper_required", "ENGRAM_CLOUD_TOKEN_PEPPER is not set on the server"
        )
    principal_id = request.path_params["principal_id"]

    def issue(conn: Any) -> Any:
        raw, token = identity.issue_token(
            conn, pepper, principal_id, _text(body, "name"), caller.id
        )
        return {"raw_token": raw, "token": token}

    return await _run(request, issue, status=201)


async def revoke_token(request: Request) -> JSONResponse:
    body = await read_json(request, ADMIN_BODY_LIMIT)
    await admitted(request, "admin.tokens.revoke", require=managed_admin)
    token_id = request.path_params["token_id"]
    return await _run(request, identity.revoke_token, token_id, _text(body, "reason"))


async def list_grants(request: Request) -> JSONResponse:
    await admitted(request, "admin.grants", require=managed_admin)
    principal_id = request.path_params["principal_id"]

    def grants(conn: Any) -> Any:
        identity.require_user(conn, principal_id)
        return principals.list_grants(conn, principal_id)

    return await _run(request, grants)


async def create_grant(request: Request) -> JSONResponse:
    body = await read_json(request, ADMIN_BODY_LIMIT)
    caller = await admitted(request, "admin.grants.create", require=managed_admin)
    principal_id = request.path_params["principal_id"]
    return await _run(
        request, identity.grant, principal_id, _text(body, "project"), caller.id, status=201
    )


async def revoke_grant(request: Request) -> JSONResponse:
    await admitted(request, "admin.grants.revoke", require=managed_admin)
    params = request.path_params
    return await _run(request, identity.revoke_grant, params["principal_id"], params["project"])


async def list_projects(request: Request) -> JSONResponse:
    await admitted(request, "admin.projects", require=project_controller)
    return await _run(request, projects.list_projects)


async def set_project_sync(request: Request) -> JSONResponse:
    body = await read_json(request, ADMIN_BODY_LIMIT)
    caller = await admitted(request, "admin.projects.sync", require=project_controller)
    enabled = body.get("enabled")
    if not isinstance(enabled, bool):
        raise invalid("invalid_request", 'body must be {"enabled": true|false}')
    name = project_name(request.path_params["name"])

    def set_sync(conn: Any) -> Any:
        require_not_a_variant(conn, name)
        return projects.set_sync_enabled(conn, name, enabled, caller.label)

    return await _run(request, set_sync)


async def sync_audit_log(request: Request) -> JSONResponse:
    await admitted(request, "admin.audit_log", require=project_controller)
    project = request.query_params.get("project") or None
    limit, offset = min(int_param(request, "limit", 50), 500), int_param(request, "offset", 0)

    def rows(conn: Any) -> Any:
        return projects.list_sync_audit(conn, project=project, limit=limit, offset=offset)

    return await _run(request, rows)


async def auth_audit_log(request: Request) -> JSONResponse:
    await admitted(request, "admin.auth_audit_log", require=project_controller)
    event = request.query_params.get("event") or None
    limit, offset = min(int_param(request, "limit", 50), 500), int_param(request, "offset", 0)

    def rows(conn: Any) -> Any:
        return auth_audit.list_events(conn, event=event, limit=limit, offset=offset)

    return await _run(request, rows)


def routes() -> list[BaseRoute]:
    users = "/admin/users/{principal_id}"
    return [
        Route("/admin/users", list_users, methods=["GET"]),
        Route("/admin/users", create_user, methods=["POST"]),
        Route(f"{users}/enable", _set_enabled(True), methods=["POST"]),
        Route(f"{users}/disable", _set_enabled(False), methods=["POST"]),
        Route(f"{users}/tokens", list_tokens, methods=["GET"]),
        Route(f"{users}/tokens", create_token, methods=["POST"]),
        Route("/admin/tokens/{token_id}/revoke", revoke_token, methods=["POST"]),
        Route(f"{users}/grants", list_grants, methods=["GET"]),
        Route(f"{users}/grants", create_grant, methods=["POST"]),
        Route(f"{users}/grants/{{project:path}}/revoke", revoke_grant, methods=["POST"]),
        Route("/admin/projects", list_projects, methods=["GET"]),
        Route("/admin/projects/{name:path}/sync", set_project_sync, methods=["POST"]),
        Route("/admin/audit-log", sync_audit_log, methods=["GET"]),
        Route("/admin/auth-audit-log", auth_audit_log, methods=["GET"]),
    ]
