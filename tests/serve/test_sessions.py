"""POST /sessions and friends: ownership modes, leases, ended sessions, resume continuations."""

from __future__ import annotations

import threading

from tests.serve.conftest import Client, new_session, save


def test_create_is_201_and_idempotent_with_a_30_minute_lease(route: Client) -> None:
    first = new_session(route, "sess-a", "s-create")
    assert first.status == 201
    assert first.json == {"id": "s-create", "status": "created"}
    again = new_session(route, "sess-a", "s-create", directory="/tmp")
    assert again.status == 201
    got = route.get("/sessions/s-create").json
    assert got["project"] == "sess-a"
    assert got["ownership_mode"] == "shared"
    started = got["started_at"]
    lease = got["runtime_lease_expires_at"]
    assert lease > started
    hours, minutes = (
        int(lease[11:13]) - int(started[11:13]),
        int(lease[14:16]) - int(started[14:16]),
    )
    assert (hours * 60 + minutes) % (24 * 60) in (30, 31)


def test_invalid_ownership_mode_is_400_and_creates_nothing(route: Client) -> None:
    reply = new_session(route, "sess-b", "s-bad-mode", ownership_mode="exclusive")
    assert reply.status == 400
    assert reply.json["code"] == "memory.bad_ownership_mode"
    assert route.get("/sessions/s-bad-mode").status == 404


def test_project_owned_conflict_is_409_and_changes_nothing(route: Client) -> None:
    new_session(route, "owner-one", "s-owned")
    before = route.get("/sessions/s-owned").json
    reply = new_session(route, "owner-two", "s-owned", ownership_mode="project_owned")
    assert reply.status == 409
    assert set(reply.json) == {"error", "code", "session_id", "owner_project", "requested_project"}
    assert reply.json["code"] == "session_project_conflict"
    assert reply.json["session_id"] == "s-owned"
    assert reply.json["owner_project"] == "owner-one"
    assert reply.json["requested_project"] == "owner-two"
    assert route.get("/sessions/s-owned").json == before
    same = new_session(route, "owner-one", "s-owned", ownership_mode="project_owned")
    assert same.status == 201
    shared = new_session(route, "owner-two", "s-owned")
    assert shared.status == 201
    assert route.get("/sessions/s-owned").json["project"] == "owner-one"


def test_ended_session_is_never_reopened(route: Client) -> None:
    new_session(route, "sess-end", "s-ended")
    ended = route.post("/sessions/s-ended/end", {"summary": "all done"})
    assert ended.status == 200
    assert route.get("/sessions/s-ended").json["ended_at"]
    reply = new_session(route, "sess-end", "s-ended")
    assert reply.status == 409
    assert reply.json["code"] == "session_already_ended"
    assert route.get("/sessions/s-ended").json["summary"] == "all done"


def test_resume_continues_an_ended_root_in_numbered_continuations(route: Client) -> None:
    live = new_session(route, "sess-res", "root-live", resume=True)
    assert live.json["id"] == "root-live" and "resumed_from" not in live.json
    new_session(route, "sess-res", "root")
    route.post("/sessions/root/end", {})
    first = new_session(route, "sess-res", "root", resume=True)
    assert first.status == 201
    assert first.json == {"id": "root:resume:2", "status": "created", "resumed_from": "root"}
    again = new_session(route, "sess-res", "root", resume=True)
    assert again.json["id"] == "root:resume:2"
    route.post("/sessions/root:resume:2/end", {})
    new_session(route, "sess-res", "root:resume:7")
    new_session(route, "sess-res", "root:resume:x")
    route.post("/sessions/root:resume:7/end", {})
    third = new_session(route, "sess-res", "root", resume=True)
    assert third.json["id"] == "root:resume:8"
    assert route.get("/sessions/root").json["ended_at"]


def test_resume_conflict_does_not_advance(route: Client) -> None:
    new_session(route, "res-a", "r2")
    route.post("/sessions/r2/end", {})
    new_session(route, "res-a", "r2", resume=True)
    reply = new_session(route, "res-b", "r2", resume=True, ownership_mode="project_owned")
    assert reply.status == 409
    assert reply.json["code"] == "session_project_conflict"
    assert route.get("/sessions/r2:resume:3").status == 404


def test_concurrent_resumes_converge_on_one_continuation(route: Client) -> None:
    new_session(route, "res-c", "busy")
    route.post("/sessions/busy/end", {})
    ids: list[str] = []

    def register() -> None:
        ids.append(new_session(route, "res-c", "busy", resume=True).json["id"])

    threads = [threading.Thread(target=register) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(ids) == {"busy:resume:2"}
    assert route.get("/sessions/busy:resume:3").status == 404


def test_recent_get_and_delete(route: Client) -> None:
    assert route.get("/sessions/recent?project=nobody-here").status == 404
    new_session(route, "sess-list", "l1")
    new_session(route, "sess-list", "l2")
    listed = route.get("/sessions/recent?project=sess-list&limit=1")
    assert listed.status == 200 and [s["id"] for s in listed.json] == ["l2"]
    everything = route.get("/sessions/recent?all_projects=true&limit=50").json
    assert {"l1", "l2"} <= {s["id"] for s in everything}
    both = route.get("/sessions/recent?all_projects=true&project=sess-list")
    assert both.status == 400
    assert route.get("/sessions/recent?project=sess-list&limit=abc").status == 400
    assert route.delete("/sessions/l1").status == 200
    assert route.get("/sessions/l1").status == 404
    assert route.delete("/sessions/l1").status == 404
    save(route, "sess-list", "Busy session", "holds a note", session_id="l2")
    busy = route.delete("/sessions/l2")
    assert busy.status == 409
    assert route.get("/sessions/l2").status == 200


def test_wrong_types_are_400(route: Client) -> None:
    assert route.post("/sessions", {"id": 5, "project": "x"}).status == 400
    assert route.post("/sessions", {"id": "t1", "resume": "yes"}).status == 400
    assert route.post("/sessions", ["not", "an", "object"]).status == 400
    assert route.post("/sessions", {"project": "x"}).status == 400
    assert route.get("/sessions/t1").status == 404
