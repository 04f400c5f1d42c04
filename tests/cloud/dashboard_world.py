"""A populated cloud for dashboard tests: a real server, a managed admin, a member, data.

``world`` starts ``engram cloud serve`` (authenticated, with a pepper and the legacy admin
token) over its own database, bootstraps a managed admin with the real CLI, creates a member
with a grant for ``alpha`` through the admin API, and pushes observations, sessions and prompts
to ``alpha`` and ``beta`` through the sync API.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2 as httpx

from tests.cloud.conftest import ENGRAM, PEPPER, CloudServer, StartServer, server_env

TODAY = datetime.now(UTC)


def stamp(days_ago: int, minutes: int = 0) -> str:
    return (TODAY - timedelta(days=days_ago, minutes=-minutes)).strftime("%Y-%m-%d %H:%M:%S")


def mutation(
    project: str, entity: str, key: str, seq: int, payload: dict[str, Any]
) -> dict[str, Any]:
    return {
        "origin": "laptop-" + project,
        "seq": seq,
        "entity": entity,
        "key": key,
        "op": "upsert",
        "project": project,
        "payload": payload,
    }


def observation(
    project: str, seq: int, title: str, content: str, days_ago: int, session: str
) -> dict[str, Any]:
    key = f"obs-{project}-{seq}"
    return mutation(
        project,
        "observation",
        key,
        seq,
        {
            "sync_id": key,
            "session_id": session,
            "type": "decision",
            "title": title,
            "content": content,
            "tool_name": None,
            "project": project,
            "scope": "project",
            "topic_key": None,
            "normalized_hash": f"h{seq}",
            "revision_count": 1,
            "expires_at": None,
            "created_at": stamp(days_ago, seq),
            "updated_at": stamp(days_ago, seq),
            "deleted_at": None,
        },
    )


def session(project: str, seq: int, session_id: str, days_ago: int) -> dict[str, Any]:
    return mutation(
        project,
        "session",
        session_id,
        seq,
        {
            "id": session_id,
            "project": project,
            "ownership_mode": "shared",
            "directory": f"/work/{project}",
            "started_at": stamp(days_ago),
            "ended_at": None,
            "summary": f"Worked on {project}",
        },
    )


def prompt(project: str, seq: int, session_id: str, text: str, days_ago: int) -> dict[str, Any]:
    key = f"prm-{project}-{seq}"
    return mutation(
        project,
        "prompt",
        key,
        seq,
        {
            "sync_id": key,
            "session_id": session_id,
            "content": text,
            "project": project,
            "created_at": stamp(days_ago, seq),
        },
    )


ALPHA = [
    ("Use Postgres for the event store", "Events go to an append-only Postgres table.", 1),
    ("Rate limit the login endpoint", "Five attempts a minute per account, then 429.", 2),
    ("Deploys go through the staging canary", "Every deploy waits 20 minutes on staging.", 3),
    ("Background jobs run on RQ", "RQ workers replace Celery for background jobs.", 6),
]
BETA = [("Beta keeps its secrets in Vault", "Vault replaces the .env files for beta.", 2)]


@dataclass
class World:
    """The running server, its tokens and what was pushed."""

    server: CloudServer
    database_url: str
    admin_token: str
    admin_id: str
    member_token: str
    member_id: str
    legacy_admin_token: str

    def client(self, token: str | None = None) -> httpx.Client:
        return self.server.client(token)


def _cli(database_url: str, *args: str) -> str:
    env = {
        "ENGRAM_DATABASE_URL": database_url,
        "ENGRAM_CLOUD_TOKEN_PEPPER": PEPPER,
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [str(ENGRAM), "cloud", *args], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def _entries(
    project: str, rows: list[tuple[str, str, int]], prompts: list[str]
) -> list[dict[str, Any]]:
    sid = f"{project}-session-1"
    found = [session(project, 1, sid, 6)]
    for seq, (title, content, days_ago) in enumerate(rows, start=2):
        found.append(observation(project, seq, title, content, days_ago, sid))
    for seq, text in enumerate(prompts, start=50):
        found.append(prompt(project, seq, sid, text, 1))
    return found


def build_world(start_server: StartServer, database_url: str, **env: str) -> World:
    """Start the server and fill it; see the module docstring."""
    server = start_server(server_env(database_url, **env))
    admin_token = _cli(
        database_url,
        "bootstrap",
        "admin",
        "--username",
        "ada",
        "--grant-project",
        "alpha",
        "--grant-project",
        "beta",
        "--issue-token",
        "ada-laptop",
    )
    admin = server.client(admin_token)
    users = admin.get("/admin/users").json()
    admin_id = next(
        u["principal_id"]
        for u in (users if isinstance(users, list) else users["users"])
        if u["username"] == "ada"
    )
    member = admin.post("/admin/users", json={"username": "mo", "role": "member"}).json()
    member_id = member["principal_id"]
    assert (
        admin.post(f"/admin/users/{member_id}/grants", json={"project": "alpha"}).status_code == 201
    )
    issued = admin.post(f"/admin/users/{member_id}/tokens", json={"name": "mo-laptop"}).json()
    for project, rows, prompts in (
        ("alpha", ALPHA, ["add rate limiting to login", "why do deploys wait?"]),
        ("beta", BETA, ["move secrets out of .env"]),
    ):
        reply = admin.post(
            "/sync/mutations/push",
            json={"project": project, "entries": _entries(project, rows, prompts)},
        )
        assert reply.status_code == 200, reply.text
    from tests.cloud.conftest import ADMIN_TOKEN

    return World(
        server, database_url, admin_token, admin_id, issued["raw_token"], member_id, ADMIN_TOKEN
    )
