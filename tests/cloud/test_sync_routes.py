"""The sync transport of a real ``engram cloud serve`` over a real Postgres."""

from __future__ import annotations

import base64
import gzip

import psycopg

from tests.cloud.conftest import SYNC_TOKEN, CloudServer, StartServer, server_env
from tests.cloud.entries import chunk_body, observation


def test_health(cloud: CloudServer) -> None:
    response = cloud.client().get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "service": "engram-cloud"}


def test_pushed_mutations_come_back_in_order_and_replays_are_not_duplicated(
    cloud: CloudServer,
) -> None:
    client = cloud.client(SYNC_TOKEN)
    batch = [observation("dev-a", n, title=f"t{n}") for n in range(1, 4)]
    first = client.post("/sync/mutations/push", json={"project": "p", "entries": batch})
    assert first.status_code == 200, first.text
    assert first.json()["accepted"] == 3
    replay = client.post("/sync/mutations/push", json={"project": "p", "entries": batch})
    assert replay.json()["accepted"] == 0
    assert replay.json()["duplicates"] == 3
    pulled = client.get("/sync/mutations/pull", params={"project": "p", "since": 0}).json()
    assert [m["payload"]["title"] for m in pulled["mutations"]] == ["t1", "t2", "t3"]
    assert [m["seq"] for m in pulled["mutations"]] == [1, 2, 3]
    first_pulled = dict(pulled["mutations"][0])
    # Exactly what the replica sent, plus who the server says sent it (issue 22 point 14: a
    # pulled memory shows `from <principal> via cloud`).
    assert first_pulled.pop("created_by") == "legacy-sync"
    assert first_pulled == batch[0]
    assert pulled["next_since"] == 3
    after = client.get("/sync/mutations/pull", params={"project": "p", "since": 2}).json()
    assert [m["payload"]["title"] for m in after["mutations"]] == ["t3"]
    assert after["has_more"] is False


def test_materialized_chunk_is_attributed_to_the_principal_not_the_envelope(
    cloud: CloudServer,
) -> None:
    client = cloud.client(SYNC_TOKEN)
    body = {"project": "p", "created_by": "mallory", "entries": [observation("dev-a", 1)]}
    assert client.post("/sync/mutations/push", json=body).status_code == 200
    manifest = client.get("/sync/pull", params={"project": "p"}).json()
    assert [c["created_by"] for c in manifest["chunks"]] == ["legacy-sync"]
    chunk_id = manifest["chunks"][0]["chunk_id"]
    chunk = client.get(f"/sync/pull/{chunk_id}", params={"project": "p"}).json()
    lines = gzip.decompress(base64.b64decode(chunk["content"])).decode().splitlines()
    assert len(lines) == 2 and '"engram_chunk":1' in lines[0] and '"obs-dev-a-1"' in lines[1]


