"""Autosync in ``engram serve`` (and ``engram-mcp``): background replication, /sync/status
reason codes, graceful refusal of incomplete settings, one syncing process per data dir."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from engram.store.db import Store
from engram.sync.cloud.autosync import start_autosync
from engram.sync.cloud.config import Remote
from engram.sync.cloud.enrollment import enroll
from engram.sync.cloud.pause import autosync_paused
from engram.testing import Sandbox
from tests.cloud.conftest import ADMIN_TOKEN, ENGRAM, SYNC_TOKEN, CloudServer, free_port
from tests.cloud.laptops import Laptop

Serve = Callable[..., tuple[str, subprocess.Popen[str]]]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """Start ``engram serve`` for a laptop; returns its URL and process."""
    running: list[subprocess.Popen[str]] = []

    def start(laptop: Laptop, **env: str) -> tuple[str, subprocess.Popen[str]]:
        port = free_port()
        log = open(laptop.root / f"serve-{port}.log", "w")  # noqa: SIM115
        process = subprocess.Popen(
            [str(ENGRAM), "serve", str(port)],
            env=laptop.env(**env),
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=laptop.root / "work",
        )
        running.append(process)
        url = f"http://127.0.0.1:{port}"
        _until(lambda: _get(f"{url}/health") is not None, f"engram serve on {port}")
        return url, process

    yield start
    for process in running:
        process.terminate()
        process.wait(timeout=20)


def _get(url: str) -> Any:
    try:
        response = httpx.get(url, timeout=2)
    except httpx.HTTPError:
        return None
    return response.json() if response.status_code == 200 else None


def _until(check: Callable[[], Any], what: str, limit: float = 60) -> Any:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}")


def _autosync_env(cloud: CloudServer, token: str = SYNC_TOKEN) -> dict[str, str]:
    return {
        "ENGRAM_CLOUD_AUTOSYNC": "1",
        "ENGRAM_CLOUD_SERVER": cloud.url,
        "ENGRAM_CLOUD_TOKEN": token,
        "ENGRAM_CLOUD_AUTOSYNC_INTERVAL": "0.3",
    }


def test_a_save_on_one_laptop_reaches_the_other_in_the_background(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path, serve: Serve
) -> None:
    a, b = Laptop(tmp_path / "a", sandbox.env()), Laptop(tmp_path / "b", sandbox.env())
    for laptop in (a, b):
        laptop.ok("cloud", "enroll", "team")
    b.ok("save", "local only", "never enrolled", "--project", "elsewhere")
    url_a, _ = serve(a, **_autosync_env(cloud))
    url_b, _ = serve(b, **_autosync_env(cloud))
    a.ok("save", "autosynced fact", "travels alone", "--project", "team")

    def on_b() -> bool:
        # Until the first pull lands, laptop b has never heard of project 'team'.
        found = b.run("search", "autosynced", "--project", "team")
        return found.returncode == 0 and "autosynced fact" in found.stdout

    _until(on_b, "the memory on laptop b")
    status = _until(lambda: _get(f"{url_a}/sync/status?project=team"), "status")
    assert status["enabled"] is True
    assert status["phase"] in {"healthy", "pushing", "pulling"}
    assert status["reason_code"] == ""
    unenrolled = _get(f"{url_b}/sync/status?project=elsewhere")
    assert unenrolled["reason_code"] == "blocked_unenrolled"


def test_paused_project_shows_paused_in_sync_status(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path, serve: Serve
) -> None:
    a = Laptop(tmp_path / "a", sandbox.env())
    a.ok("cloud", "enroll", "team")
    cloud.client(ADMIN_TOKEN).post("/admin/projects/team/sync", json={"enabled": False})
    url, _ = serve(a, **_autosync_env(cloud))
    a.ok("save", "blocked fact", "server paused", "--project", "team")

    def paused() -> Any:
        # Between retries the worker reports "pushing" with the last reason still "paused".
        status = _get(f"{url}/sync/status?project=team")
        failed = status and status["phase"] in {"push_failed", "backoff"}
        return status if failed and status["reason_code"] == "paused" else None

    _until(paused, "the paused reason after a failed push")


def test_a_daemons_sync_outcome_is_recorded_for_other_commands(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path, serve: Serve
) -> None:
    a = Laptop(tmp_path / "a", sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN))
    a.ok("cloud", "config", "--server", cloud.url)
    a.ok("cloud", "enroll", "team")
    admin = cloud.client(ADMIN_TOKEN)
    admin.post("/admin/projects/team/sync", json={"enabled": False})
    serve(a, **_autosync_env(cloud))
    a.ok("save", "blocked fact", "server paused", "--project", "team")

    def status() -> Any:
        # --status prints its JSON and exits 1 while the remote reports a reason code.
        return json.loads(
            a.run("sync", "--cloud", "--project", "team", "--status", "--json").stdout
        )

    failed = _until(
        lambda: (s := status())["last_reason_code"] == "paused" and s, "the failed push recorded"
    )
    assert failed["pending_mutations"] > 0
    admin.post("/admin/projects/team/sync", json={"enabled": True})
    healthy = _until(
        lambda: (s := status())["last_reason_code"] == "" and not s["pending_mutations"] and s,
        "the healthy cycle recorded",
    )
    assert healthy["last_sync_at"] and healthy["reason_code"] == ""


def test_unconfigured_cloud_and_missing_settings_keep_the_server_running(
    sandbox: Sandbox, tmp_path: Path, serve: Serve
) -> None:
    a = Laptop(tmp_path / "a", sandbox.env())
    a.ok("save", "x", "y", "--project", "team")
    url, process = serve(a, ENGRAM_CLOUD_AUTOSYNC="1", ENGRAM_CLOUD_SERVER="http://127.0.0.1:9")
    assert _get(f"{url}/sync/status?project=team")["reason_code"] == "blocked_unenrolled"
    assert _get(f"{url}/health")["status"] == "ok"
    process.terminate()
    process.wait(timeout=20)
    log = next(a.root.glob("serve-*.log")).read_text()
    assert "[autosync] ERROR: ENGRAM_CLOUD_TOKEN is not set; autosync disabled" in log


def test_not_configured_reason(sandbox: Sandbox, tmp_path: Path, serve: Serve) -> None:
    a = Laptop(tmp_path / "a", sandbox.env())
    a.ok("save", "x", "y", "--project", "team")
    url, _ = serve(a)
    assert _get(f"{url}/sync/status?project=team")["reason_code"] == "cloud_not_configured"


def test_one_process_per_data_dir_syncs_a_remote(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path
) -> None:
    data_dir = tmp_path / "shared"
    with Store.open(data_dir) as store:
        enroll(store, "team")
    env = _autosync_env(cloud)
    first = start_autosync(data_dir, env)
    second = start_autosync(data_dir, env)
    assert first is not None and second is not None
    try:
        phases = lambda: {first.workers[0].status.phase, second.workers[0].status.phase}  # noqa: E731
        _until(lambda: "healthy" in phases(), "one worker to sync")
        time.sleep(1.0)  # several intervals: the other never gets the lease
        holder, waiter = (
            (first, second) if first.workers[0].status.phase != "idle" else (second, first)
        )
        assert holder.workers[0].status.last_sync_at is not None
        assert waiter.workers[0].status.phase == "idle"
        assert waiter.workers[0].status.last_sync_at is None
    finally:
        first.stop()
        second.stop()
    with Store.open(data_dir) as store:
        row = store.connection.execute("SELECT lease_owner FROM sync_state").fetchall()
    assert all(r[0] is None for r in row)


def test_engram_mcp_autosync_keeps_stdout_json_only(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path
) -> None:
    a = Laptop(tmp_path / "a", sandbox.env())
    a.ok("cloud", "enroll", "team")
    a.ok("save", "from mcp host", "pushed by engram-mcp", "--project", "team")
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    process = subprocess.Popen(
        [str(ENGRAM.with_name("engram-mcp"))],
        env=a.env(**_autosync_env(cloud)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=a.root / "work",
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(init) + "\n")
    process.stdin.flush()
    first = json.loads(process.stdout.readline())
    assert first["id"] == 1
    observer = cloud.client(SYNC_TOKEN)

    def pushed() -> bool:
        body = observer.get("/sync/mutations/pull", params={"project": "team"}).json()
        return any(m["payload"].get("title") == "from mcp host" for m in body["mutations"])

    _until(pushed, "engram-mcp to push")
    process.stdin.close()
    out = process.stdout.read()
    process.wait(timeout=20)
    for line in out.splitlines():
        json.loads(line)


def _cloud_keys(cloud: CloudServer, project: str) -> set[str]:
    body = cloud.client(SYNC_TOKEN).get("/sync/mutations/pull", params={"project": project})
    return {m["key"] for m in body.json()["mutations"]}


def test_a_running_daemon_pauses_while_an_upgrade_bootstrap_holds_the_remote(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path, serve: Serve
) -> None:
    a = Laptop(tmp_path / "a", sandbox.env())
    a.ok("cloud", "config", "--server", cloud.url)
    a.ok("cloud", "enroll", "team")
    url, _ = serve(a, **_autosync_env(cloud))
    a.ok("save", "before the upgrade", "synced by the daemon", "--project", "team")
    synced = _until(lambda: _cloud_keys(cloud, "team"), "the daemon to sync")
    remote = Remote(cloud.url, SYNC_TOKEN)
    with Store.open(a.data_dir) as store, autosync_paused(store, remote, wait_s=30):
        # The bootstrap's own process holds the remote: the daemon reports the pause ...
        status = _until(
            lambda: (
                (s := _get(f"{url}/sync/status?project=team"))
                and s["reason_code"] == "upgrade_paused"
                and s
            ),
            "upgrade_paused in /sync/status",
        )
        assert status["phase"] == "disabled"
        # ... and sends nothing while paused, however many intervals pass.
        a.ok("save", "during the upgrade", "held back", "--project", "team")
        time.sleep(1.5)
        assert _cloud_keys(cloud, "team") == synced
    # Released: the daemon resumes by itself and catches up.
    _until(lambda: _cloud_keys(cloud, "team") > synced, "the daemon to resume")
    _until(
        lambda: (s := _get(f"{url}/sync/status?project=team")) and s["reason_code"] == "",
        "a healthy status after the upgrade",
    )


def test_cloud_upgrade_bootstrap_pauses_a_running_daemon_of_the_same_data_dir(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path, serve: Serve
) -> None:
    a = Laptop(tmp_path / "a", sandbox.env())
    a.ok("cloud", "config", "--server", cloud.url)
    a.ok("cloud", "enroll", "team")
    a.ok("save", "old team fact", "from before the cloud", "--project", "legacy")
    _, process = serve(a, **_autosync_env(cloud))
    time.sleep(1.0)  # the daemon holds its sync lease and renews it every 0.3 s
    done = a.ok(
        "cloud", "upgrade", "bootstrap", "--project", "legacy", ENGRAM_CLOUD_TOKEN=SYNC_TOKEN
    )
    assert done.strip() == "legacy: bootstrap_verified"
    assert len(_cloud_keys(cloud, "legacy")) == 2
    log = _until(
        lambda: "upgrade_paused" in _serve_log(a) and _serve_log(a), "the pause in the log"
    )
    assert log.count("upgrade_paused") == 1
    # The daemon took its lease back and keeps syncing.
    a.ok("save", "after the upgrade", "synced by the daemon", "--project", "team")
    _until(lambda: len(_cloud_keys(cloud, "team")) == 2, "the daemon to sync again")
    assert process.poll() is None


def _serve_log(laptop: Laptop) -> str:
    return "".join(p.read_text() for p in laptop.root.glob("serve-*.log"))
