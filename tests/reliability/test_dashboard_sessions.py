"""The dashboard's sessions end when they should, and legacy tokens are long enough."""

from __future__ import annotations

import re
import subprocess

import httpx2 as httpx
import psycopg
import pytest

from tests.cloud.conftest import ADMIN_TOKEN, ENGRAM, JWT_SECRET, CloudServer

BASE = {"ENGRAM_DATABASE_URL": "postgresql://engram@127.0.0.1:1/none", "PATH": "/usr/bin:/bin"}
LONG = "x" * 32


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("ENGRAM_CLOUD_TOKEN", {"ENGRAM_CLOUD_TOKEN": "short-legacy-token"}),
        ("ENGRAM_CLOUD_ADMIN", {"ENGRAM_CLOUD_TOKEN": LONG, "ENGRAM_CLOUD_ADMIN": "admin"}),
        ("ENGRAM_CLOUD_TOKEN", {"ENGRAM_CLOUD_TOKEN": "y" * 31}),
    ],
)
def test_short_legacy_tokens_refuse_to_start(name: str, extra: dict[str, str]) -> None:
    env = {**BASE, "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p", "ENGRAM_JWT_SECRET": JWT_SECRET, **extra}
    result = subprocess.run(
        [str(ENGRAM), "cloud", "serve"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"{name} is shorter than 32 characters" in lines[0]
    assert extra[name] not in result.stderr  # the secret itself is never echoed


def _csrf(client: httpx.Client) -> str:
    page = client.get("/dashboard/login")
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def _sign_in(client: httpx.Client, token: str) -> httpx.Response:
    return client.post(
        "/dashboard/login", data={"token": token, "csrf": _csrf(client)}, follow_redirects=False
    )


def test_sign_out_ends_the_session_on_the_server(cloud: CloudServer) -> None:
    browser = httpx.Client(base_url=cloud.url, timeout=30)
    assert _sign_in(browser, ADMIN_TOKEN).status_code == 303
    assert browser.get("/dashboard/", follow_redirects=False).status_code == 200
    kept = browser.cookies.get("engram_dashboard", path="/dashboard")
    assert kept
    csrf = re.search(r'name="csrf" value="([^"]+)"', browser.get("/dashboard/").text)
    assert csrf
    out = browser.post("/dashboard/logout", data={"csrf": csrf.group(1)}, follow_redirects=False)
    assert out.status_code == 303
    # Someone who copied the cookie before sign-out replays it: refused.
    thief = httpx.Client(base_url=cloud.url, timeout=30)
    thief.cookies.set("engram_dashboard", kept, path="/dashboard")
    replay = thief.get("/dashboard/", follow_redirects=False)
    assert replay.status_code == 303 and replay.headers["location"] == "/dashboard/login"


def test_login_attempts_are_rate_limited_and_audited(cloud: CloudServer, database_url: str) -> None:
    browser = httpx.Client(base_url=cloud.url, timeout=30)
    for n in range(10):
        assert _sign_in(browser, f"guess-{n:02d}-" + "z" * 30).status_code == 401
    limited = _sign_in(browser, ADMIN_TOKEN)  # even the right token, once guessing was seen
    assert limited.status_code == 429, limited.text
    assert limited.headers["retry-after"].isdigit()
    assert "too many" in limited.text
    assert browser.get("/dashboard/", follow_redirects=False).status_code == 303
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT outcome, reason FROM cloud_auth_audit_log"
            " WHERE event = 'dashboard.login' ORDER BY id"
        ).fetchall()
    assert rows[-1] == ("denied", "rate_limited")
    assert sum(r == ("denied", "invalid_token") for r in rows) == 10
