"""Observations over HTTP: save, list, get, update, delete, pin, topic keys, passive capture."""

from __future__ import annotations

from tests.serve.conftest import Client, new_session, save


def test_save_get_and_list(route: Client) -> None:
    new_session(route, "obs-a", "obs-a-s")
    reply = route.post(
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
    got = route.get(f"/observations/{obs_id}").json
    assert got["project"] == "obs-a"
    assert got["content"] == "We chose Postgres [REDACTED] for jobs"
    assert got["type"] == "decision"
    recent = route.get("/observations/recent?project=obs-a").json
    assert [o["id"] for o in recent] == [obs_id]
    compat = route.get("/observations?project=obs-a&sort=created_at:desc").json
    assert compat == recent
    assert route.get("/observations?project=obs-a&scope=personal").json == []


def test_missing_or_blank_title_or_content_is_400(route: Client) -> None:
    new_session(route, "obs-b", "obs-b-s")
    for body in (
        {"session_id": "obs-b-s", "content": "no title"},
        {"session_id": "obs-b-s", "title": "   ", "content": "blank title"},
        {"session_id": "obs-b-s", "title": "no content"},
        {"session_id": "obs-b-s", "title": "t", "content": "\n\t "},
        {"session_id": "obs-b-s", "title": 7, "content": "wrong type"},
    ):
        reply = route.post("/observations", body)
        assert reply.status == 400, body
        assert reply.json["error"]
    assert route.get("/observations/recent?project=obs-b").json == []


def test_unknown_and_invalid_ids(route: Client) -> None:
    assert route.get("/observations/999999").status == 404
    assert route.get("/observations/abc").status == 400
    assert route.get("/observations/-3").status == 400
    assert route.put("/observations/999999/pin").status == 404
    assert route.put("/observations/abc/pin").status == 400
    assert route.delete("/observations/999999?expected_project=x").status == 404


def test_patch_requires_the_owner_and_never_moves_a_row(route: Client) -> None:
    obs_id = save(route, "obs-c", "Cache policy", "Use a 5 minute TTL")
    path = f"/observations/{obs_id}"
    assert route.patch(path, {"title": "x"}).status == 400
    assert route.patch(path + "?expected_project=%20", {"title": "x"}).status == 400
    wrong = route.patch(path + "?expected_project=other", {"title": "x"})
    assert wrong.status == 409
    moved = route.patch(path + "?expected_project=obs-c", {"project": "elsewhere"})
    assert moved.status == 409
    after = route.get(path).json
    assert after["title"] == "Cache policy" and after["project"] == "obs-c"
    ok = route.patch(path + "?expected_project=obs-c", {"find": "5 minute", "replace": "10 minute"})
    assert ok.status == 200
    assert route.get(path).json["content"] == "Use a 10 minute TTL"
    both = route.patch(path + "?expected_project=obs-c", {"find": "a", "content": "b"})
    assert both.status == 400
    half = route.patch(path + "?expected_project=obs-c", {"find": "a"})
    assert half.status == 400
    assert route.get(path).json["content"] == "Use a 10 minute TTL"
    assert route.patch("/observations/999999?expected_project=obs-c", {"title": "x"}).status == 404


def test_delete_soft_then_hard(route: Client) -> None:
    obs_id = save(route, "obs-d", "Old note", "to delete")
    path = f"/observations/{obs_id}"
    assert route.delete(path).status == 400
    assert route.delete(path + "?expected_project=obs-other").status == 409
    assert route.get(path).status == 200
    soft = route.delete(path + "?expected_project=obs-d")
    assert soft.status == 200 and soft.json["hard"] is False
    assert route.get(path).status == 404
    hard = route.delete(path + "?expected_project=obs-d&hard=true")
    assert hard.status == 200 and hard.json["hard"] is True
    assert route.delete(path + "?expected_project=obs-d&hard=true").status == 404


def test_pin_and_unpin_are_idempotent(route: Client) -> None:
    obs_id = save(route, "obs-e", "Pinned rule", "always run tests")
    before = route.get(f"/observations/{obs_id}").json["updated_at"]
    for _ in range(2):
        assert route.put(f"/observations/{obs_id}/pin").json == {"id": obs_id, "pinned": True}
    assert route.get(f"/observations/{obs_id}").json["pinned"] is True
    assert route.delete(f"/observations/{obs_id}/pin").json == {"id": obs_id, "pinned": False}
    assert route.get(f"/observations/{obs_id}").json["updated_at"] == before


def test_topic_key_suggestion(route: Client) -> None:
    reply = route.post(
        "/topic-keys/suggest", {"type": "bugfix", "title": "Fix login redirect loop"}
    )
    assert reply.status == 200
    assert reply.json["topic_key"].startswith("bug/")
    assert route.post("/topic-keys/suggest", {"type": "bugfix"}).status == 400
    assert route.post("/topic-keys/suggest", body=b"nope").status == 400


def test_passive_capture_saves_only_learnings(route: Client) -> None:
    new_session(route, "obs-f", "obs-f-s")
    text = "Some chatter\n## Key Learnings:\n1. SQLite WAL needs a local disk\n- Retry on busy\n"
    reply = route.post("/observations/passive", {"content": text, "session_id": "obs-f-s"})
    assert reply.status == 200
    assert reply.json["found"] == 2 and len(reply.json["saved_ids"]) == 2
    titles = {o["title"] for o in route.get("/observations/recent?project=obs-f").json}
    assert titles == {"SQLite WAL needs a local disk", "Retry on busy"}
    none = route.post("/observations/passive", {"content": "just text", "session_id": "obs-f-s"})
    assert none.json["saved_ids"] == []
