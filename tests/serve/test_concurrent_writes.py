"""Many clients writing at once through ``engram serve``: each write answers for itself, and an
acknowledged write survives the server being killed right after."""

from __future__ import annotations

import http.client
import os
import signal
import threading
import time

from engram.store.db import Store
from engram.testing import Sandbox
from tests.serve.conftest import Client, Reply, Server, new_session, start_server

CLIENTS = 16


def _concurrently(jobs: list[tuple[str, object]], client: Client) -> dict[str, Reply]:
    """Send every ``(name, request)`` at once (one thread each); the replies by name."""
    replies: dict[str, Reply] = {}
    start = threading.Barrier(len(jobs))

    def send(name: str, request: object) -> None:
        start.wait()
        if isinstance(request, bytes):
            replies[name] = client.request("POST", "/observations", body=request)
        else:
            replies[name] = client.post("/observations", request)

    threads = [threading.Thread(target=send, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return replies


def test_refused_writes_answer_alone_while_the_others_are_saved(served: Server) -> None:
    client = served.client
    assert new_session(client, "alpha", "alpha-s").status == 201
    assert new_session(client, "beta", "beta-s").status == 201
    jobs: list[tuple[str, object]] = [
        (f"good {n}", {"session_id": "alpha-s", "title": f"good {n}", "content": f"note {n}"})
        for n in range(CLIENTS)
    ]
    jobs += [
        ("unknown session", {"session_id": "nope", "title": "t", "content": "c"}),
        (
            "other project's session",
            {"session_id": "beta-s", "project": "alpha", "title": "t", "content": "c"},
        ),
        ("empty content", {"session_id": "alpha-s", "title": "t", "content": "  "}),
        ("too large", b'{"title": "big", "content": "' + b"x" * (1024 * 1024) + b'"}'),
        (
            "redacted",
            {"session_id": "alpha-s", "title": "key", "content": "k <private>s3cret</private>"},
        ),
    ]
    replies = _concurrently(jobs, client)
    assert replies["unknown session"].status == 404
    assert replies["unknown session"].json["code"] == "unknown_session"
    assert replies["other project's session"].status == 409
    assert replies["empty content"].status == 400
    assert replies["too large"].status == 413
    assert replies["redacted"].status == 201 and replies["redacted"].json["redacted"] is True
    ids = {}
    for n in range(CLIENTS):
        reply = replies[f"good {n}"]
        assert reply.status == 201, reply.json
        ids[reply.json["id"]] = f"good {n}"
    assert len(ids) == CLIENTS
    for obs_id, title in ids.items():
        assert client.get(f"/observations/{obs_id}").json["title"] == title
    stored = client.get("/search?q=note&project=alpha&limit=50").json
    assert sorted(hit["title"] for hit in stored) == sorted(ids.values())
    served.stop()
    with Store.open(served.sandbox.data_dir) as store:
        rows = store.connection.execute("SELECT title, content FROM observations").fetchall()
    assert sorted(title for title, _ in rows) == sorted([*ids.values(), "key"])
    assert ("key", "k [REDACTED]") in [tuple(row) for row in rows]


def test_acknowledged_writes_survive_a_kill_right_after(sandbox: Sandbox) -> None:
    server = start_server(sandbox)
    client = server.client
    assert new_session(client, "alpha", "alpha-s").status == 201
    acknowledged: dict[int, str] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def writer(worker: int) -> None:
        n = 0
        while not stop.is_set():
            title = f"worker {worker} write {n}"
            try:
                reply = client.post(
                    "/observations", {"session_id": "alpha-s", "title": title, "content": "body"}
                )
            except (OSError, http.client.HTTPException):
                return  # the server is gone (killed before or while it answered: not acknowledged)
            if reply.status == 201:
                with lock:
                    acknowledged[int(reply.json["id"])] = title
            n += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < 80 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(server.process.pid, signal.SIGKILL)  # while writes are still in flight
    stop.set()
    for thread in threads:
        thread.join()
    server.process.wait(timeout=30)
    with lock:
        expected = dict(acknowledged)
    assert len(expected) >= 80
    with Store.open(sandbox.data_dir) as store:
        stored = dict(store.connection.execute("SELECT id, title FROM observations").fetchall())
        assert store.integrity_check() == "ok"
    assert {obs_id: stored.get(obs_id) for obs_id in expected} == expected
