"""``engram serve`` writes saves in a writer process of its own: the same answers as a save in
the server's own threads, the same refusals, nothing lost when the writer dies, and no writer
left behind when the server stops."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

from engram.store.db import Store
from engram.testing import Sandbox
from tests.serve.conftest import Client, Reply, Server, new_session, start_server


def _writer_pids(server: Server) -> list[int]:
    """The server's children running ``engram.http.writer_process``."""
    pid = server.process.pid
    children = []  # each thread's children: the writer is started by a worker thread
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children.extend((task / "children").read_text().split())
        except FileNotFoundError:
            continue
    found = []
    for child in children:
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except FileNotFoundError:
            continue
        if b"engram.http.writer_process" in command:
            found.append(int(child))
    return found


def _note(client: Client, index: int, n: int) -> Reply:
    """Client ``index``'s save number ``n`` in atlas (session atlas-s)."""
    return client.post(
        "/observations",
        {
            "session_id": "atlas-s",
            "project": "atlas",
            "title": f"client {index} note {n}",
            "content": f"client {index} learned {n}",
        },
    )


def _store_connections(pid: int, data_dir: Path) -> int:
    """How many of process ``pid``'s open files are a database in ``data_dir``."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(data_dir)) and target.endswith(".db"):
            count += 1
    return count


def _writer_ready(server: Server) -> bool:
    """Whether the writer process has opened the store and its checkpoint connection (it
    tells the server it is ready right after): saves go to it from then on."""
    pids = _writer_pids(server)
    return bool(pids) and _store_connections(pids[0], server.sandbox.data_dir) >= 2


def _serving_atlas(tmp_path: Path) -> Server:
    """``engram serve`` with its writer process ready and the session atlas-s started (on a
    loaded machine the writer can take seconds to open the store; until then the server
    writes the saves itself, and these tests would not be about the writer)."""
    server = start_server(Sandbox(tmp_path))
    _wait_for(lambda: _writer_ready(server), timeout=60)
    assert new_session(server.client, "atlas", "atlas-s").status == 201
    return server


def _started(target: Callable[[int], None], count: int) -> list[threading.Thread]:
    """``count`` threads running ``target(0)`` ... ``target(count - 1)``."""
    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    return threads


def _wait_for(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return status != "Z"


def _answers(server: Server, project: str) -> list[dict[str, object]]:
    """Three saves, the last two with titles like the first: created, then candidates."""
    client = server.client
    assert new_session(client, project, f"{project}-s").status == 201
    answers = []
    for title in (
        "cache key holds the route name",
        "cache key holds the route and the verb",
        "cache key holds the route",
    ):
        reply = client.post(
            "/observations",
            {
                "session_id": f"{project}-s",
                "project": project,
                "title": title,
                "content": f"learned: {title}",
                "type": "discovery",
            },
        )
        assert reply.status == 201, reply.json
        answers.append(reply.json)
    return answers


def _comparable(answer: dict[str, object]) -> dict[str, object]:
    observation = dict(answer["observation"])  # type: ignore[call-overload]
    for moving in ("id", "sync_id", "session_id", "review_after"):
        observation.pop(moving, None)
    for stamp in [key for key in observation if key.endswith("_at")]:
        observation.pop(stamp)  # moments: the two servers save a second or so apart
    candidates = [
        {k: v for k, v in c.items() if k in ("title", "type")}
        for c in answer["candidates"]  # type: ignore[attr-defined]
    ]
    return {**answer, "observation": observation, "candidates": candidates, "id": None}


def test_saves_are_written_by_the_writer_process_with_the_in_server_answers(
    tmp_path: Path,
) -> None:
    by_writer = start_server(Sandbox(tmp_path / "a"))
    in_server = start_server(Sandbox(tmp_path / "b"), env={"ENGRAM_WRITER_PROCESS": "0"})
    try:
        _wait_for(lambda: _writer_pids(by_writer))
        assert _writer_pids(in_server) == []
        first = _answers(by_writer, "atlas")
        second = _answers(in_server, "atlas")
        assert [_comparable(a) for a in first] == [_comparable(a) for a in second]
        assert [a["action"] for a in first] == ["created", "created", "created"]
        assert len(first[2]["candidates"]) == 2  # type: ignore[arg-type]
        # What the writer answered is committed: another process reads it right away.
        with Store.open(by_writer.sandbox.data_dir) as store:
            titles = [
                row[0]
                for row in store.connection.execute(
                    "SELECT title FROM observations WHERE project = 'atlas' ORDER BY id"
                )
            ]
        assert titles == [a["observation"]["title"] for a in first]  # type: ignore[index]
        # A repeat is deduplicated by the writer as by the server.
        again = by_writer.client.post(
            "/observations",
            {
                "session_id": "atlas-s",
                "project": "atlas",
                "title": "cache key holds the route",
                "content": "learned: cache key holds the route",
                "type": "discovery",
            },
        )
        assert again.status == 201
        assert again.json["action"] == "deduplicated"
        assert again.json["id"] == first[2]["id"]
    finally:
        by_writer.stop()
        in_server.stop()


def test_a_save_the_writer_refuses_answers_as_the_server_would(tmp_path: Path) -> None:
    by_writer = start_server(Sandbox(tmp_path / "a"))
    in_server = start_server(Sandbox(tmp_path / "b"), env={"ENGRAM_WRITER_PROCESS": "0"})
    try:
        _wait_for(lambda: _writer_pids(by_writer))
        refused = [
            # The session belongs to atlas (checked by the write, in its transaction).
            {"session_id": "atlas-s", "project": "borealis", "title": "t", "content": "x"},
            {"session_id": "never-started", "project": "atlas", "title": "t", "content": "x"},
        ]
        for server in (by_writer, in_server):
            assert new_session(server.client, "atlas", "atlas-s").status == 201
        for body in refused:
            first, second = (
                server.client.post("/observations", body) for server in (by_writer, in_server)
            )
            assert first.status == second.status
            assert 400 <= first.status < 500
            assert first.json == second.json
            assert first.json["code"] in (
                "session_project_conflict",
                "unknown_session",
                "memory.session_project_mismatch",
            )
        with Store.open(by_writer.sandbox.data_dir) as store:
            count = store.connection.execute("SELECT count(*) FROM observations").fetchone()[0]
        assert count == 0
    finally:
        by_writer.stop()
        in_server.stop()


def test_saves_go_on_when_the_writer_process_is_killed(tmp_path: Path) -> None:
    server = _serving_atlas(tmp_path)
    client = server.client
    try:
        acknowledged: list[int] = []
        errors: list[object] = []
        lock = threading.Lock()

        def writer(index: int) -> None:
            for n in range(25):
                reply = _note(client, index, n)
                with lock:
                    if reply.status == 201:
                        acknowledged.append(int(reply.json["id"]))
                    else:
                        errors.append(reply.json)

        threads = _started(writer, 8)
        time.sleep(0.3)
        (pid,) = _writer_pids(server)
        os.kill(pid, signal.SIGKILL)
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(acknowledged) == 200
        assert len(set(acknowledged)) == 200
        with Store.open(server.sandbox.data_dir) as store:
            stored = {
                row[0]
                for row in store.connection.execute(
                    "SELECT id FROM observations WHERE project = 'atlas' AND deleted_at IS NULL"
                )
            }
        assert stored == set(acknowledged)  # nothing lost, nothing stored twice
        assert server.process.poll() is None
    finally:
        err = server.stop()
    assert "the writer process stopped; saves are written by the server" in err


def test_a_save_whose_client_hung_up_is_stored_once_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    """Saves now wait for the writer's answer on the event loop: clients that close their
    connection right after sending leave no waiting request behind, and each save is stored."""
    server = _serving_atlas(tmp_path)
    try:
        for n in range(20):
            body = json.dumps(
                {"session_id": "atlas-s", "project": "atlas", "title": f"hung up {n}",
                 "content": f"the client left before save {n} was answered"}
            ).encode()  # fmt: skip
            with socket.create_connection(("127.0.0.1", server.client.port)) as sock:
                sock.sendall(
                    b"POST /observations HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
        answered = _note(server.client, 0, 0)
        assert answered.status == 201, answered.json

        def stored() -> list[str]:
            with Store.open(server.sandbox.data_dir) as store:
                return [
                    row[0]
                    for row in store.connection.execute(
                        "SELECT title FROM observations WHERE project = 'atlas'"
                        " AND title LIKE 'hung up %'"
                    )
                ]

        _wait_for(lambda: len(stored()) == 20)
        assert sorted(stored()) == sorted(f"hung up {n}" for n in range(20))
        assert server.process.poll() is None
    finally:
        err = server.stop()
    assert "Traceback" not in err


def test_the_writer_process_ends_with_the_server(tmp_path: Path) -> None:
    server = start_server(Sandbox(tmp_path))
    _wait_for(lambda: _writer_pids(server))
    (pid,) = _writer_pids(server)
    server.stop()
    _wait_for(lambda: not _alive(pid), timeout=15)

    killed = start_server(Sandbox(tmp_path / "killed"))
    _wait_for(lambda: _writer_pids(killed))
    (orphan,) = _writer_pids(killed)
    killed.process.kill()  # no clean-up at all: the pipe's end closes with the process
    killed.stop()
    _wait_for(lambda: not _alive(orphan), timeout=15)


def test_the_servers_own_writes_take_turns_with_the_writer(tmp_path: Path) -> None:
    # Session starts (written by the server itself) while 8 clients keep the writer busy:
    # every one of both kinds answers, none waits out SQLite's busy timeout.
    server = _serving_atlas(tmp_path)
    client = server.client
    try:
        stop = threading.Event()
        failures: list[object] = []
        saved = [0]

        def saver(index: int) -> None:
            n = 0
            while not stop.is_set():
                reply = _note(client, index, n)
                n += 1
                if reply.status != 201:
                    failures.append(("save", reply.json))
                else:
                    saved[0] += 1

        threads = _started(saver, 8)
        try:
            for n in range(30):
                reply = new_session(client, "atlas", f"started-{n}")
                if reply.status != 201:
                    failures.append(reply.json)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        assert failures == []
        assert saved[0] > 0
        with Store.open(server.sandbox.data_dir) as store:
            started = store.connection.execute(
                "SELECT count(*) FROM sessions WHERE id LIKE 'started-%'"
            ).fetchone()[0]
            saves = store.connection.execute(
                "SELECT count(*) FROM observations WHERE project = 'atlas'"
            ).fetchone()[0]
        assert started == 30
        assert saves == saved[0]
    finally:
        server.stop()
