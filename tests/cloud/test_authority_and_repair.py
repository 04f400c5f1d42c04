"""Session authorities, prompt-pair claims, and the materialize-mutations repair."""

from __future__ import annotations

import subprocess

import psycopg

from tests.cloud.conftest import ENGRAM, SYNC_TOKEN, CloudServer, StartServer, server_env
from tests.cloud.entries import observation


def test_session_authority_and_prompt_pair_claims(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    register = {"session_id": "s1", "project": "alpha"}
    assert client.post("/sync/session-authorities", json=register).status_code == 200
    assert client.post("/sync/session-authorities", json=register).status_code == 200
    other = client.post("/sync/session-authorities", json={"session_id": "s1", "project": "beta"})
    assert other.status_code == 409
    claim = {
        "session_id": "s1",
        "source_inbox_id": "in-1",
        "sync_id": "prompt-1",
        "owner_project": "alpha",
        "project": "alpha",
    }
    assert client.post("/sync/prompt-pair-claims", json=claim).status_code == 200
    assert client.post("/sync/prompt-pair-claims", json=claim).status_code == 200
    competing = client.post("/sync/prompt-pair-claims", json={**claim, "sync_id": "prompt-2"})
    assert competing.status_code == 409
    for wrong in ({**claim, "session_id": "nope"}, {**claim, "owner_project": "beta"}):
        missing = client.post("/sync/prompt-pair-claims", json=wrong)
        assert missing.status_code == 404
        assert missing.json()["error_code"] == "session_authority_unavailable"
    unknown = client.post("/sync/prompt-pair-claims", json={**claim, "extra": "x"})
    assert unknown.status_code == 400
    assert cloud.client().post("/sync/session-authorities", json=register).status_code == 401


def test_insecure_mode_refuses_authority_routes_but_syncs(
    start_server: StartServer, database_url: str
) -> None:
    env = server_env(
        database_url,
        ENGRAM_CLOUD_INSECURE_NO_AUTH="1",
        ENGRAM_CLOUD_TOKEN="",
        ENGRAM_JWT_SECRET="",
        ENGRAM_CLOUD_ADMIN="",
        ENGRAM_CLOUD_MAX_PUSH_BYTES="2048",
    )
    server = start_server(env)
    client = server.client()
    refused = client.post("/sync/session-authorities", json={"session_id": "s", "project": "p"})
    assert refused.status_code == 401
    big = client.post("/sync/session-authorities", json={"session_id": "s" * 4000, "project": "p"})
    assert big.status_code == 413
    body = {"project": "p", "entries": [observation("dev", 1)]}
    assert client.post("/sync/mutations/push", json=body).status_code == 200


def test_materialize_mutations_backfills_missing_chunks(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    batch = [observation("dev", n) for n in (1, 2, 3)]
    assert client.post("/sync/mutations/push", json={"project": "p", "entries": batch}).is_success
    with psycopg.connect(database_url) as conn:  # as if pushed by a server that did not chunk
        conn.execute("DELETE FROM cloud_chunks")
        conn.execute("UPDATE cloud_mutations SET chunk_id = NULL")

    def repair(*mode: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ENGRAM), "cloud", "repair", "materialize-mutations", "--project", "p", *mode],
            capture_output=True,
            text=True,
            timeout=60,
            env={"ENGRAM_DATABASE_URL": database_url, "PATH": "/usr/bin:/bin"},
        )

    dry = repair("--dry-run")
    assert dry.returncode == 0 and "would materialize 3 mutations into 1 chunk" in dry.stdout
    assert client.get("/sync/pull", params={"project": "p"}).json()["chunks"] == []
    applied = repair("--apply")
    assert "materialized 3 mutations into 1 chunk" in applied.stdout
    chunks = client.get("/sync/pull", params={"project": "p"}).json()["chunks"]
    assert [c["mutation_count"] for c in chunks] == [3]
    assert "0 mutations" in repair("--apply").stdout  # idempotent
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT COUNT(*) FROM cloud_mutations").fetchone() == (3,)
    assert repair().returncode == 2
