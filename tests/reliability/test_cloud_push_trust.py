"""A cloud push writes only its own project, and no upload can exhaust the server (issue 22,
points 1 and 3), against a real ``engram cloud serve`` over a real Postgres.

- ``POST /sync/mutations/push`` and ``POST /sync/push`` for ``proj-a`` holding any ``proj-b``
  entry (an upsert, a hard delete, or a payload naming ``proj-b``) answer 403 with the
  envelope, and nothing of the push is stored.
- Entries of another project already in a project's log (stored by an older server) are
  ``refused`` by the client on ``engram sync --cloud --import``: the teammate's ``proj-b``
  memory stays as it was.
- A gzip bomb pushed as a chunk is a 413 with the envelope; the server's peak RSS grows by less
  than 100 MB (printed).
"""

from __future__ import annotations

import base64
import json
import os
import zlib
from pathlib import Path
from typing import Any

from engram.cloud.store import mutations
from engram.cloud.store.db import CloudStore
from engram.sync.mutation import parse_mutation
from engram.testing import Sandbox
from tests.cloud import conftest as cloud_fixtures
from tests.cloud.conftest import SYNC_TOKEN, CloudServer
from tests.cloud.entries import chunk_body, observation
from tests.cloud.laptops import Laptop

MB = 1024 * 1024
# The cloud suite's fixtures: its own Postgres, a database per test, a real server.
postgres = cloud_fixtures.postgres
database_url = cloud_fixtures.database_url
start_server = cloud_fixtures.start_server
cloud = cloud_fixtures.cloud


def _delete(origin: str, seq: int, key: str, project: str) -> dict[str, Any]:
    return {"origin": origin, "seq": seq, "entity": "observation", "key": key, "op": "delete",
            "project": project, "payload": {"deleted_at": "2026-11-30 12:00:00"}}  # fmt: skip


def _pulled(cloud: CloudServer, project: str) -> list[Any]:
    client = cloud.client(SYNC_TOKEN)
    body = client.get("/sync/mutations/pull", params={"project": project}).json()
    manifest = client.get("/sync/pull", params={"project": project}).json()
    return [*body["mutations"], *manifest["chunks"]]


def test_a_push_holding_another_projects_entry_is_refused_whole(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    own = observation("mallory", 1, project="proj-a")
    foreign_batches = {
        "upsert": [own, observation("mallory", 2, "EVIL", project="proj-b")],
        "hard delete": [own, _delete("mallory", 2, "obs-victim", "proj-b")],
        "payload project": [own, observation("mallory", 2, project="proj-a")],
    }  # fmt: skip
    foreign_batches["payload project"][1]["payload"]["project"] = "proj-b"
    for kind, batch in foreign_batches.items():
        pushed = client.post("/sync/mutations/push", json={"project": "proj-a", "entries": batch})
        assert pushed.status_code == 403, (kind, pushed.text)
        envelope = pushed.json()
        assert envelope["error_class"] == "policy", kind
        assert envelope["error_code"] == "policy_forbidden", kind
        assert "entry 1" in envelope["error"] and "nothing was stored" in envelope["error"]
        chunk = client.post("/sync/push", json=chunk_body("proj-a", batch, "mallory"))
        assert chunk.status_code == 403, (kind, chunk.text)
        assert chunk.json()["error_code"] == "policy_forbidden"
    assert _pulled(cloud, "proj-a") == [] and _pulled(cloud, "proj-b") == []
    fine = client.post("/sync/mutations/push", json={"project": "proj-a", "entries": [own]})
    assert fine.status_code == 200 and fine.json()["accepted"] == 1
    for bad in ("obs\nforged", "obs\u2028forged", "o" * 257):  # point 5: the ids rule
        entry = observation("mallory", 9, project="proj-a", sync_id=bad)
        entry["key"] = bad
        refused = client.post(
            "/sync/mutations/push", json={"project": "proj-a", "entries": [entry]}
        )
        assert refused.status_code == 400, refused.text
        assert refused.json()["error_code"] == "invalid_mutation"


def test_a_pull_applies_only_the_pulled_projects_entries(
    sandbox: Sandbox, cloud: CloudServer, database_url: str, tmp_path: Path
) -> None:
    bob = Laptop(tmp_path / "bob", sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN))
    bob.ok("cloud", "config", "--server", cloud.url)
    for project in ("proj-a", "proj-b"):
        bob.ok("cloud", "enroll", project)
    saved = json.loads(bob.ok("save", "payroll", "the real text", "--project", "proj-b", "--json"))
    victim = saved["observation"]["sync_id"]
    before = bob.memories("proj-b")
    stored = [  # what an older server accepted inside a proj-a push
        observation("mallory", 1, "owned", project="proj-b", sync_id=victim, content="EVIL"),
        _delete("mallory", 2, victim, "proj-b"),
        observation("mallory", 3, "moved", project="proj-a", sync_id=victim, content="EVIL"),
        observation("mallory", 4, "planted", project="proj-b"),
        observation("mallory", 5, "legit", project="proj-a"),
    ]
    for entry in stored:
        entry["key"] = entry["payload"].get("sync_id", entry["key"])
    with CloudStore.open(database_url) as store, store.transaction() as conn:
        locked = mutations.lock_project(conn, "proj-a")
        batch = [parse_mutation(e) for e in stored]
        mutations.append(conn, "proj-a", locked.last_seq, batch, created_by="mallory",
                         principal_id=None, chunk_id=None)  # fmt: skip

    done = bob.run("sync", "--cloud", "--import", "--project", "proj-a", "--json")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["applied"]["refused"] == 4 and report["applied"]["applied"] == 1
    assert bob.memories("proj-b") == before
    assert [title for title, _, _ in bob.memories("proj-a").values()] == ["legit"]
    again = bob.run("sync", "--cloud", "--import", "--project", "proj-a")
    assert again.returncode == 0 and "Traceback" not in again.stderr
    assert bob.memories("proj-b") == before


