"""Observations over HTTP: save, list, get, update, delete, pin, topic keys, passive capture."""

from __future__ import annotations

from tests.serve.conftest import Client, new_session, save


def test_save_get_and_list(http: Client) -> None:
    new_session(http, "obs-a", "obs-a-s")
    reply = http.post(
        "/observations",
        {
            "session_id": "obs-a-s",
            "type": "decision",
            "title": "Use Postgres",
            "content": "We chose Postgres <private>secret</private> for jobs",
            "tool_name": "edit",
            "topic_key": "decision/postgres",
        },
    )
    assert reply.status == 201
    obs_id = reply.json["id"]
    got = http.get(f"/observations/{obs_id}").json
    assert got["project"] == "obs-a"
    assert got["content"] == "We chose Postgres [REDACTED] for jobs"
    assert got["type"] == "decision"
    recent = http.get("/observations/recent?project=obs-a").json
    assert [o["id"] for o in recent] == [obs_id]
    compat = http.get("/observations?project=obs-a&sort=created_at:desc").json
    assert compat == recent
    assert http.get("/observations?project=obs-a&scope=personal").json == []


def test_missing_or_blank_title_or_content_is_400(http: Client) -> None:
    new_session(http, "obs-b", "obs-b-s")
    for body in (
        {"session_id": "obs-b-s", "content": "no title"},
        {"session_id": "obs-b-s", "title": "   ", "content": "blank title"},
        {"session_id": "obs-b-s", "title": "no content"},
        {"session_id": "obs-b-s", "title": "t", "content": "\n\t "},
        {"session_id": "obs-b-s", "title": 7, "content": "wrong type"},
    ):
        reply = http.post("/observations", body)
        assert reply.status == 400, body
        assert reply.json["error"]
    assert http.get("/observations/recent?project=obs-b").json == []


def test_unknown_and_invalid_ids(http: Client) -> None:
    assert http.get("/observations/999999").status == 404
    assert http.get("/observations/abc").status == 400
    assert http.get("/observations/-3").status == 400
    assert http.put("/observations/999999/pin").status == 404
    assert http.put("/observations/abc/pin").status == 400
    assert http.delete("/observations/999999?expected_project=x").status == 404


def test_patch_requires_the_owner_and_never_moves_a_row(http: Client) -> None:
    obs_id = save(http, "obs-c", "Cache policy", "Use a 5 minute TTL")
    path = f"/observations/{obs_id}"
    assert http.patch(path, {"title": "x"}).status == 400
    assert http.patch(path + "?expected_project=%20", {"title": "x"}).status == 400
    wrong = http.patch(path + "?expected_project=other", {"title": "x"})
    assert wrong.status == 409
    moved = http.patch(path + "?expected_project=obs-c", {"project": "elsewhere"})
    assert moved.status == 409
    after = http.get(path).json
    assert after["title"] == "Cache policy" and after["project"] == "obs-c"
    ok = http.patch(path + "?expected_project=obs-c", {"find": "5 minute", "replace": "10 minute"})
    assert ok.status == 200
    assert http.get(path).json["content"] == "Use a 10 minute TTL"
    both = http.patch(path + "?expected_project=obs-c", {"find": "a", "content": "b"})
    assert both.status == 400
    half = http.patch(path + "?expected_project=obs-c", {"find": "a"})
    assert half.status == 400
    assert http.get(path).json["content"] == "Use a 10 minute TTL"
    assert http.patch("/observations/999999?expected_project=obs-c", {"title": "x"}).status == 404


def test_delete_soft_then_hard(http: Client) -> None:
    obs_id = save(http, "obs-d", "Old note", "to delete")
    path = f"/observations/{obs_id}"
    assert http.delete(path).status == 400
    assert http.delete(path + "?expected_project=obs-other").status == 409
    assert http.get(path).status == 200
    soft = http.delete(path + "?expected_project=obs-d")
    assert soft.status == 200 and soft.json["hard"] is False
    assert http.get(path).status == 404
    hard = http.delete(path + "?expected_project=obs-d&hard=true")
    assert hard.status == 200 and hard.json["hard"] is True
    assert http.delete(path + "?expected_project=obs-d&hard=true").status == 404


def test_pin_and_unpin_are_idempotent(http: Client) -> None:
    obs_id = save(http, "obs-e", "Pinned rule", "always run tests")
    before = http.get(f"/observations/{obs_id}").json["updated_at"]
    for _ in range(2):
        assert http.put(f"/observations/{obs_id}/pin").json == {"id": obs_id, "pinned": True}
    assert http.get(f"/observations/{obs_id}").json["pinned"] is True
    assert http.delete(f"/observations/{obs_id}/pin").json == {"id": obs_id, "pinned": False}
    assert http.get(f"/observations/{obs_id}").json["updated_at"] == before


def test_topic_key_suggestion(http: Client) -> None:
    reply = http.post("/topic-keys/suggest", {"type": "bugfix", "title": "Fix login redirect loop"})
    assert reply.status == 200
    assert reply.json["topic_key"].startswith("bug/")
    assert http.post("/topic-keys/suggest", {"type": "bugfix"}).status == 400
    assert http.post("/topic-keys/suggest", body=b"nope").status == 400


def test_passive_capture_saves_only_learnings(http: Client) -> None:
    new_session(http, "obs-f", "obs-f-s")
    text = "Some chatter\n## Key Learnings:\n1. SQLite WAL needs a local disk\n- Retry on busy\n"
    reply = http.post("/observations/passive", {"content": text, "session_id": "obs-f-s"})
    assert reply.status == 200
    assert reply.json["found"] == 2 and len(reply.json["saved_ids"]) == 2
    titles = {o["title"] for o in http.get("/observations/recent?project=obs-f").json}
    assert titles == {"SQLite WAL needs a local disk", "Retry on busy"}
    none = http.post("/observations/passive", {"content": "just text", "session_id": "obs-f-s"})
    assert none.json["saved_ids"] == []
