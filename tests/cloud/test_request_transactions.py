"""A sync request is admitted and served in one transaction — one commit — and every request is
still audited, the refused and the failed ones included (issue 27 point 4)."""

from __future__ import annotations

import psycopg

from tests.cloud.conftest import ADMIN_TOKEN, SYNC_TOKEN, CloudServer
from tests.cloud.entries import observation


def _audit(database_url: str, route: str) -> list[tuple[str, str]]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT outcome, reason FROM cloud_auth_audit_log WHERE route = %s ORDER BY id",
            (route,),
        ).fetchall()
    return [(str(outcome), str(reason)) for outcome, reason in rows]


def test_a_push_and_a_pull_commit_their_audit_row_with_their_work(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    batch = [observation("dev", 1), observation("dev", 2)]
    assert client.post("/sync/mutations/push", json={"project": "p", "entries": batch}).is_success
    assert client.get("/sync/mutations/pull", params={"project": "p"}).is_success
    with psycopg.connect(database_url) as conn:
        push_audit = conn.execute(
            "SELECT xmin::text FROM cloud_auth_audit_log WHERE route = 'mutations_push'"
        ).fetchall()
        stored = conn.execute("SELECT DISTINCT xmin::text FROM cloud_mutations").fetchall()
        chunk = conn.execute("SELECT xmin::text FROM cloud_chunks").fetchall()
    # The same transaction id: the admission's audit row, the mutations and their chunk.
    assert push_audit == stored == chunk and len(stored) == 1
    assert _audit(database_url, "mutations_pull") == [("allowed", "")]


def test_refused_and_failed_requests_are_still_audited(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    push = "/sync/mutations/push"
    assert client.post(push, json={"project": "p", "entries": []}).status_code == 400
    foreign = client.post(
        push, json={"project": "p", "entries": [observation("d", 1, project="q")]}
    )
    assert foreign.status_code == 403
    # Postgres refuses the clock (past bigint) after admission: the work is rolled back.
    too_far = client.post(push, json={"project": "p", "entries": [observation("d", 2**63)]})
    assert too_far.status_code == 400, too_far.text
    wrong = cloud.client("not-the-token")
    assert (
        wrong.post(push, json={"project": "p", "entries": [observation("d", 1)]}).status_code == 401
    )
    assert wrong.get("/sync/mutations/pull", params={"project": "p"}).status_code == 401
    assert _audit(database_url, "mutations_push") == [
        ("allowed", ""),
        ("allowed", ""),
        ("allowed", ""),
        ("denied", "auth_required"),
    ]
    assert _audit(database_url, "mutations_pull") == [("denied", "auth_required")]
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM cloud_mutations").fetchone() == (0,)
        rejections = conn.execute("SELECT outcome FROM cloud_sync_audit_log").fetchall()
    assert rejections == [("rejected_foreign_project",)]


def test_a_paused_push_commits_its_rejection_and_its_audit_row(
    cloud: CloudServer, database_url: str
) -> None:
    sync = cloud.client(SYNC_TOKEN)
    first = {"project": "p", "entries": [observation("a", 1)]}
    assert sync.post("/sync/mutations/push", json=first).is_success
    admin = cloud.client(ADMIN_TOKEN)
    assert admin.post("/admin/projects/p/sync", json={"enabled": False}).is_success
    again = {"project": "p", "entries": [observation("a", 2)]}
    assert sync.post("/sync/mutations/push", json=again).status_code == 409
    assert _audit(database_url, "mutations_push") == [("allowed", ""), ("allowed", "")]
    with psycopg.connect(database_url) as conn:
        audit, rejection = conn.execute(
            "SELECT (SELECT xmin::text FROM cloud_auth_audit_log WHERE route = 'mutations_push'"
            "        ORDER BY id DESC LIMIT 1),"
            "       (SELECT xmin::text FROM cloud_sync_audit_log)"
        ).fetchone() or (None, None)
    assert audit == rejection is not None
