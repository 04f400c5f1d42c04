"""A replay of every HTTP call the Go tool's Claude Code, Codex and OpenCode plugins make.

The calls (method, path, body) and the checks are what the plugin scripts send and what they
read from the answer (their ``jq`` filters and ``data?.field`` reads), taken from the Go tool's
``plugin/claude-code/scripts``, ``plugin/codex/scripts`` and ``plugin/opencode*/engram.ts``.
They run in a session's order against a real ``engram serve``; each check fails the way the
script would silently fail (no project, no session, no context, a 404).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from engram.testing import Sandbox
from tests.serve.conftest import ENGRAM, Client, Reply, Server, start_server

# The project sources the scripts' resolve_project accepts (anything else: no project).
ACCEPTED_SOURCES = {
    "config",
    "git_remote",
    "git_root",
    "git_child",
    "dir_basename",
    "process_override",
}
LEARNINGS = (
    "Done.\n\n## Key Learnings:\n\n"
    "1. The cache key must include the tenant id or entries leak across tenants\n"
    "2. Retries need jitter, otherwise the workers wake up together and stampede\n"
)


@dataclass(frozen=True)
class GoCall:
    """One request a Go plugin script sends, and what it reads from the answer."""

    script: str
    method: str
    path: str
    body: Any = None
    check: Callable[[Reply, dict[str, str]], None] | None = None


def _ok(reply: Reply, _: dict[str, str]) -> None:
    assert 200 <= reply.status < 300, reply.json  # curl -sf fails on anything else


def _project(reply: Reply, found: dict[str, str]) -> None:
    _ok(reply, found)
    data = reply.json
    assert isinstance(data["project"], str) and data["project"].strip()
    assert data["project_source"] in ACCEPTED_SOURCES
    assert "error_hint" not in data
    found["project"] = data["project"]


def _registered(reply: Reply, found: dict[str, str]) -> None:
    # codex _helpers.sh engram_session_handoff: 201, same id, status created, no error keys
    assert reply.status == 201, reply.json
    assert reply.json["id"] == found["sid"] and reply.json["status"] == "created"
    assert "error" not in reply.json and "error_code" not in reply.json


def _context(reply: Reply, found: dict[str, str]) -> None:
    _ok(reply, found)
    assert isinstance(reply.json["context"], str)


def _live_session(reply: Reply, found: dict[str, str]) -> None:
    _ok(reply, found)
    assert reply.json["id"] == found["sid"] and isinstance(reply.json["started_at"], str)
    assert reply.json["ended_at"] is None


def _observation_list(reply: Reply, found: dict[str, str]) -> None:
    _ok(reply, found)
    assert isinstance(reply.json, list) and reply.json
    assert isinstance(reply.json[0]["created_at"], str)


def _session_list(reply: Reply, found: dict[str, str]) -> None:
    # Without a project the seed scopes this to the server's current project (the 2.x Go tool
    # does the same), so the 1.x script may find no row: it then skips its nudge, as it should.
    _ok(reply, found)
    assert isinstance(reply.json, list)
    assert all(isinstance(s["id"], str) and isinstance(s["started_at"], str) for s in reply.json)


def _captured(
    extracted: int, saved: int, duplicates: int
) -> Callable[[Reply, dict[str, str]], None]:
    def check(reply: Reply, found: dict[str, str]) -> None:
        _ok(reply, found)
        got = {k: reply.json[k] for k in ("extracted", "saved", "duplicates")}
        assert got == {"extracted": extracted, "saved": saved, "duplicates": duplicates}

    return check


def _saved_id(reply: Reply, found: dict[str, str]) -> None:
    _ok(reply, found)
    assert isinstance(reply.json["id"], int)


def _completed(reply: Reply, found: dict[str, str]) -> None:
    assert reply.status == 200, reply.json
    assert reply.json["status"] == "completed"


def _search_hits(reply: Reply, found: dict[str, str]) -> None:
    # Without a project, search is scoped to the server's current project like every
    # project-aware read (the seed; issue 26), and this server runs outside the script's
    # repository: the dedup check then finds nothing and the script imports, as it should.
    _ok(reply, found)
    assert isinstance(reply.json, list)
    assert all({"title", "content"} <= set(hit) for hit in reply.json)


def _health(reply: Reply, found: dict[str, str]) -> None:
    assert reply.status == 200
    assert reply.json["status"] == "ok" and reply.json["instance_id"] == found["instance"]


CLAUDE = "claude-code/scripts"
CODEX = "codex/scripts"
OPENCODE = "opencode/engram.ts"
SESSION: list[GoCall] = [
    GoCall(f"{CLAUDE}/session-start.sh", "GET", "/health", check=_ok),
    GoCall(f"{CODEX}/_helpers.sh", "GET", "/health", check=_health),
    GoCall(f"{CLAUDE}/_helpers.sh", "GET", "/project/current?cwd={cwd_q}", check=_project),
    GoCall(
        f"{CODEX}/_helpers.sh",
        "POST",
        "/sessions",
        {"id": "{sid}", "project": "{project}", "directory": "{cwd}"},
        _registered,
    ),
    GoCall(
        f"{CLAUDE}/session-start.sh",
        "GET",
        "/context?project={project_q}&compact=1&pinned=20&max_bytes=16384",
        check=_context,
    ),
    GoCall(f"{CODEX}/post-compaction.sh", "GET", "/context?project={project_q}", check=_context),
    GoCall(
        f"{CLAUDE}/user-prompt-submit.sh",
        "POST",
        "/prompts",
        {"session_id": "{sid}", "project": "{project}", "content": "fix the flaky cache test"},
        _ok,
    ),
    GoCall(f"{CLAUDE}/user-prompt-submit.sh", "GET", "/sessions/{sid}", check=_live_session),
    GoCall(
        f"{CLAUDE}/subagent-stop.sh",
        "POST",
        "/observations/passive",
        {
            "session_id": "{sid}",
            "content": LEARNINGS,
            "project": "{project}",
            "source": "subagent-stop",
        },
        _captured(2, 2, 0),
    ),
    GoCall(
        f"{OPENCODE} (tool.execute.after)",
        "POST",
        "/observations/passive",
        {
            "session_id": "{sid}",
            "content": LEARNINGS,
            "project": "{project}",
            "source": "task-complete",
        },
        _captured(2, 0, 2),
    ),
    GoCall(
        f"{CLAUDE}/user-prompt-submit.sh",
        "GET",
        "/observations?project={project_q}&limit=1&sort=created_at:desc",
        check=_observation_list,
    ),
    GoCall(
        f"{CLAUDE}/user-prompt-submit.sh (1.x)",
        "GET",
        "/observations/recent?project={project_q}&limit=1",
        check=_observation_list,
    ),
    GoCall(
        f"{CLAUDE}/user-prompt-submit.sh (1.x)",
        "GET",
        "/sessions/recent?limit=50",
        check=_session_list,
    ),
    GoCall(
        f"{CLAUDE}/subagent_stop.py",
        "POST",
        "/observations",
        {
            "title": "[explorer] Retries need jitter...",
            "content": "Retries need jitter, otherwise the workers stampede",
            "type": "learning",
            "project": "{project}",
            "metadata": {
                "session_id": "{sid}",
                "agent_name": "explorer",
                "source": "subagent-stop-hook",
            },
        },
        _saved_id,
    ),
    GoCall(
        "claude-code/scripts/import-auto-memory.sh",
        "GET",
        "/search?q=jitter&limit=3",
        check=_search_hits,
    ),
    GoCall(
        f"{OPENCODE} (compaction)", "GET", "/context/compaction?session_id={sid}", check=_context
    ),
    GoCall(f"{CLAUDE}/session-stop.sh", "POST", "/sessions/{sid}/end", {}, _completed),
    GoCall(
        f"{OPENCODE} (session.idle)",
        "POST",
        "/sessions/{sid}/end",
        {"summary": "Session on {project} — 3 tool calls"},
        _completed,
    ),
    GoCall(f"{OPENCODE} (endSessionInEngram)", "POST", "/sessions/{sid}/end", None, _completed),
]


def _fill(value: Any, found: dict[str, str]) -> Any:
    if isinstance(value, str):
        names = {
            **found,
            "cwd_q": quote(found["cwd"], safe=""),
            "project_q": quote(found.get("project", ""), safe=""),
        }
        for name, text in names.items():
            value = value.replace("{" + name + "}", text)
        return value
    if isinstance(value, dict):
        return {k: _fill(v, found) for k, v in value.items()}
    return value


def _send(client: Client, call: GoCall, found: dict[str, str]) -> Reply:
    path = _fill(call.path, found)
    if call.body is None:
        return client.request(call.method, path)
    return client.request(call.method, path, _fill(call.body, found))


def _repository(root: Path) -> Path:
    repo = root / "shop-api"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "origin", "git@example.com:acme/shop-api.git"],
        check=True,
    )
    return repo


@pytest.fixture(scope="module")
def go_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    sandbox = Sandbox(tmp_path_factory.mktemp("go-plugins"))
    server = start_server(sandbox)
    try:
        yield server
    finally:
        server.stop()


def _instance(server: Server) -> str:
    done = subprocess.run(
        [str(ENGRAM), "instance-id"], capture_output=True, text=True, env=server.sandbox.env()
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_whole_session_of_go_plugin_calls_succeeds(go_server: Server) -> None:
    found = {
        "sid": "0b6e7f1c-go-session",
        "cwd": str(_repository(go_server.sandbox.root)),
        "instance": _instance(go_server),
    }
    for call in SESSION:
        reply = _send(go_server.client, call, found)
        assert call.check is not None
        try:
            call.check(reply, found)
        except (AssertionError, KeyError, TypeError) as exc:
            raise AssertionError(
                f"{call.script}: {call.method} {call.path} -> {reply.status} {reply.json}"
            ) from exc


def test_session_end_closes_the_live_continuation_of_a_resumed_session(go_server: Server) -> None:
    """claude-code/scripts/session-end.sh: an ended root with a live continuation."""
    client, root = go_server.client, "resumed-root"
    scope = {"id": root, "project": "shop-api", "directory": "/work/shop-api"}
    assert client.post("/sessions", scope).status == 201
    assert client.post(f"/sessions/{root}/end", {}).json["status"] == "completed"
    continuation = client.post("/sessions", {**scope, "resume": True}).json["id"]
    assert continuation == f"{root}:resume:2"
    session = client.get(f"/sessions/{root}").json  # what the script reads first
    assert session["ended_at"] is not None and session["project"] and session["directory"]
    body = {key: session[key] for key in ("id", "project", "directory")}
    body["ownership_mode"] = session.get("ownership_mode") or "shared"
    resolved = client.post("/runtime-sessions/resolve", body)
    assert resolved.status == 200
    assert resolved.json == {"id": continuation, "status": "resolved", "resumed_from": root}
    ended = client.post("/runtime-sessions/end", body)
    assert ended.status == 200, ended.json
    assert ended.json == {"id": continuation, "status": "ended", "resumed_from": root}
    assert client.get(f"/sessions/{continuation}").json["ended_at"] is not None
    # Nothing live is left: both routes answer 404 and create nothing.
    assert client.post("/runtime-sessions/end", body).status == 404
    assert client.post("/runtime-sessions/resolve", body).status == 404
    assert client.get(f"/sessions/{root}:resume:3").status == 404


def test_runtime_session_routes_refuse_another_scope_and_bad_bodies(go_server: Server) -> None:
    client = go_server.client
    scope = {"id": "scoped", "project": "shop-api", "directory": "/work/shop-api"}
    client.post("/sessions", scope)
    for other in ({"project": "billing"}, {"directory": "/work/elsewhere"}):
        reply = client.post("/runtime-sessions/end", {**scope, **other})
        assert reply.status == 409 and reply.json["code"] == "memory.runtime_scope_conflict"
    assert client.get("/sessions/scoped").json["ended_at"] is None
    assert client.post("/runtime-sessions/end", {**scope, "id": "missing"}).status == 404
    assert client.get("/sessions/missing").status == 404
    for bad in ({}, {**scope, "ownership_mode": "bogus"}, {**scope, "extra": True}):
        assert client.post("/runtime-sessions/resolve", bad).status == 400
    live = client.post("/runtime-sessions/resolve", scope)
    assert live.json == {"id": "scoped", "status": "resolved"}


def test_the_cli_commands_the_scripts_run(go_server: Server) -> None:
    env = go_server.sandbox.env()
    home = Path(env["HOME"])

    def engram(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(ENGRAM), *args], capture_output=True, text=True, env=env)

    assert engram("protocol-mode", "claude-code").stdout == "full\n"
    done = engram("setup", "claude-code", "--mcp-only")
    assert done.returncode == 0, done.stderr
    registration = home / ".claude" / "mcp" / "engram.json"
    assert registration.is_file() and not registration.is_symlink()
    assert not (home / ".claude" / "settings.json").exists()  # no hooks with --mcp-only
    assert not (home / ".claude" / "skills").exists()
    assert engram("setup", "claude", "--mcp-only", "--protocol", "slim").returncode == 0
    assert engram("protocol-mode", "claude-code").stdout == "slim\n"
    assert engram("protocol-mode", "codex").stdout == "full\n"
    bad = engram("setup", "claude", "--protocol", "tiny")
    assert bad.returncode == 1 and "use --protocol full or slim" in bad.stderr
