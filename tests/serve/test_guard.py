"""Only local pages and programs may talk to the server: Host and Origin checks, JSON 404s."""

from __future__ import annotations

from tests.serve.conftest import Client, save


def test_health_reports_the_store(http: Client) -> None:
    reply = http.get("/health")
    assert reply.status == 200
    assert reply.json["status"] == "ok"
    assert reply.json["service"] == "engram"
    assert reply.json["version"]
    assert len(reply.json["instance_id"]) == 32
    assert http.get("/health").json["instance_id"] == reply.json["instance_id"]


def test_foreign_host_is_refused_and_writes_nothing(http: Client) -> None:
    evil = {"Host": "evil.example"}
    assert http.get("/health", headers=evil).status == 421
    body = {"id": "rebind-1", "project": "guarded"}
    refused = http.post("/sessions", body, headers={"Host": "evil.example:7437"})
    assert refused.status == 421
    assert refused.json["code"] == "http.host_not_local"
    assert http.get("/sessions/rebind-1").status == 404


def test_foreign_origin_is_refused_and_writes_nothing(http: Client) -> None:
    for origin in ("http://evil.example", "null", "http://127.0.0.1.evil.example:7437"):
        reply = http.post(
            "/sessions", {"id": "origin-1", "project": "guarded"}, headers={"Origin": origin}
        )
        assert reply.status == 403, origin
        assert reply.json["code"] == "http.origin_not_local"
    assert http.get("/sessions/origin-1").status == 404


def test_local_host_and_origin_are_served(http: Client) -> None:
    for host in ("localhost", "127.0.0.1:7437", "[::1]:7437", "LOCALHOST"):
        assert http.get("/health", headers={"Host": host}).status == 200, host
    reply = http.get("/health", headers={"Origin": "http://localhost:3000"})
    assert reply.status == 200


def test_mcp_endpoint_checks_host_too(http: Client) -> None:
    reply = http.post(
        "/mcp",
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"Host": "evil.example", "Accept": "application/json, text/event-stream"},
    )
    assert reply.status == 421


def test_unknown_route_and_method_are_json(http: Client) -> None:
    missing = http.get("/no/such/route")
    assert missing.status == 404
    assert missing.json["code"] == "http.no_route"
    wrong = http.put("/health")
    assert wrong.status == 405
    assert wrong.json["code"] == "http.method_not_allowed"


def test_malformed_json_is_a_clear_400_and_saves_nothing(http: Client) -> None:
    save(http, "guard-json", "First note", "kept")
    for raw in (b"{bad", b"[1, 2", b"\xff\xfe", b"{}" * 3):
        reply = http.request(
            "POST", "/observations", body=raw, headers={"Content-Type": "application/json"}
        )
        assert reply.status == 400, raw
        assert reply.json["code"] == "http.bad_json"
        assert reply.json["error"]
    listed = http.get("/observations/recent?project=guard-json").json
    assert [o["title"] for o in listed] == ["First note"]


def test_oversized_body_is_413_and_saves_nothing(http: Client) -> None:
    huge = {"title": "big", "content": "x" * (2 * 1024 * 1024), "project": "guard-big"}
    reply = http.post("/observations", huge)
    assert reply.status == 413
    assert reply.json["code"] == "http.body_too_large"
    listed = http.get("/observations/recent?all_projects=true&limit=500").json
    assert all(o["project"] != "guard-big" for o in listed)
    assert http.get("/observations/recent?project=guard-big").status == 404


BODY_ROUTES = [
    ("POST", "/sessions"),
    ("POST", "/sessions/any/end"),
    ("POST", "/observations"),
    ("PATCH", "/observations/1?expected_project=x"),
    ("POST", "/observations/passive"),
    ("POST", "/topic-keys/suggest"),
    ("POST", "/review/mark_reviewed"),
    ("POST", "/prompts"),
]


def test_every_body_route_refuses_malformed_json_and_non_objects(http: Client) -> None:
    before = http.get("/stats?all_projects=true").json
    for method, path in BODY_ROUTES:
        broken = http.request(
            method, path, body=b'{"title": ', headers={"Content-Type": "application/json"}
        )
        assert broken.status == 400, (method, path)
        assert broken.json["code"] == "http.bad_json"
        listed = http.request(method, path, json_body=[1, 2])
        assert listed.status == 400, (method, path)
        assert listed.json["code"] == "http.bad_body"
    assert http.get("/stats?all_projects=true").json == before


def test_unknown_ids_are_404(http: Client) -> None:
    assert http.post("/sessions/never-seen/end", {"summary": "x"}).status == 404
    assert http.get("/sessions/never-seen").status == 404
    assert http.delete("/sessions/never-seen").status == 404
    assert http.delete("/prompts/987654").status == 404
    assert http.get("/timeline?observation_id=987654").status == 404
    assert http.post("/review/mark_reviewed", {"observation_id": 987654}).status == 404
