"""Managed users, tokens, grants and the legacy env tokens, against a real server."""

from __future__ import annotations

import subprocess

import psycopg

from tests.cloud.conftest import (
    ADMIN_TOKEN,
    ENGRAM,
    PEPPER,
    SYNC_TOKEN,
    CloudServer,
    StartServer,
    server_env,
)
from tests.cloud.entries import observation


def _cli(database_url: str, *args: str, pepper: str = PEPPER) -> subprocess.CompletedProcess[str]:
    env = {"ENGRAM_DATABASE_URL": database_url, "PATH": "/usr/bin:/bin"}
    if pepper:
        env["ENGRAM_CLOUD_TOKEN_PEPPER"] = pepper
    return subprocess.run(
        [str(ENGRAM), "cloud", *args], capture_output=True, text=True, env=env, timeout=60
    )


def _push(server: CloudServer, token: str, project: str, clock: int = 1) -> int:
    body = {"project": project, "entries": [observation("dev", clock, project=project)]}
    return server.client(token).post("/sync/mutations/push", json=body).status_code


def _bootstrap(database_url: str, *extra: str) -> str:
    result = _cli(database_url, "bootstrap", "admin", "--username", "alice", *extra)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_bootstrap_admin_token_reaches_only_granted_projects(
    cloud: CloudServer, database_url: str
) -> None:
    raw = _bootstrap(database_url, "--grant-project", "alpha", "--issue-token", "first")
    assert raw.startswith("egc_")
    assert _push(cloud, raw, "alpha") == 200
    denied = cloud.client(raw).get("/sync/mutations/pull", params={"project": "beta"})
    assert denied.status_code == 403
    assert denied.json()["error_code"] == "policy_forbidden"
    again = _cli(database_url, "bootstrap", "admin", "--username", "bob")
    assert again.returncode == 1
    assert again.stderr.startswith("error: a managed admin already exists")
    with psycopg.connect(database_url) as conn:
        events = conn.execute(
            "SELECT outcome FROM cloud_auth_audit_log WHERE event = 'bootstrap.cli' ORDER BY id"
        ).fetchall()
        dump = str(conn.execute("SELECT * FROM cloud_auth_audit_log").fetchall())
        dump += str(conn.execute("SELECT * FROM cloud_tokens").fetchall())
    assert events == [("allowed",), ("denied",)]
    assert raw not in dump and raw[4:] not in dump


def test_bootstrap_with_a_token_needs_the_pepper_and_creates_nothing_without_it(
    database_url: str, cloud: CloudServer
) -> None:
    result = _cli(
        database_url, "bootstrap", "admin", "--username", "alice", "--issue-token", pepper=""
    )
    assert result.returncode == 1
    assert "ENGRAM_CLOUD_TOKEN_PEPPER is not set" in result.stderr
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT COUNT(*) FROM cloud_principals").fetchone() == (0,)


def test_admin_api_manages_members_and_changes_apply_on_the_next_request(
    cloud: CloudServer, database_url: str
) -> None:
    admin = cloud.client(_bootstrap(database_url, "--issue-token"))
    user = admin.post("/admin/users", json={"username": "bob", "role": "member"})
    assert user.status_code == 201
    assert set(user.json()) == {
        "principal_id",
        "username",
        "email",
        "display_name",
        "role",
        "enabled",
        "created_at",
    }
    bob = user.json()["principal_id"]
    issued = admin.post(f"/admin/users/{bob}/tokens", json={"name": "laptop"}).json()
    raw = issued["raw_token"]
    assert "token_hash" not in issued["token"] and issued["token"]["principal_id"] == bob
    listed = admin.get(f"/admin/users/{bob}/tokens").json()
    assert [t["name"] for t in listed] == ["laptop"] and raw not in str(listed)
    assert _push(cloud, raw, "team") == 403  # deny by default
    grant = admin.post(f"/admin/users/{bob}/grants", json={"project": "team"}).json()
    assert set(grant) == {"principal_id", "project", "granted_by_principal_id", "created_at"}
    assert _push(cloud, raw, "team") == 200
    # Attribution: the materialized chunk names bob, not the legacy token.
    chunks = cloud.client(raw).get("/sync/pull", params={"project": "team"}).json()["chunks"]
    assert [c["created_by"] for c in chunks] == ["bob"]
    assert admin.post(f"/admin/users/{bob}/disable").json() == {
        "status": "ok",
        "principal_id": bob,
        "enabled": False,
    }
    assert _push(cloud, raw, "team", 2) == 401
    admin.post(f"/admin/users/{bob}/enable")
    assert _push(cloud, raw, "team", 2) == 200
    revoked = admin.post(f"/admin/users/{bob}/grants/team/revoke").json()
    assert revoked == {"status": "ok", "principal_id": bob, "project": "team"}
    assert _push(cloud, raw, "team", 3) == 403
    admin.post(f"/admin/users/{bob}/grants", json={"project": "team"})
    token_id = issued["token"]["id"]
    assert admin.post(f"/admin/tokens/{token_id}/revoke", json={"reason": "lost"}).json() == {
        "status": "ok",
        "token_id": token_id,
    }
    response = cloud.client(raw).post(
        "/sync/mutations/push",
        json={"project": "team", "entries": [observation("d", 4, project="team")]},
    )
    assert response.status_code == 401
    assert response.json()["error_code"] == "auth_required"


