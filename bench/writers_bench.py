"""Concurrent writers: ``--clients`` HTTP clients saving through ``engram serve`` at once,
against one in-process writer on the same store, and Engram's save against a raw insert.

Run it (not a test)::

    .venv/bin/python bench/writers_bench.py                    # 100k observations, 16 clients
    .venv/bin/python bench/writers_bench.py --size 10k --saves 300 --writes 60   # a quick look

1. A store of ``--size`` synthetic observations (``bench/store_bench.py``'s cached build) is
   copied to a temporary data dir (and flushed to disk, so no run pays for the copy). The
   server of step 3 starts, and its clients send ``--warm-writes`` untimed writes each, so
   that the first in-process run sees their rows as every later one does.
2. In-process: ``--saves`` saves through ``engram.memory.save.save_observation`` (one writer,
   each save its own transaction), alternating one by one with raw single-row ``INSERT``s
   that fire the same triggers (``store_bench.measure_saves``). The writer's rate is the
   baseline of step 3; save / raw is the in-process figure (target <= 3x at 100k).
3. HTTP: a real ``engram serve`` on a free loopback port; each of ``--clients`` threads
   registers its session (``POST /sessions``) and then sends ``--writes`` ``POST
   /observations`` the way a host's plugin does (session, project, type, a unique title), over
   its own keep-alive connection. The rate is acknowledged writes per second of wall time.
   Client p50/p95 and the server's CPU per write (its ``/proc`` rusage) are printed beside it.
4. Steps 3 and 2 alternate ``--rounds`` times (the server stays up, idle while the in-process
   writer runs). Each round's figure is its rate / the mean of the in-process writer runs
   just before and just after it, so both sides of a ratio see the same load; the median of
   the rounds is the figure (target >= 1.5x with 16 clients).
5. Checks: every acknowledged id is distinct and reads back with its own title, the project
   holds exactly the acknowledged writes (nothing lost, nothing doubled), the FTS index finds
   each of them, and ``PRAGMA integrity_check`` is ok. Any failure exits 1.

The load average is printed at the start and the end. Loopback only; bounded in count.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_bench import p95, start_server
from processes import cpu_seconds, load_average, tree_cpu_seconds
from store_bench import CACHE, build, measure_saves, parse_size

from engram.store.db import Store

PROJECT = "bench-writers"
# Settings the server gets from the bench's environment (ENGRAM_SEARCH=lexical: no embedding).
# Writes per client before the timed ones: the server loads its embedding model on the first.
WARM_UP = 2
PASSED_ENV = ("ENGRAM_SEARCH",)
# Where engram serve writes the saves: its writer process (the default), or its own threads
# (ENGRAM_WRITER_PROCESS=0, group commit led by a request's thread). --ways picks; each way is
# a server of its own on the same store, and its clients number from CLIENT_BLOCK * its index.
WAYS = {"writer process": "1", "in the server": "0"}
CLIENT_BLOCK = 1000
_WHERE = {
    "writer process": "by the server's writer process (the default)",
    "in the server": "in the server's own threads (ENGRAM_WRITER_PROCESS=0)",
}


class PostClient:
    """A lean HTTP/1.1 keep-alive client for JSON POSTs (it stands for a host's curl or fetch:
    the bench's own CPU should go to the server, not to parsing answers)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def post(self, path: str, payload: Mapping[str, object]) -> tuple[int, bytes]:
        body = json.dumps(payload).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.sock.sendall(head.encode() + body)
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        header, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = header.split(b"\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in lines
            if line.lower().startswith(b"content-length:")
        )
        while len(rest) < length:
            chunk = self.sock.recv(65_536)
            if not chunk:
                raise ConnectionError("engram serve closed the connection")
            rest += chunk
        self.buffer = rest[length:]
        return int(lines[0].split()[1]), rest[:length]

    def _fill(self) -> None:
        chunk = self.sock.recv(65_536)
        if not chunk:
            raise ConnectionError("engram serve closed the connection")
        self.buffer += chunk

    def close(self) -> None:
        self.sock.close()


@dataclass
class Writes:
    acknowledged: list[tuple[int, str]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    timed: int = 0  # acknowledged among the timed writes
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def note(client: int, n: int, session: str, project: str = PROJECT) -> dict[str, str]:
    """The observation client ``client`` writes at step ``n`` (an agent's discovery)."""
    return {
        "session_id": session,
        "project": project,
        "type": "discovery",
        "title": f"writer {client} note {n}",
        "content": f"what client {client} learned in step {n}: the cache key holds the route",
        "tool_name": "bench",
    }


def in_process_writer(data_dir: Path, saves: int) -> tuple[float, float]:
    """(saves/s, CPU ms per save) of one writer calling Engram's save in this process, with
    the HTTP clients' notes and a session of its own (project ``PROJECT``-inproc, removed)."""
    from engram.memory import save, sessions

    project = f"{PROJECT}-inproc"
    with Store.open(data_dir) as store:
        sessions.start_session(store, "bench-inproc", project=project, directory="/")
        wall, cpu = time.perf_counter(), time.process_time()
        for n in range(saves):
            save.save_observation(store, **note(0, n, "bench-inproc", project))  # type: ignore[arg-type]
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        with store.write() as conn:
            conn.execute(
                "DELETE FROM memory_relations WHERE source_id IN"
                " (SELECT sync_id FROM observations WHERE project = ?)",
                (project,),
            )
            conn.execute("DELETE FROM observations WHERE project = ?", (project,))
            conn.execute("DELETE FROM sessions WHERE project = ?", (project,))
    return saves / wall, cpu / saves * 1000


def settle(pid: int, quiet_ms: float = 20.0, bound_s: float = 30.0) -> None:
    """Wait until the server's start-up work (the MCP SDK loads in the background) is done:
    two 0.3 s intervals in a row in which it used less than ``quiet_ms`` of CPU."""
    deadline, quiet = time.monotonic() + bound_s, 0
    while quiet < 2 and time.monotonic() < deadline:
        before = tree_cpu_seconds(pid)
        time.sleep(0.3)
        quiet = quiet + 1 if (tree_cpu_seconds(pid) - before) * 1000 < quiet_ms else 0


def _writer(
    port: int, index: int, steps: range, start: threading.Barrier, out: Writes, warm_up: int
) -> None:
    client = PostClient(port)
    session = f"bench-writer-{index}"
    status, data = client.post("/sessions", {"id": session, "project": PROJECT, "directory": "/"})
    if status not in (200, 201):
        with out.lock:
            out.errors.append(f"POST /sessions: {status} {data[:120]!r}")
    for n in [*range(steps.start - warm_up, steps.start), *steps]:
        if n == steps.start:
            start.wait()
        timed = n >= steps.start
        payload = note(index, n, session)
        title = payload["title"]
        started = time.perf_counter()
        try:
            status, data = client.post("/observations", payload)
        except OSError as exc:
            status, data = 0, str(exc).encode()
        elapsed = (time.perf_counter() - started) * 1000
        with out.lock:
            if timed:
                out.latencies.append(elapsed)
            if status == 201:
                out.timed += timed
                out.acknowledged.append((int(json.loads(data)["id"]), title))
            else:
                out.errors.append(f"POST /observations: {status} {data[:120]!r}")
    client.close()


def http_writes(
    port: int, pid: int, clients: int, steps: range, warm_up: int = 0, first_client: int = 0
) -> tuple[Writes, float, float, float]:
    """(the writes, wall seconds, server CPU seconds, the server process's own CPU seconds) of
    ``clients`` concurrent writers (numbered from ``first_client``), each sending the notes of
    ``steps`` (after ``warm_up`` untimed ones numbered just before). The server's CPU includes
    its writer process's; its own does not."""
    out = Writes()
    start = threading.Barrier(clients + 1)
    threads = [
        threading.Thread(target=_writer, args=(port, first_client + i, steps, start, out, warm_up))
        for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    start.wait()
    cpu, own, started = tree_cpu_seconds(pid), cpu_seconds(pid), time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return out, wall, tree_cpu_seconds(pid) - cpu, cpu_seconds(pid) - own


def check(data_dir: Path, acknowledged: list[tuple[int, str]]) -> list[str]:
    """What is wrong with the stored writes (empty: nothing lost, nothing doubled)."""
    problems = []
    ids = [obs_id for obs_id, _ in acknowledged]
    if len(set(ids)) != len(ids):
        problems.append(f"{len(ids) - len(set(ids))} ids acknowledged twice")
    with Store.open(data_dir) as store:
        conn = store.connection
        stored = dict(
            conn.execute(
                "SELECT id, title FROM observations WHERE project = ? AND deleted_at IS NULL",
                (PROJECT,),
            ).fetchall()
        )
        lost = [obs_id for obs_id, title in acknowledged if stored.get(obs_id) != title]
        if lost:
            problems.append(f"{len(lost)} acknowledged writes lost (e.g. id {lost[0]})")
        if len(stored) != len(acknowledged):
            problems.append(f"{len(stored)} rows stored for {len(acknowledged)} acknowledged")
        indexed = conn.execute(
            "SELECT count(*) FROM observations_fts WHERE observations_fts MATCH ?",
            (f'"learned" AND project : "{PROJECT}"',),
        ).fetchone()[0]
        if indexed != len(acknowledged):
            problems.append(f"the FTS index finds {indexed} of {len(acknowledged)} writes")
        integrity = store.integrity_check()
        if integrity != "ok":
            problems.append(f"integrity_check: {integrity[:200]}")
    return problems


@dataclass
class Baselines:
    """One in-process run: the writer (saves/s, CPU ms per save) and save vs raw insert."""

    writer: tuple[float, float]
    saves: tuple[float, float, float]


def baselines(data_dir: Path, saves: int) -> Baselines:
    return Baselines(in_process_writer(data_dir, saves), measure_saves(data_dir, saves))


@dataclass
class Round:
    """One HTTP phase: its writes, wall and server CPU seconds, the load when it ended, and
    where the server wrote the saves (:data:`WAYS`)."""

    writes: Writes
    wall: float
    server_cpu: float
    own_cpu: float  # the server process's alone (without its writer process's)
    load: float
    way: str = "writer process"

    @property
    def rate(self) -> float:
        return self.writes.timed / self.wall if self.wall else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100k", help="observations in the store (10k, 100k)")
    parser.add_argument("--cache", type=Path, default=CACHE, help="where built stores are kept")
    parser.add_argument("--saves", type=int, default=600, help="in-process saves per run")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--writes", type=int, default=150, help="POSTs per client per round")
    parser.add_argument(
        "--rounds", type=int, default=3, help="HTTP phases, each between two in-process runs"
    )
    parser.add_argument(
        "--warm-writes",
        type=int,
        default=None,
        help="untimed POSTs per client before the first in-process run (default: --writes;"
        " 0: none, as before 2026-12-02)",
    )
    parser.add_argument(
        "--ways",
        default="writer process,in the server",
        help="where the server writes the saves, comma-separated (and compared):"
        f" {', '.join(WAYS)}",
    )
    args = parser.parse_args()
    args.ways = [way.strip() for way in args.ways.split(",") if way.strip()]
    unknown = [way for way in args.ways if way not in WAYS]
    if unknown or not args.ways:
        parser.error(f"--ways: one or more of {', '.join(WAYS)}")
    size, count = parse_size(args.size), max(1, args.rounds)
    if args.warm_writes is None:
        args.warm_writes = args.writes
    print(f"load average at the start: {load_average()}")
    with contextlib.redirect_stdout(sys.stderr):
        cached = build(size, args.cache)
    with tempfile.TemporaryDirectory(prefix="engram-writers-bench-") as tmp:
        data_dir, home = Path(tmp) / "data", Path(tmp) / "home"
        home.mkdir()
        shutil.copytree(cached, data_dir)
        os.sync()  # the copy's dirty pages would slow the first run's checkpoints
        os.environ["ENGRAM_DATA_DIR"] = str(data_dir)  # the in-process saves' data dir too
        in_process_writer(data_dir, 20)  # warm-up: the model loads, the caches fill
        passed = {k: v for k, v in os.environ.items() if k in PASSED_ENV}
        servers = [
            (way, *start_server(data_dir, home, {**passed, "ENGRAM_WRITER_PROCESS": WAYS[way]}))
            for way in args.ways
        ]
        runs: list[Baselines] = []
        rounds: list[Round] = []
        warm: list[Writes] = []
        try:
            for _, process, _ in servers:
                settle(process.pid)
            # Untimed HTTP writes first, so that every in-process run sees the clients' rows:
            # their titles share words with the in-process notes, and a save's conflict
            # lookup steps over them (without them the first run alone was up to 25% cheaper).
            if args.warm_writes:
                for number, (_, process, port) in enumerate(servers):
                    first_client = number * CLIENT_BLOCK
                    warm.append(
                        http_writes(
                            port,
                            process.pid,
                            args.clients,
                            range(args.warm_writes),
                            WARM_UP,
                            first_client,
                        )[0]
                    )
            runs.append(baselines(data_dir, args.saves))
            first = args.warm_writes
            for index in range(count):  # the servers idle while the in-process writer runs
                steps = range(first + index * args.writes, first + (index + 1) * args.writes)
                warm_up = WARM_UP if index == 0 and not args.warm_writes else 0
                for number, (way, process, port) in enumerate(servers):
                    out, wall, cpu, own = http_writes(
                        port, process.pid, args.clients, steps, warm_up, number * CLIENT_BLOCK
                    )
                    rounds.append(Round(out, wall, cpu, own, os.getloadavg()[0], way))
                    runs.append(baselines(data_dir, args.saves))
        finally:
            for _, process, _ in servers:
                process.terminate()
            for _, process, _ in servers:
                process.wait(timeout=30)
        phases = [*warm, *(r.writes for r in rounds)]
        acknowledged = [ack for writes in phases for ack in writes.acknowledged]
        errors = [error for writes in phases for error in writes.errors]
        problems = check(data_dir, acknowledged) + errors[:5]
    report(size, args, runs, rounds)
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


def _slashed(values: list[float], form: str) -> str:
    return " / ".join(format(value, form) for value in values)


def _split(way: str, server_cpu: float, own_cpu: float, writes: int) -> str:
    """How the server CPU per write divides between the server process and its writer process
    (empty when the server wrote the saves itself)."""
    if way != "writer process" or not writes:
        return ""
    return (
        f" (the server {own_cpu / writes * 1000:.2f} ms, its writer process"
        f" {(server_cpu - own_cpu) / writes * 1000:.2f} ms)"
    )


def report(size: int, args: argparse.Namespace, runs: list[Baselines], rounds: list[Round]) -> None:
    """Print the figures with their baselines: each HTTP round against the mean of the
    in-process writer runs just before and just after it (the load drifts between rounds)."""
    save_rate = statistics.mean(run.saves[0] for run in runs)
    raw_rate = statistics.mean(run.saves[1] for run in runs)
    print(
        f"\n{size:,} observations; {len(rounds)} rounds: in-process runs of {args.saves} saves"
        f" before, between and after HTTP phases of {args.clients} clients x {args.writes} writes"
        f" (after {args.clients} x {args.warm_writes} untimed writes)"
    )
    print(
        f"in-process save: {_slashed([run.saves[0] for run in runs], ',.0f')} saves/s, raw"
        f" INSERT {_slashed([run.saves[1] for run in runs], ',.0f')} transactions/s: save costs"
        f" {raw_rate / save_rate:.2f}x the raw insert (CPU"
        f" {_slashed([run.saves[2] for run in runs], '.2f')}x; target <= 3x)"
    )
    print(
        "one in-process writer (the clients' notes):"
        f" {_slashed([run.writer[0] for run in runs], ',.0f')} saves/s, CPU"
        f" {_slashed([run.writer[1] for run in runs], '.2f')} ms per save"
    )
    ratios: dict[str, list[float]] = {way: [] for way in args.ways}
    for index, current in enumerate(rounds):
        writes = current.writes
        baseline = statistics.mean([runs[index].writer[0], runs[index + 1].writer[0]])
        ratio = current.rate / baseline if baseline else 0.0
        ratios[current.way].append(ratio)
        latency = (
            f"; p50 {statistics.median(writes.latencies):.1f} ms, p95 {p95(writes.latencies):.1f} ms"
            if writes.latencies
            else ""
        )
        print(
            f"round {index + 1} ({current.way}): {args.clients} HTTP clients: {writes.timed:,}"
            f" writes in {current.wall:.1f} s = {current.rate:,.0f} writes/s, {ratio:.2f}x one"
            f" in-process writer ({baseline:,.0f}/s before and after){latency}; server CPU per"
            f" write {current.server_cpu / max(writes.timed, 1) * 1000:.2f} ms"
            f"{_split(current.way, current.server_cpu, current.own_cpu, writes.timed)}; load {current.load:.2f}"
        )
    for way in args.ways:
        mine = [r for r in rounds if r.way == way]
        latencies = [ms for r in mine for ms in r.writes.latencies]
        acked = sum(r.writes.timed for r in mine)
        server_cpu = sum(r.server_cpu for r in mine)
        own_cpu = sum(r.own_cpu for r in mine)
        print(
            f"{args.clients} HTTP clients, saves written {_WHERE[way]}, median of"
            f" {len(mine)} rounds: {statistics.median(ratios[way]):.2f}x one in-process writer"
            f" ({_slashed(ratios[way], '.2f')}; target >= 1.5x)"
        )
        if latencies:
            print(
                f"  client latency p50 {statistics.median(latencies):.1f} ms,"
                f" p95 {p95(latencies):.1f} ms; server CPU per write (its writer's included)"
                f" {server_cpu / max(acked, 1) * 1000:.2f} ms"
                f"{_split(way, server_cpu, own_cpu, acked)}"
            )
    errors = sum(len(r.writes.errors) for r in rounds)
    print(f"errors: {errors}; load average at the end: {load_average()}")


if __name__ == "__main__":
    sys.exit(main())
