"""ENGRAM_HTTP_TOKEN: guarded routes, rescue-ownership's rules, export/import round trip."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from engram.testing import Sandbox
from tests.serve.conftest import Server, new_session, save, start_server

TOKEN = "s3cret-token-value"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def guarded(sandbox: Sandbox) -> Iterator[Server]:
    server = start_server(sandbox, env={"ENGRAM_HTTP_TOKEN": TOKEN})
    try:
        yield server
    finally:
        server.stop()


def test_guarded_routes_need_the_bearer_token(guarded: Server) -> None:
    api = guarded.client
    obs_id = save(api, "tok", "Keep me", "unless authorized")
    new_session(api, "tok", "tok-empty")
    prompt = api.post("/prompts", {"session_id": "tok-s", "content": "a prompt"}).json["id"]
    attempts = [
        ("DELETE", f"/observations/{obs_id}?expected_project=tok"),
        ("DELETE", "/sessions/tok-empty"),
        ("DELETE", f"/prompts/{prompt}"),
        ("GET", "/export?project=tok"),
        ("POST", "/import"),
    ]
    for method, path in attempts:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            reply = api.request(method, path, headers=headers)
            assert reply.status == 401, (method, path, headers)
            assert reply.json["code"] == "http.unauthorized"
    assert api.get(f"/observations/{obs_id}").status == 200
    assert api.get("/sessions/tok-empty").status == 200
    assert api.get("/export?project=tok", headers=BEARER).status == 200
    assert api.delete(f"/prompts/{prompt}", headers=BEARER).status == 200
    assert api.get("/search?q=keep").status == 200  # other routes stay open
    assert TOKEN not in guarded.stop()


def test_rescue_ownership_without_a_token_is_503(served: Server) -> None:
    reply = served.client.post(
        "/projects/rescue-ownership",
        {"target_project": "x", "confirmed": True, "session_ids": ["a"]},
    )
    assert reply.status == 503
    assert served.client.post("/projects/migrate", {}).status == 503


def test_rescue_ownership_rules(guarded: Server) -> None:
    api = guarded.client
    url = "/projects/rescue-ownership"
    body = {"target_project": "legacy", "confirmed": True, "session_ids": ["s-x"]}
    assert api.post(url, body).status == 401
    assert api.post(url, body, headers={"Authorization": "Bearer nope"}).status == 401
    for bad in (
        {"target_project": "legacy", "session_ids": ["s-x"]},
        {"target_project": "legacy", "confirmed": True},
        {"target_project": "legacy", "confirmed": True, "observation_ids": [0, -1]},
        {"target_project": "legacy", "confirmed": True, "session_ids": ["  "]},
        {"confirmed": True, "session_ids": ["s-x"]},
        {"target_project": "legacy", "confirmed": True, "observation_ids": ["1"]},
    ):
        assert api.post(url, bad, headers=BEARER).status == 400, bad
    assert api.post(url, body=b"{nope", headers=BEARER).status == 400
    big = {**body, "session_ids": ["s" * 100] * 100}
    assert api.post(url, big, headers=BEARER).status == 413


def test_rescue_moves_unowned_rows_and_names_what_it_left(guarded: Server) -> None:
    api = guarded.client
    owned = save(api, "other", "Owned elsewhere", "stays")
    reply = api.post(
        "/projects/migrate",
        {
            "target_project": "legacy",
            "confirmed": True,
            "observation_ids": [owned, 999999],
            "session_ids": ["other-s", "ghost"],
        },
        headers=BEARER,
    )
    assert reply.status == 200
    data = reply.json
    assert data["status"] == "partially_rescued" and data["complete"] is False
    reasons = {(b["kind"], str(b["id"]), b["reason"]) for b in data["blocked"]}
    assert reasons == {
        ("observation", str(owned), "owned_by_other_project"),
        ("observation", "999999", "missing"),
        ("session", "other-s", "owned_by_other_project"),
        ("session", "ghost", "missing"),
    }
    assert data["rescued_observations"] == 0
    assert api.get(f"/observations/{owned}").json["project"] == "other"


def test_export_import_round_trip(
    sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> None:
    source = start_server(sandbox)
    try:
        save(source.client, "moving", "Portable note", "goes along")
        exported = source.client.get("/export?project=moving")
        assert exported.status == 200
        assert exported.json["version"]
        assert source.client.get("/export?project=").status == 400
        assert source.client.get("/export?project=a&all_projects=true").status == 400
    finally:
        source.stop()
    target = start_server(Sandbox(tmp_path_factory.mktemp("target")))
    try:
        api = target.client
        bad = api.post("/import", {"version": "9.9.9"})
        assert bad.status == 400
        assert api.post("/import", body=b"not json").status == 400
        assert api.get("/stats?all_projects=true").json["observations"] == 0
        done = api.post("/import", exported.json)
        assert done.status == 200 and done.json["observations"] == 1
        assert [o["title"] for o in api.get("/observations/recent?project=moving").json] == [
            "Portable note"
        ]
    finally:
        target.stop()


def test_ambiguous_server_directory_is_409(sandbox: Sandbox) -> None:
    for child in ("alpha", "beta"):
        subprocess.run(["git", "init", "-q", str(sandbox.workspace / child)], check=True)
    server = start_server(sandbox)
    try:
        reply = server.client.get("/observations/recent")
        assert reply.status == 409
        assert reply.json["code"] == "ambiguous_project"
        assert reply.json["available_projects"] == ["alpha", "beta"]
        assert reply.json["project_source"] == "ambiguous"
        assert reply.json["project_path"] == str(sandbox.workspace.resolve())
        assert server.client.get("/observations/recent?all_projects=true").json == []
    finally:
        server.stop()
