"""Every dashboard route, in the seed's tree (mounted by the cloud app's ROUTE_GROUPS)."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from engram.cloud.dashboard import admin_pages as admin
from engram.cloud.dashboard import auth_pages as auth
from engram.cloud.dashboard import pages

D = "/dashboard"
GET, POST = ["GET"], ["POST"]


def routes() -> list[BaseRoute]:
    """The route tree: public, protected, admin, bootstrap."""
    users = f"{D}/admin/users/{{principal_id}}"
    return [
        # Public
        Route(f"{D}/health", auth.health, methods=GET),
        Route(f"{D}/login", auth.login_form, methods=GET),
        Route(f"{D}/login", auth.login, methods=POST),
        Route(f"{D}/logout", auth.logout, methods=POST),
        Route(f"{D}/static/{{name}}", auth.static, methods=GET),
        # Protected
        Route(D, pages.overview, methods=GET),
        Route(f"{D}/", pages.overview, methods=GET),
        Route(f"{D}/stats", pages.stats, methods=GET),
        Route(f"{D}/activity", pages.activity, methods=GET),
        Route(f"{D}/browser", pages.browser, methods=GET),
        Route(f"{D}/browser/observations", pages.browser_observations, methods=GET),
        Route(f"{D}/browser/sessions", pages.browser_sessions, methods=GET),
        Route(f"{D}/browser/sessions/{{session_id}}", pages.session_by_id, methods=GET),
        Route(f"{D}/browser/prompts", pages.browser_prompts, methods=GET),
        Route(f"{D}/projects", pages.projects, methods=GET),
        Route(f"{D}/projects/list", pages.projects, methods=GET),
        Route(f"{D}/projects/{{name}}/observations", pages.project_observations, methods=GET),
        Route(f"{D}/projects/{{name}}/sessions", pages.project_sessions, methods=GET),
        Route(f"{D}/projects/{{name}}/prompts", pages.project_prompts, methods=GET),
        Route(f"{D}/projects/{{project}}", pages.project_detail, methods=GET),
        Route(f"{D}/contributors", pages.contributors, methods=GET),
        Route(f"{D}/contributors/list", pages.contributors, methods=GET),
        Route(f"{D}/contributors/{{contributor}}", pages.contributor, methods=GET),
        Route(f"{D}/sessions/{{project}}/{{session_id}}", pages.session_detail, methods=GET),
        Route(
            f"{D}/observations/{{project}}/{{session_id}}/{{sync_id}}",
            pages.observation_detail,
            methods=GET,
        ),
        Route(
            f"{D}/prompts/{{project}}/{{session_id}}/{{sync_id}}",
            pages.prompt_detail,
            methods=GET,
        ),
        # Admin
        Route(f"{D}/admin", admin.admin_home, methods=GET),
        Route(f"{D}/admin/projects", admin.admin_projects, methods=GET),
        Route(f"{D}/admin/projects/{{name}}/sync", admin.set_sync, methods=POST),
        Route(f"{D}/admin/projects/{{name}}/sync/form", admin.sync_form, methods=GET),
        Route(f"{D}/admin/users", admin.users, methods=GET),
        Route(f"{D}/admin/users", admin.create_user, methods=POST),
        Route(f"{D}/admin/users/list", admin.users, methods=GET),
        Route(users, admin.user_detail, methods=GET),
        Route(f"{users}/enable", admin.enable_user, methods=POST),
        Route(f"{users}/disable", admin.disable_user, methods=POST),
        Route(f"{users}/tokens", admin.create_token, methods=POST),
        Route(f"{D}/admin/tokens/{{token_id}}/revoke", admin.revoke_token, methods=POST),
        Route(f"{users}/grants", admin.create_grant, methods=POST),
        Route(f"{users}/grants/{{project}}/revoke", admin.revoke_grant, methods=POST),
        Route(f"{D}/admin/health", admin.admin_health, methods=GET),
        Route(f"{D}/admin/audit-log", admin.audit_log, methods=GET),
        Route(f"{D}/admin/audit-log/list", admin.audit_log, methods=GET),
        # Bootstrap / recovery
        Route(f"{D}/bootstrap", auth.bootstrap_form, methods=GET),
        Route(f"{D}/bootstrap", auth.bootstrap, methods=POST),
    ]
