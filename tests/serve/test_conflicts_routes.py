"""``/conflicts*`` on a real ``engram serve``: bodies, status codes and bad input."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.serve.conftest import Client, save, start_server

# Titles share too little for a save to flag them; their bodies say the same thing.
PAIRS = [
    ("Sessions stored in PostgreSQL", "User sessions live in the sessions table of PostgreSQL."),
    ("Gunicorn runs four workers", "The API server gunicorn config starts four sync workers."),
    (
        "Move user sessions to Redis cluster for speed",
        "User sessions live in Redis now instead of the PostgreSQL sessions table.",
    ),
    ("Scale API to nine processes", "The gunicorn config of the API server starts nine workers."),
]


def seed(http: Client, project: str) -> list[int]:
    return [save(http, project, title, body) for title, body in PAIRS]


def test_scan_then_list_show_stats_and_judge(http: Client) -> None:
    ids = seed(http, "audit-a")
    dry = http.post("/conflicts/scan", {"project": "audit-a"})
    assert dry.status == 200, dry.json
    assert dry.json["candidates_found"] == 2 and dry.json["dry_run"] is True
    assert dry.json["semantic_judged"] == dry.json["semantic_errors"] == 0
    assert "next_cursor" not in dry.json

    applied = http.post("/conflicts/scan", {"project": "audit-a", "apply": True})
    assert applied.json["inserted"] == 2

    listed = http.get("/conflicts?project=audit-a")
    assert listed.status == 200
    assert (listed.json["total"], listed.json["limit"], listed.json["offset"]) == (2, 50, 0)
    row = listed.json["relations"][0]
    assert set(row) >= {
        "id",
        "sync_id",
        "relation",
        "judgment_status",
        "source_id",
        "source_title",
        "target_id",
        "target_title",
        "created_at",
        "updated_at",
    }
    assert http.get("/conflicts?project=audit-a&limit=100000").json["limit"] == 500

    detail = http.get(f"/conflicts/{row['id']}")
    assert detail.status == 200
    assert detail.json["source_snippet"] and detail.json["target_snippet"]

    judged = http.post(
        "/conflicts/judge",
        {"judgment_id": row["sync_id"], "relation": "supersedes", "confidence": 0.9},
    )
    assert judged.status == 200, judged.json
    assert judged.json == {"relation": {"sync_id": row["sync_id"], "judgment_status": "judged"}}

    stats = http.get("/conflicts/stats?project=audit-a").json
    assert stats["by_judgment_status"] == {"judged": 1, "pending": 1}
    assert stats["project"] == "audit-a" and stats["deferred"] == 0 and stats["dead"] == 0
    assert http.get("/conflicts/stats?all_projects=true").json["project"] is None

    compared = http.post(
        "/conflicts/compare",
        {
            "memory_id_a": ids[3],
            "memory_id_b": ids[1],
            "relation": "not_conflict",
            "confidence": 0.99,
            "reasoning": "same setting, agreed",
        },
    )
    assert compared.status == 200 and compared.json["sync_id"].startswith("rel-")


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/conflicts/abc", None, 400),
        ("GET", "/conflicts/999999", None, 404),
        ("GET", "/conflicts?status=open", None, 400),
        ("GET", "/conflicts?since=yesterday", None, 400),
        ("GET", "/conflicts?project=nowhere", None, 404),
        ("GET", "/conflicts?project=x&all_projects=true", None, 400),
        ("POST", "/conflicts/judge", {"relation": "supersedes"}, 400),
        ("POST", "/conflicts/judge", {"judgment_id": "rel-x", "relation": "maybe"}, 400),
        ("POST", "/conflicts/compare", {"memory_id_a": 1}, 400),
        (
            "POST",
            "/conflicts/compare",
            {
                "memory_id_a": 1,
                "memory_id_b": 2,
                "relation": "related",
                "confidence": 3,
                "reasoning": "x",
            },
            400,
        ),
        (
            "POST",
            "/conflicts/compare",
            {
                "memory_id_a": 999998,
                "memory_id_b": 999999,
                "relation": "related",
                "confidence": 0.5,
                "reasoning": "x",
            },
            404,
        ),
        ("POST", "/conflicts/scan", {"project": "audit-b", "limit": 101}, 400),
        (
            "POST",
            "/conflicts/scan",
            {"project": "audit-b", "semantic": True, "concurrency": 21},
            400,
        ),
        ("POST", "/conflicts/scan", {"project": "audit-b", "semantic": True}, 400),
        ("POST", "/conflicts/scan", {"project": "audit-b", "apply": "yes"}, 400),
        ("GET", "/conflicts/deferred?status=lost", None, 400),
    ],
)
def test_bad_input_is_a_json_error_and_changes_nothing(
    http: Client, method: str, path: str, body: object, status: int
) -> None:
    seed(http, "audit-b")
    before = http.get("/conflicts?all_projects=true").json["total"]
    if method == "POST" and isinstance(body, str):
        reply = http.request(method, path, body=body.encode())
    else:
        reply = http.request(method, path, body)
    assert reply.status == status, reply.json
    assert reply.json["error"] and reply.json["code"]
    assert http.get("/conflicts?all_projects=true").json["total"] == before


def test_malformed_json_and_cross_project_compare(http: Client) -> None:
    a = save(http, "audit-c", "Cache is Redis", "Redis caches pages.")
    b = save(http, "audit-d", "Cache is Memcached", "Memcached caches pages.")
    bad = http.request("POST", "/conflicts/judge", body=b"{not json")
    assert bad.status == 400 and bad.json["code"] == "http.bad_json"
    cross = http.post(
        "/conflicts/compare",
        {
            "memory_id_a": a,
            "memory_id_b": b,
            "relation": "conflicts_with",
            "confidence": 0.9,
            "reasoning": "different caches",
        },
    )
    assert cross.status == 400 and "different projects" in cross.json["error"]


def test_deferred_queue_is_listed_and_replayed(http: Client) -> None:
    listed = http.get("/conflicts/deferred")
    assert listed.status == 200
    assert listed.json == {"total": 0, "limit": 50, "rows": []}
    replayed = http.post("/conflicts/deferred/replay")
    assert replayed.status == 200
    assert replayed.json == {"retried": 0, "succeeded": 0, "failed": 0, "dead": 0}


def test_semantic_scan_uses_the_servers_agent(sandbox: Sandbox, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    agent = bin_dir / "opencode"
    agent.write_text(
        f"#!{sys.executable}\n"
        "import json\n"
        "answer = json.dumps({'relation': 'conflicts_with', 'confidence': 0.7,"
        " 'reasoning': 'r'})\n"
        "print(json.dumps({'type': 'text', 'part': {'type': 'text', 'text': answer}}))\n"
    )
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR)
    env = {"ENGRAM_AGENT_CLI": "opencode", "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    server = start_server(sandbox, env=env)
    try:
        seed(server.client, "audit-s")
        reply = server.client.post(
            "/conflicts/scan", {"project": "audit-s", "semantic": True, "apply": True}
        )
        assert reply.status == 200, reply.json
        assert (reply.json["semantic_judged"], reply.json["inserted"]) == (2, 2)
        stats = server.client.get("/conflicts/stats?project=audit-s").json
        assert stats["by_relation"] == {"conflicts_with": 2}
    finally:
        server.stop()
