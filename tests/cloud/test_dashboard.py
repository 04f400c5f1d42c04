"""The dashboard over HTTP against a real server and Postgres: sessions, access rules, CSRF,
HTMX partials, security headers. (The browser tests drive the same pages in Chromium.)"""

from __future__ import annotations

import re

import httpx2 as httpx
import psycopg
import pytest

from tests.cloud.conftest import SYNC_TOKEN, StartServer
from tests.cloud.dashboard_world import World, build_world


@pytest.fixture
def world(start_server: StartServer, database_url: str) -> World:
    return build_world(start_server, database_url, ENGRAM_TIMEZONE="Europe/Berlin")


def signed_in(world: World, token: str) -> httpx.Client:
    """A browser-like client with a dashboard session for ``token``."""
    client = httpx.Client(base_url=world.server.url, timeout=30, follow_redirects=False)
    form = client.get("/dashboard/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert csrf, form.text
    done = client.post("/dashboard/login", data={"token": token, "csrf": csrf.group(1)})
    assert done.status_code == 303, done.text
    return client


def csrf_of(client: httpx.Client, path: str = "/dashboard/") -> str:
    page = client.get(path)
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def test_login_sets_a_hardened_cookie_and_pages_carry_a_strict_csp(world: World) -> None:
    client = httpx.Client(base_url=world.server.url, timeout=30)
    assert client.get("/dashboard/", follow_redirects=False).headers["location"] == (
        "/dashboard/login"
    )
    form = client.get("/dashboard/login")
    # The sign-in page says which token to paste and how to get one.
    assert "egc_" in form.text and "engram cloud token issue" in form.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
    done = client.post(
        "/dashboard/login", data={"token": world.admin_token, "csrf": csrf}, follow_redirects=False
    )
    cookie = done.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/dashboard" in cookie
    assert world.admin_token not in cookie
    page = client.get("/dashboard/")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert "Use Postgres for the event store" in page.text
    assert re.search(r'<svg class="chart"', page.text)
    assert "Europe/Berlin" in page.text


def test_wrong_token_sync_token_and_missing_csrf_are_refused(world: World) -> None:
    client = httpx.Client(base_url=world.server.url, timeout=30)
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/dashboard/login").text).group(1)  # type: ignore[union-attr]
    bad = client.post("/dashboard/login", data={"token": "egc_nope", "csrf": csrf})
    assert bad.status_code == 401 and "not valid" in bad.text
    sync = client.post("/dashboard/login", data={"token": SYNC_TOKEN, "csrf": csrf})
    assert sync.status_code == 401 and "sync token" in sync.text
    forged = client.post("/dashboard/login", data={"token": world.admin_token})
    assert forged.status_code == 403
    assert client.get("/dashboard/", follow_redirects=False).status_code == 303


def test_htmx_gets_fragments_and_plain_get_full_pages(world: World) -> None:
    client = signed_in(world, world.admin_token)
    for path in (
        "/dashboard/browser/observations",
        "/dashboard/browser/sessions",
        "/dashboard/browser/prompts",
        "/dashboard/projects/list",
        "/dashboard/contributors/list",
        "/dashboard/projects/alpha/observations",
        "/dashboard/admin/users/list",
        "/dashboard/admin/audit-log/list",
    ):
        full = client.get(path)
        part = client.get(path, headers={"HX-Request": "true"})
        assert full.status_code == part.status_code == 200, path
        assert full.text.startswith("<!doctype html>"), path
        assert "<html" not in part.text and "<div id=" in part.text, path
    found = client.get("/dashboard/browser/observations?q=canary", headers={"HX-Request": "true"})
    assert "staging canary" in found.text and "event store" not in found.text


def test_member_sees_only_granted_projects_and_no_admin(world: World) -> None:
    client = signed_in(world, world.member_token)
    assert "Vault" not in client.get("/dashboard/browser/observations").text
    assert "Rate limit the login" in client.get("/dashboard/browser/observations").text
    assert client.get("/dashboard/projects/beta").status_code == 404
    for path in ("/dashboard/admin", "/dashboard/admin/users", "/dashboard/admin/audit-log"):
        assert client.get(path).status_code == 403, path
    csrf = csrf_of(client)
    assert (
        client.post("/dashboard/admin/users", data={"csrf": csrf, "username": "eve"}).status_code
        == 403
    )
    assert (
        client.post(
            "/dashboard/admin/projects/alpha/sync", data={"csrf": csrf, "enabled": "false"}
        ).status_code
        == 403
    )


def test_legacy_admin_reads_users_and_pauses_but_cannot_mutate_users(world: World) -> None:
    client = signed_in(world, world.legacy_admin_token)
    assert "mo" in client.get("/dashboard/admin/users").text
    csrf = csrf_of(client, "/dashboard/admin/users")
    refused = client.post("/dashboard/admin/users", data={"csrf": csrf, "username": "eve"})
    assert refused.status_code == 403
    revoke = client.post(f"/dashboard/admin/users/{world.member_id}/disable", data={"csrf": csrf})
    assert revoke.status_code == 403
    paused = client.post(
        "/dashboard/admin/projects/alpha/sync", data={"csrf": csrf, "enabled": "false"}
    )
    assert paused.status_code == 303
    assert "Paused" in client.get("/dashboard/projects").text
    users = world.client(world.admin_token).get("/admin/users").json()
    assert all(
        u["username"] != "eve" for u in (users if isinstance(users, list) else users["users"])
    )


def test_revoked_token_ends_its_session(world: World) -> None:
    member = signed_in(world, world.member_token)
    assert member.get("/dashboard/").status_code == 200
    admin = signed_in(world, world.admin_token)
    page = admin.get(f"/dashboard/admin/users/{world.member_id}")
    token_id = re.search(r"/dashboard/admin/tokens/([^/]+)/revoke", page.text).group(1)  # type: ignore[union-attr]
    csrf = csrf_of(admin)
    assert (
        admin.post(f"/dashboard/admin/tokens/{token_id}/revoke", data={"csrf": csrf}).status_code
        == 303
    )
    assert member.get("/dashboard/", follow_redirects=False).headers["location"] == (
        "/dashboard/login"
    )


def test_bootstrap_is_only_for_the_legacy_admin_and_refused_once_an_admin_exists(
    world: World,
) -> None:
    managed = signed_in(world, world.admin_token)
    assert managed.get("/dashboard/bootstrap").status_code == 403
    legacy = signed_in(world, world.legacy_admin_token)
    form = legacy.get("/dashboard/bootstrap")
    assert form.status_code == 200 and "already exists" in form.text
    csrf = csrf_of(legacy)
    again = legacy.post("/dashboard/bootstrap", data={"csrf": csrf, "username": "zed"})
    assert again.status_code == 409


def test_static_assets_are_served_and_nothing_else(world: World) -> None:
    client = httpx.Client(base_url=world.server.url, timeout=30)
    assert client.get("/dashboard/static/htmx.min.js").status_code == 200
    assert (
        client.get("/dashboard/static/dashboard.css").headers["content-type"].startswith("text/css")
    )
    assert client.get("/dashboard/static/..%2F..%2Fsettings.py").status_code == 404
    assert client.get("/dashboard/static/VENDORED.md").status_code == 404
    assert client.get("/dashboard/health").json()["status"] == "ok"


def test_legacy_admin_bootstraps_the_first_admin_once(
    start_server: StartServer, database_url: str
) -> None:
    from tests.cloud.conftest import ADMIN_TOKEN, server_env

    server = start_server(server_env(database_url))
    client = httpx.Client(base_url=server.url, timeout=30, follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/dashboard/login").text).group(1)  # type: ignore[union-attr]
    assert (
        client.post("/dashboard/login", data={"token": ADMIN_TOKEN, "csrf": csrf}).status_code
        == 303
    )
    form = client.get("/dashboard/bootstrap")
    assert form.status_code == 200 and 'name="username"' in form.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
    bad = client.post("/dashboard/bootstrap", data={"csrf": csrf, "username": "no spaces"})
    assert bad.status_code == 400
    made = client.post("/dashboard/bootstrap", data={"csrf": csrf, "username": "root"})
    assert made.status_code == 303
    assert made.headers["location"].startswith("/dashboard/admin/users/usr_")
    again = client.post("/dashboard/bootstrap", data={"csrf": csrf, "username": "root2"})
    assert again.status_code == 409
    with psycopg.connect(database_url) as conn:
        outcomes = conn.execute(
            "SELECT outcome, reason FROM cloud_auth_audit_log"
            " WHERE event = 'dashboard.bootstrap' ORDER BY id"
        ).fetchall()
        admins = conn.execute(
            "SELECT count(*) FROM cloud_principals WHERE role = 'admin'"
        ).fetchone()
    assert outcomes == [("allowed", ""), ("denied", "admin_exists")]
    assert admins == (1,)
