"""``engram hook <host>`` answered by a running ``engram serve`` (``POST /hooks/{host}``).

Every test runs the real console-script entry in a subprocess, as a host does, against a real
``engram serve`` on a free port (or a Unix socket). The child reports the modules it imported,
which tells who answered: the hook imports the store and the memory layer only when it does the
work itself.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from engram.testing import Sandbox
from tests.serve.conftest import ENGRAM, Server, free_port, start_server

PROJECT = "hooked"

# The console script's hook path (without its final os._exit), then the modules it imported.
CHILD = """
import sys
import threading
from engram.cli import entry
code = entry._hook(sys.argv[2:])
modules = sorted(sys.modules)
import json
import socket
with open(sys.argv[1], "w") as out:
    json.dump(modules, out)
sys.exit(code)
"""


def save(env: dict[str, str], title: str) -> None:
    result = subprocess.run(
        [str(ENGRAM), "save", title, f"**What**: {title}", "--project", PROJECT],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def hook(
    sandbox: Sandbox, tmp_path: Path, payload: str | dict[str, Any], **env: str
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``engram hook claude`` as a host does; its result and the modules it imported."""
    modules_file = tmp_path / f"modules-{len(list(tmp_path.iterdir()))}.json"
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(modules_file), "claude"],
        input=stdin,
        capture_output=True,
        text=True,
        env=sandbox.env(ENGRAM_PROJECT=PROJECT, **env),
        cwd=sandbox.workspace,
        timeout=60,
    )
    return result, set(json.loads(modules_file.read_text()))


def start(sandbox: Sandbox) -> dict[str, Any]:
    return {
        "hook_event_name": "SessionStart",
        "source": "startup",
        "session_id": "s-1",
        "cwd": str(sandbox.workspace),
    }