def test_chunk_push_is_the_principals_and_feeds_the_mutation_log(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    body = chunk_body("p", [observation("dev-b", 1), observation("dev-b", 2)], "bob-laptop")
    first = client.post("/sync/push", json=body)
    assert first.status_code == 200, first.text
    assert first.json()["status"] == "stored"
    assert client.post("/sync/push", json=body).json()["status"] == "already_present"
    manifest = client.get("/sync/pull", params={"project": "p"}).json()["chunks"]
    assert [(c["chunk_id"], c["created_by"], c["claimed_by"]) for c in manifest] == [
        (body["chunk_id"], "legacy-sync", "bob-laptop")
    ]
    pulled = client.get("/sync/mutations/pull", params={"project": "p"}).json()["mutations"]
    assert [m["key"] for m in pulled] == ["obs-dev-b-1", "obs-dev-b-2"]


def test_a_tampered_chunk_is_refused_and_nothing_is_stored(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    body = chunk_body("p", [observation("dev-b", 1)])
    original = gzip.decompress(base64.b64decode(body["content"]))
    tampered = gzip.compress(original.replace(b"a title", b"evil title"))
    body["content"] = base64.b64encode(tampered).decode()
    response = client.post("/sync/push", json=body)
    assert response.status_code == 400
    assert response.json()["error_class"] == "repairable"
    assert response.json()["error_code"] == "chunk_hash_mismatch"
    assert "does not match payload content hash" in response.json()["error"]
    assert client.get("/sync/pull", params={"project": "p"}).json()["chunks"] == []
    not_gzip = dict(body, content=base64.b64encode(b"plain text").decode())
    refused = client.post("/sync/push", json=not_gzip).json()
    assert refused["error_code"] == "chunk_invalid" and "not gzip" in refused["error"]


def test_an_oversized_push_is_413(start_server: StartServer, database_url: str) -> None:
    server = start_server(server_env(database_url, ENGRAM_CLOUD_MAX_PUSH_BYTES="4096"))
    client = server.client(SYNC_TOKEN)
    big = [observation("dev-a", 1, content="x" * 5000)]
    response = client.post("/sync/mutations/push", json={"project": "p", "entries": big})
    assert response.status_code == 413
    assert response.json()["error_code"] == "payload_too_large"
    small = [observation("dev-a", 1)]
    ok = client.post("/sync/mutations/push", json={"project": "p", "entries": small})
    assert ok.status_code == 200


def test_bad_batches_get_the_envelope(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    empty = client.post("/sync/mutations/push", json={"project": "p", "entries": []})
    assert empty.status_code == 400
    assert empty.json() == {
        "error_class": "invalid_request",
        "error_code": "empty_batch",
        "error": "the batch holds no entries",
    }
    no_project = client.post("/sync/mutations/push", json={"entries": [observation("a", 1)]})
    assert no_project.json()["error_code"] == "project_required"
    untitled = client.post(
        "/sync/mutations/push", json={"project": "p", "entries": [observation("a", 1, title=" ")]}
    )
    assert untitled.json()["error_code"] == "observation_title_required"
    assert client.get("/sync/pull").json()["error_code"] == "project_required"


def test_paused_project_rejects_pushes_with_an_audit_row_but_serves_pulls(
    cloud: CloudServer, database_url: str
) -> None:
    from tests.cloud.conftest import ADMIN_TOKEN

    sync = cloud.client(SYNC_TOKEN)
    assert (
        sync.post(
            "/sync/mutations/push", json={"project": "p", "entries": [observation("a", 1)]}
        ).status_code
        == 200
    )
    admin = cloud.client(ADMIN_TOKEN)
    paused = admin.post("/admin/projects/p/sync", json={"enabled": False})
    assert paused.status_code == 200 and paused.json()["sync_enabled"] is False
    rejected = sync.post(
        "/sync/mutations/push",
        json={"project": "p", "created_by": "alice", "entries": [observation("a", 2)]},
    )
    assert rejected.status_code == 409
    assert rejected.json()["error_code"] == "sync-paused"
    assert rejected.json()["error_class"] == "blocked"
    chunk = sync.post("/sync/push", json=chunk_body("p", [observation("a", 3)], "carol"))
    assert chunk.status_code == 409
    pulled = sync.get("/sync/mutations/pull", params={"project": "p"}).json()["mutations"]
    assert [m["seq"] for m in pulled] == [1]
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT contributor, project, action, outcome, entry_count, reason_code"
            " FROM cloud_sync_audit_log ORDER BY id"
        ).fetchall()
    assert rows == [
        ("legacy-sync", "p", "mutation_push", "rejected_project_paused", 1, "sync-paused"),
        ("legacy-sync", "p", "chunk_push", "rejected_project_paused", 1, "sync-paused"),
    ]
    audit = admin.get("/admin/audit-log").json()
    assert [r["action"] for r in audit] == ["chunk_push", "mutation_push"]
    assert admin.post("/admin/projects/p/sync", json={"enabled": True}).status_code == 200
    resumed = sync.post(
        "/sync/mutations/push", json={"project": "p", "entries": [observation("a", 2)]}
    )
    assert resumed.status_code == 200