def test_only_a_managed_admin_may_administer_users(cloud: CloudServer, database_url: str) -> None:
    admin = cloud.client(_bootstrap(database_url, "--issue-token"))
    bob = admin.post("/admin/users", json={"username": "bob"}).json()["principal_id"]
    member = admin.post(f"/admin/users/{bob}/tokens", json={"name": "x"}).json()["raw_token"]
    for token in (member, ADMIN_TOKEN, SYNC_TOKEN):
        assert cloud.client(token).get("/admin/users").status_code == 403
    assert cloud.client().get("/admin/users").status_code == 401
    # The legacy admin still controls projects and reads the audit logs.
    legacy = cloud.client(ADMIN_TOKEN)
    assert legacy.post("/admin/projects/p/sync", json={"enabled": False}).status_code == 200
    assert legacy.get("/admin/auth-audit-log").status_code == 200
    assert (
        cloud.client(member).post("/admin/projects/p/sync", json={"enabled": True}).status_code
        == 403
    )
    alice = admin.get("/admin/users").json()[0]["principal_id"]
    last = admin.post(f"/admin/users/{alice}/disable")
    assert last.status_code == 409 and last.json()["error_code"] == "last_admin"


def test_allowlist_refuses_other_projects(start_server: StartServer, database_url: str) -> None:
    server = start_server(server_env(database_url, ENGRAM_CLOUD_ALLOWED_PROJECTS="alpha, beta"))
    assert _push(server, SYNC_TOKEN, "alpha") == 200
    response = server.client(SYNC_TOKEN).post(
        "/sync/mutations/push",
        json={"project": "gamma", "entries": [observation("d", 1, project="gamma")]},
    )
    assert response.status_code == 403
    assert response.json()["error_class"] == "policy"
    assert response.json()["error_code"] == "policy_forbidden"
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT outcome, project, reason FROM cloud_auth_audit_log"
            " WHERE project = 'gamma' ORDER BY id DESC LIMIT 1"
        ).fetchone()
        assert conn.execute("SELECT COUNT(*) FROM cloud_mutations").fetchone() == (1,)
    assert row == ("denied", "gamma", "policy_forbidden")


def test_authorization_header_parsing(cloud: CloudServer) -> None:
    def status(header: str) -> int:
        response = cloud.client().get(
            "/sync/pull", params={"project": "p"}, headers={"Authorization": header}
        )
        return response.status_code

    assert status(f"bearer\t\t{SYNC_TOKEN}") == 200
    assert status(f"BEARER   {SYNC_TOKEN}") == 200
    assert status(f"Bearer{SYNC_TOKEN}") == 401
    assert status(f"Bearer {SYNC_TOKEN} extra") == 401
    assert status(f"Basic {SYNC_TOKEN}") == 401
    assert status("Bearer wrong") == 401


def test_recover_token_only_in_the_stranded_states(cloud: CloudServer, database_url: str) -> None:
    assert _cli(database_url, "bootstrap", "admin", "--username", "alice").returncode == 0
    first = _cli(database_url, "bootstrap", "recover-token", "--name", "replacement")
    assert first.returncode == 0, first.stderr
    raw = first.stdout.strip().splitlines()[-1]
    refused = _cli(database_url, "bootstrap", "recover-token")
    assert refused.returncode == 1 and "already exists" in refused.stderr
    replaced = _cli(database_url, "bootstrap", "recover-token", "--revoke-existing")
    assert replaced.returncode == 0, replaced.stderr
    newer = replaced.stdout.strip().splitlines()[-1]
    assert cloud.client(raw).get("/admin/users").status_code == 401
    assert cloud.client(newer).get("/admin/users").status_code == 200  # now used
    used = _cli(database_url, "bootstrap", "recover-token", "--revoke-existing")
    assert used.returncode == 1 and "has been used" in used.stderr
