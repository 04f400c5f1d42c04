"""Every shared memory says where it came from (issue 22, point 14).

A memory that arrived from a teammate — a git chunk (the writing device) or a cloud pull (the
authenticated principal) — carries its origin, and search results, ``mem_get_observation``,
the hook pack and the TUI show it (``from legacy-sync via cloud``); this machine's own notes
carry none, and a local edit makes a teammate's memory this machine's.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from textual.widgets import Static

from engram.memory.save import save_observation
from engram.store.db import Store
from engram.sync.export import export_chunk
from engram.testing import Sandbox
from engram.tui.app import EngramApp
from engram.tui.screens.detail import ObservationDetailScreen
from tests.cloud import conftest as cloud_fixtures
from tests.cloud.conftest import SYNC_TOKEN, CloudServer
from tests.cloud.laptops import Laptop
from tests.reliability.conftest import Run
from tests.server.mcp_process import call, initialize, run_server
from tests.sync.replica import Replica
from tests.tui.conftest import SIZE, press

postgres = cloud_fixtures.postgres
database_url = cloud_fixtures.database_url
start_server = cloud_fixtures.start_server
cloud = cloud_fixtures.cloud


def _teammate_chunk(tmp_path: Path, repo: Path, project: str) -> str:
    """A teammate's replica saves a memory and writes it as a chunk into ``repo``; its device."""
    mate = Replica(tmp_path / "mate")
    try:
        save_observation(mate.store, title="Deploy on Fridays", content="bob's rule: never",
                         project=project, surface_conflicts=False)  # fmt: skip
        export_chunk(mate.store, type(mate.folder)(repo), project=project)
        return str(mate.store.connection.execute("SELECT device_id FROM sync_device").fetchone()[0])
    finally:
        mate.close()


def _repo(sandbox: Sandbox) -> Path:
    repo = sandbox.workspace / "app"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_a_git_memory_names_its_device_on_every_surface(
    engram: Run, sandbox: Sandbox, tmp_path: Path
) -> None:
    repo = _repo(sandbox)
    device = _teammate_chunk(tmp_path, repo, "app")
    assert engram("save", "My own note", "mine", "--project", "app").returncode == 0
    assert engram("sync", "--import", cwd=repo).returncode == 0
    label = f"from device {device[:12]} via git"

    hits = json.loads(engram("search", "Fridays", "--project", "app", "--json").stdout)["results"]
    assert [(h["origin_by"], h["origin_via"]) for h in hits] == [(f"device {device[:12]}", "git")]
    own = json.loads(engram("search", "own", "--project", "app", "--json").stdout)["results"]
    assert [h["origin_by"] for h in own] == [None]
    assert label in engram("search", "Fridays", "--project", "app").stdout
    mate_id = hits[0]["id"]
    exchange = run_server(sandbox, [*initialize(), call(1, "mem_get_observation",
                          {"id": mate_id, "project": "app"}), call(2, "mem_search",
                          {"query": "Fridays", "project": "app"})], cwd=repo)  # fmt: skip
    assert label in json.dumps(exchange.result(1)) and label in json.dumps(exchange.result(2))
    start = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1",
             "cwd": str(repo)}  # fmt: skip
    pack = engram("hook", "claude", cwd=repo, stdin=json.dumps(start)).stdout
    assert label in pack

    edited = engram("update", str(mate_id), "--content", "now my words", "--project", "app")
    assert edited.returncode == 0, edited.stderr  # a local edit makes it this machine's memory
    hits = json.loads(engram("search", "Fridays", "--project", "app", "--json").stdout)["results"]
    assert hits[0]["origin_by"] is None


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_tui_detail_shows_the_origin(sandbox: Sandbox, tmp_path: Path) -> None:
    repo = sandbox.workspace / "app"
    repo.mkdir()
    device = _teammate_chunk(tmp_path, repo, "app")
    from engram.sync.gitdir import SyncFolder
    from engram.sync.importer import import_chunks
    from engram.sync.trust import TrustGate

    store = Store.open()
    try:
        import_chunks(store, SyncFolder(repo), gate=TrustGate.for_projects({"app"}, "git"))
        app = EngramApp(store, project="app", zone=ZoneInfo("UTC"))
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "r", "enter")
            assert isinstance(app.screen, ObservationDetailScreen)
            facts = app.screen.query_one("#facts", Static).content
            assert f"from device {device[:12]} via git" in str(getattr(facts, "plain", facts))
    finally:
        store.close()


def test_a_cloud_memory_names_the_principal(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path
) -> None:
    base = sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN)
    alice, bob = Laptop(tmp_path / "alice", base), Laptop(tmp_path / "bob", base)
    for laptop in (alice, bob):
        laptop.ok("cloud", "config", "--server", cloud.url)
        laptop.ok("cloud", "enroll", "team")
    alice.ok("save", "Use postgres 16", "decided in standup", "--project", "team")
    alice.ok("sync", "--cloud", "--project", "team")
    bob.ok("sync", "--cloud", "--import", "--project", "team")

    hits = json.loads(bob.ok("search", "postgres", "--project", "team", "--json"))["results"]
    assert [(h["origin_by"], h["origin_via"]) for h in hits] == [("legacy-sync", "cloud")]
    assert "from legacy-sync via cloud" in bob.ok("search", "postgres", "--project", "team")
    mine = json.loads(alice.ok("search", "postgres", "--project", "team", "--json"))["results"]
    assert mine[0]["origin_by"] is None


def test_a_deferred_cloud_memory_keeps_its_transport(sandbox: Sandbox) -> None:
    from engram.sync.apply import ApplyCounts
    from engram.sync.importer import apply_mutations, retry_deferred
    from engram.sync.mutation import parse_mutation
    from engram.sync.trust import TrustGate
    from tests.cloud.entries import observation

    entry = observation("feedfacecafebeef", 2, project="team", session_id="s-late")
    late = observation("feedfacecafebeef", 3, project="team")  # a session arrives after it
    session = {**late, "entity": "session", "key": "s-late", "payload": {
        "id": "s-late", "project": "team", "ownership_mode": "shared", "directory": "",
        "started_at": "2026-11-30 12:00:00", "ended_at": None, "summary": None}}  # fmt: skip
    gate = TrustGate.for_projects({"team"}, "cloud")
    with Store.open() as store:
        counts = ApplyCounts()
        with store.write() as conn:
            apply_mutations(conn, [parse_mutation(entry)], counts, target_key="cloud:x",
                            now="2026-11-30 12:00:00", gate=gate)  # fmt: skip
        assert counts.deferred == 1
        with store.write() as conn:
            apply_mutations(conn, [parse_mutation(session)], counts, target_key="cloud:x",
                            now="2026-11-30 12:00:01", gate=gate)  # fmt: skip
        assert retry_deferred(store).recovered == 1
        row = store.connection.execute(
            "SELECT origin_via FROM observations WHERE sync_id = ?", (entry["key"],)
        ).fetchone()
    assert tuple(row) == ("cloud",)
