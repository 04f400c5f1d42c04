"""Reads over HTTP: search, timeline, review, prompts, context, stats, doctor, projects, sync."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.serve.conftest import Client, new_session, save

ENGRAM = Path(sys.executable).with_name("engram")


def test_search_hits_and_empty_list(route: Client) -> None:
    obs_id = save(route, "read-a", "Redis cache eviction", "LRU with a 1 GB cap", type="decision")
    hits = route.get("/search?q=eviction&project=read-a")
    assert hits.status == 200
    assert [h["id"] for h in hits.json] == [obs_id]
    assert hits.json[0]["score"] > 0
    assert route.get("/search?q=definitely-no-hit").json == []
    assert route.get("/search?q=eviction&type=bugfix").json == []
    assert route.get("/search?q=%22%22").status == 400
    assert route.get("/search?q=eviction&scope=galaxy").status == 400
    assert route.get("/search?q=eviction&limit=many").status == 400


def test_timeline(route: Client) -> None:
    ids = [save(route, "read-b", f"Step {n}", f"step number {n}") for n in range(3)]
    reply = route.get(f"/timeline?observation_id={ids[1]}&before=1&after=1")
    assert reply.status == 200
    assert reply.json["focus"]["id"] == ids[1]
    assert [o["id"] for o in reply.json["before"]] == [ids[0]]
    assert [o["id"] for o in reply.json["after"]] == [ids[2]]
    assert route.get("/timeline").status == 400
    assert route.get("/timeline?observation_id=x").status == 400
    assert route.get("/timeline?observation_id=999999").status == 404


def test_review_list_and_mark(route: Client) -> None:
    assert route.get("/review?project=read-c").status == 404
    obs_id = save(route, "read-c", "A decision", "decided", type="decision")
    assert route.get("/review?project=read-c").json == []
    marked = route.post("/review/mark_reviewed", {"observation_id": obs_id})
    assert marked.status == 200 and marked.json["id"] == obs_id
    assert route.post("/review/mark_reviewed", {"id": obs_id}).status == 200
    assert route.post("/review/mark_reviewed", {}).status == 400
    assert route.post("/review/mark_reviewed", body=b"{").status == 400
    assert route.post("/review/mark_reviewed", {"observation_id": 999999}).status == 404


def test_prompts(route: Client) -> None:
    new_session(route, "read-d", "read-d-s")
    saved = route.post("/prompts", {"session_id": "read-d-s", "content": "how do we deploy?"})
    assert saved.status == 201
    prompt_id = saved.json["id"]
    recent = route.get("/prompts/recent?project=read-d").json
    assert [p["content"] for p in recent] == ["how do we deploy?"]
    assert [p["id"] for p in route.get("/prompts/search?q=deploy&project=read-d").json] == [
        prompt_id
    ]
    assert route.get("/prompts/search?q=nothing-like-it&project=read-d").json == []
    assert route.post("/prompts", {"session_id": "read-d-s", "content": "  "}).status == 400
    assert route.delete("/prompts/abc").status == 400
    assert route.delete(f"/prompts/{prompt_id}").status == 200
    assert route.delete(f"/prompts/{prompt_id}").status == 404
    assert route.get("/prompts/recent?project=read-d").json == []


def test_context_clamps_and_never_400s(route: Client) -> None:
    save(route, "read-e", "Pinned thing", "kept on top")
    base = "/context?project=read-e"
    full = route.get(base)
    assert full.status == 200
    assert "### Recent Observations" in full.json["context"]
    for bad in ("observations=abc", "max_bytes=-5", "compact=maybe", "sessions=1e9", "scope=zzz"):
        assert route.get(f"{base}&{bad}").status == 200, bad
    without = route.get(f"{base}&observations=-1").json["context"]
    assert "### Recent Observations" not in without
    small = route.get(f"{base}&max_bytes=40").json
    assert len(small["context"].encode()) <= 40 and small["truncated"] is True
    assert route.get("/context?project=never-seen").status == 404


def test_compaction_context_is_one_session(route: Client) -> None:
    save(route, "read-f", "Session note", "written here", session_id="read-f-s")
    reply = route.get("/context/compaction?session_id=read-f-s")
    assert reply.status == 200
    assert reply.json["project"] == "read-f"
    assert "Session note" in reply.json["context"]
    assert route.get("/context/compaction?session_id=nope").status == 404
    assert route.get("/context/compaction").status == 400


def test_stats_and_doctor_match_the_cli(route: Client) -> None:
    save(route, "read-g", "Counted", "one")
    stats = route.get("/stats?project=read-g")
    assert stats.status == 200 and stats.json["observations"] == 1
    assert route.get("/stats?all_projects=true").json["observations"] >= 1
    assert route.get("/stats?project=nope-nope").status == 404
    assert route.get("/stats?project=x&all_projects=true").status == 400
    doctor = route.get("/doctor?check=store")
    assert doctor.status == 200
    assert doctor.json["findings"]
    assert all(f["code"].startswith("store") for f in doctor.json["findings"])
    unknown = route.get("/doctor?project=not-a-project")
    assert unknown.status == 404
    assert unknown.json["code"] == "unknown_project"
    assert "read-g" in unknown.json["available_projects"]


def test_doctor_report_is_the_cli_report(served_and_cli: tuple[Client, dict[str, str]]) -> None:
    client, env = served_and_cli
    cli = subprocess.run(
        [str(ENGRAM), "doctor", "--json", "--check", "store"],
        capture_output=True,
        text=True,
        env=env,
        cwd=env["HOME"],
        timeout=60,
    )
    over_http = client.get("/doctor?check=store").json
    assert over_http == json.loads(cli.stdout)


def test_project_current_always_succeeds(route: Client, tmp_path: Path) -> None:
    plain = tmp_path / "my-folder"
    plain.mkdir()
    reply = route.get(f"/project/current?cwd={plain}")
    assert reply.status == 200
    assert reply.json["project"] == "my-folder"
    assert reply.json["project_source"] == "dir_basename"
    for child in ("one", "two"):
        subprocess.run(["git", "init", "-q", str(tmp_path / "multi" / child)], check=True)
    ambiguous = route.get(f"/project/current?cwd={tmp_path / 'multi'}")
    assert ambiguous.status == 200
    assert ambiguous.json["project"] == ""
    assert ambiguous.json["project_source"] == "ambiguous"
    assert ambiguous.json["available_projects"] == ["one", "two"]
    assert ambiguous.json["error_hint"]


def test_sync_status_fallback_and_scope(route: Client) -> None:
    save(route, "read-h", "Synced?", "not yet")
    reply = route.get("/sync/status?project=read-h")
    assert reply.status == 200
    assert reply.json["enabled"] is False
    assert reply.json["project"] == "read-h"
    refused = route.get("/sync/status?all_projects=true")
    assert refused.status == 400
    assert refused.json["code"] == "unsupported_project_scope"
    assert route.get("/sync/status?project=never-heard").status == 404