def _server_rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident memory of a process, MB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def test_a_gzip_bomb_chunk_push_is_a_413_and_costs_the_server_little(
    cloud: CloudServer,
) -> None:
    client = cloud.client(SYNC_TOKEN)
    assert client.post("/sync/mutations/push", json={
        "project": "proj-a", "entries": [observation("warm", 1, project="proj-a")]
    }).status_code == 200  # fmt: skip
    resting, _ = _server_rss_mb(cloud.process.pid)
    deflater = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = b"".join(deflater.compress(b"\0" * MB) for _ in range(2048)) + deflater.flush()
    body = {"project": "proj-a", "chunk_id": "0123456789abcdef", "created_by": "mallory",
            "content": base64.b64encode(bomb).decode()}  # fmt: skip

    pushed = client.post("/sync/push", json=body)

    _, peak = _server_rss_mb(cloud.process.pid)
    print(f"\nbomb {len(bomb) / MB:.1f} MB -> 2048 MB; server RSS resting {resting:.0f} MB,"
          f" peak {peak:.0f} MB (+{peak - resting:.0f} MB); load {os.getloadavg()[0]:.2f}")  # fmt: skip
    assert pushed.status_code == 413, pushed.text
    assert pushed.json()["error_code"] == "payload_too_large"
    assert pushed.json()["error_class"] == "invalid_request"
    assert peak - resting < 100
    assert client.get("/health").status_code == 200


def test_a_pushed_chunk_and_every_audit_row_name_the_principal(
    cloud: CloudServer, database_url: str
) -> None:
    import psycopg

    client = cloud.client(SYNC_TOKEN)
    body = chunk_body("proj-a", [observation("dev", 1, project="proj-a")], "alice-the-admin")
    assert client.post("/sync/push", json=body).status_code == 200
    manifest = client.get("/sync/pull", params={"project": "proj-a"}).json()["chunks"]
    assert [(c["created_by"], c["claimed_by"]) for c in manifest] == [
        ("legacy-sync", "alice-the-admin")
    ]
    chunk = client.get(f"/sync/pull/{body['chunk_id']}", params={"project": "proj-a"}).json()
    assert (chunk["created_by"], chunk["claimed_by"]) == ("legacy-sync", "alice-the-admin")
    foreign = [observation("dev", 2, project="proj-b")]
    refused = client.post(
        "/sync/mutations/push",
        json={"project": "proj-a", "created_by": "alice-the-admin", "entries": foreign},
    )
    assert refused.status_code == 403
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT contributor, principal_id, outcome, metadata->>'claimed_by'"
            " FROM cloud_sync_audit_log ORDER BY id"
        ).fetchall()
        contributors = conn.execute("SELECT DISTINCT created_by FROM cloud_mutations").fetchall()
    assert [(r[0], r[2], r[3]) for r in rows] == [
        ("legacy-sync", "rejected_foreign_project", "alice-the-admin")
    ]
    assert rows[0][1] and contributors == [("legacy-sync",)]