def context_of(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


@pytest.fixture
def server(sandbox: Sandbox) -> Any:
    save(sandbox.env(), "Served memory about the cache")
    served = start_server(sandbox)
    try:
        yield served
    finally:
        served.stop()


def test_running_server_answers_the_hook_without_store_or_memory_imports(
    sandbox: Sandbox, server: Server, tmp_path: Path
) -> None:
    result, modules = hook(sandbox, tmp_path, start(sandbox), ENGRAM_PORT=str(server.client.port))
    assert "Served memory about the cache" in context_of(result)
    assert result.stderr == ""
    assert "engram.hooks.client" in modules
    heavy = {m for m in modules if m.startswith(("engram.store", "engram.memory", "sqlite3"))}
    assert heavy == set()
    assert not {"json", "pathlib", "dataclasses", "typing", "socket"} & modules
    # The server did the bookkeeping: the session it started is listed.
    sessions = server.client.get(f"/sessions/recent?project={PROJECT}").json
    assert "s-1" in [s["id"] for s in sessions]


def test_served_prompt_gets_only_what_changed_in_the_host_schema(
    sandbox: Sandbox, server: Server, tmp_path: Path
) -> None:
    prompt = {**start(sandbox), "hook_event_name": "UserPromptSubmit", "prompt": "go on"}
    port = str(server.client.port)
    hook(sandbox, tmp_path, start(sandbox), ENGRAM_PORT=port)
    save(sandbox.env(), "Saved while the session runs")
    served, _ = hook(sandbox, tmp_path, {**prompt, "session_id": "s-1"}, ENGRAM_PORT=port)
    hook(sandbox, tmp_path, {**start(sandbox), "session_id": "s-2"}, ENGRAM_HOOK_LOCAL="1")
    save(sandbox.env(), "Saved again while the session runs")
    local, modules = hook(sandbox, tmp_path, {**prompt, "session_id": "s-2"}, ENGRAM_HOOK_LOCAL="1")
    assert "engram.store.db" in modules
    assert "Saved while the session runs" in context_of(served)
    assert "Served memory" not in context_of(served)  # only what changed since the start
    assert "Saved again while the session runs" in context_of(local)
    # Same host schema, same trailing newline.
    assert served.stdout.endswith("}\n") and local.stdout.endswith("}\n")
    assert json.loads(served.stdout).keys() == json.loads(local.stdout).keys()


def test_no_server_means_the_hook_works_in_process(sandbox: Sandbox, tmp_path: Path) -> None:
    save(sandbox.env(), "Memory with nobody serving")
    result, modules = hook(sandbox, tmp_path, start(sandbox), ENGRAM_PORT=str(free_port()))
    assert "Memory with nobody serving" in context_of(result)
    assert result.stderr == ""
    assert {"engram.store.db", "engram.hooks.respond"} <= modules


def test_server_over_another_data_dir_is_refused(
    sandbox: Sandbox, server: Server, tmp_path: Path
) -> None:
    other = tmp_path / "other-data"
    save(sandbox.env(ENGRAM_DATA_DIR=str(other)), "Only in the other store")
    port = str(server.client.port)
    result, modules = hook(
        sandbox, tmp_path, start(sandbox), ENGRAM_PORT=port, ENGRAM_DATA_DIR=str(other)
    )
    context = context_of(result)
    assert "Only in the other store" in context
    assert "Served memory" not in context
    assert "engram.store.db" in modules  # the refusal sent it in-process
    refused = server.client.post(
        "/hooks/claude",
        body=json.dumps(start(sandbox)).encode(),
        headers={"X-Engram-Data-Dir": str(other)},
    )
    assert refused.status == 409
    assert refused.json["code"] == "hooks.other_data_dir"


def test_hook_over_a_unix_socket(sandbox: Sandbox, tmp_path: Path) -> None:
    save(sandbox.env(), "Memory behind a socket")
    socket_path = Path("/tmp") / f"engram-hook-{tmp_path.name}.sock"
    served = start_server(sandbox, env={"ENGRAM_SOCKET": str(socket_path)}, socket_path=socket_path)
    try:
        result, modules = hook(sandbox, tmp_path, start(sandbox), ENGRAM_SOCKET=str(socket_path))
    finally:
        served.stop()
    assert "Memory behind a socket" in context_of(result)
    assert "engram.store.db" not in modules


def test_served_hook_fails_open_with_its_warning(
    sandbox: Sandbox, server: Server, tmp_path: Path
) -> None:
    result, modules = hook(sandbox, tmp_path, "{not json", ENGRAM_PORT=str(server.client.port))
    assert result.returncode == 0
    assert result.stdout == ""
    assert result.stderr.startswith("engram hook claude: JSONDecodeError")
    assert "engram.store.db" not in modules


def test_route_names_its_refusals(server: Server, sandbox: Sandbox) -> None:
    unknown = server.client.post(
        "/hooks/notepad", body=b"{}", headers={"X-Engram-Data-Dir": str(sandbox.data_dir)}
    )
    assert unknown.status == 404 and unknown.json["code"] == "hook.unknown_host"
    unnamed = server.client.post("/hooks/claude", body=b"{}")
    assert unnamed.status == 400 and unnamed.json["code"] == "hooks.no_data_dir"


def test_token_guarded_server_answers_only_hooks_that_carry_the_token(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    save(sandbox.env(), "Memory behind a token")
    served = start_server(sandbox, env={"ENGRAM_HTTP_TOKEN": "s3cret-token"})
    port = str(served.client.port)
    try:
        with_token, served_modules = hook(
            sandbox, tmp_path, start(sandbox), ENGRAM_PORT=port, ENGRAM_HTTP_TOKEN="s3cret-token"
        )
        without, local_modules = hook(
            sandbox, tmp_path, {**start(sandbox), "session_id": "s-2"}, ENGRAM_PORT=port
        )
    finally:
        served.stop()
    assert "Memory behind a token" in context_of(with_token)
    assert "engram.store.db" not in served_modules
    # Refused with 401: the hook still answers, in-process.
    assert "Memory behind a token" in context_of(without)
    assert "engram.store.db" in local_modules


def test_a_listener_that_never_answers_or_is_not_engram_means_in_process(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    save(sandbox.env(), "Memory despite a stranger on the port")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)  # connects succeed, nothing is ever read or answered
        slow, slow_modules = hook(
            sandbox, tmp_path, start(sandbox), ENGRAM_PORT=str(silent.getsockname()[1])
        )
    assert "Memory despite a stranger on the port" in context_of(slow)
    assert "engram.store.db" in slow_modules
    stranger = _StrangerServer()
    try:
        other, other_modules = hook(
            sandbox, tmp_path, {**start(sandbox), "session_id": "s-2"}, ENGRAM_PORT=stranger.port
        )
    finally:
        stranger.close()
    assert "Memory despite a stranger on the port" in context_of(other)
    assert "engram.store.db" in other_modules


class _StrangerServer:
    """Another program's HTTP server: answers every request 200 with a body of its own."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = str(self.sock.getsockname()[1])
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            body = b'{"hello": "not engram"}'
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))

    def close(self) -> None:
        self.sock.close()
        self.thread.join(timeout=10)


def test_the_session_objective_reaches_the_served_hook(
    sandbox: Sandbox, server: Server, tmp_path: Path
) -> None:
    """A working note shows its body when ENGRAM_SESSION_OBJECTIVE matches — also when the
    running server builds the pack, which sees the hook's settings only through headers."""
    from engram.memory.governed import commit, propose_note
    from engram.memory.governed.base import open_knowledge_base

    with open_knowledge_base(sandbox.workspace, project=PROJECT) as kb:
        note = "Ranking is half done\nNext step: break score ties by newest id."
        commit(kb, propose_note(kb, note, objective="finish ranking").approval_token)
    port = str(server.client.port)
    for objective, shown in (("finish ranking", True), ("write the docs", False)):
        served, modules = hook(
            sandbox, tmp_path, start(sandbox), ENGRAM_PORT=port, ENGRAM_SESSION_OBJECTIVE=objective
        )
        assert "engram.store.db" not in modules  # the server answered
        context = context_of(served)
        assert "Ranking is half done" in context
        assert ("break score ties by newest id" in context) is shown, objective
