"""Cloud benchmark: push and pull through ``engram cloud serve`` against Postgres's own speed
for the same rows, at 1k, 10k and 100k observations, then three servers with 50 clients.

Run it (not a test)::

    .venv/bin/python bench/cloud_bench.py                       # 1k, 10k, 100k; 3 repeats (1k 15, 10k 10)
    .venv/bin/python bench/cloud_bench.py --sizes 1000 --repeats 1 --fleet-clients 6

It starts a throwaway PostgreSQL (``initdb`` + ``pg_ctl``, fsync off as in the tests; or uses
``ENGRAM_DATABASE_URL``, then Postgres's CPU is not counted) and a real ``engram cloud serve``
on a free loopback port with a sync token. For each repeat and size (sizes take turns, so
each size is measured under the same load), in a rotating order, it times the same N
observation mutations five ways:

- ``copy``: ``COPY`` of the rows into a table shaped like ``cloud_mutations`` (``LIKE ...
  INCLUDING ALL``: same columns, keys and indexes), one ``COPY`` and commit per 500;
- ``executemany``: the same rows by psycopg's pipelined ``executemany``, 500 per commit;
- ``push``: ``POST /sync/mutations/push`` in the batches ``engram sync --cloud`` sends, as it
  sends them (``send_batches``: 4,000 rows or 4 MiB of lines, each batch written into a
  chunked request as it is made, the server storing it as it arrives; the baselines keep
  500 per commit),
  through its client (validation, duplicate check, sequencing, chunk, audit, HTTP);
- ``select``: the rows back in keyset pages of 500 (``seq > cursor AND seq <= cursor + 500
  ORDER BY seq LIMIT 500``);
- ``pull``: ``GET /sync/mutations/pull`` pages as ``engram sync --cloud`` asks for them
  (``PULL_PAGE`` rows, 1,000; the server stops a page of big memories earlier; each page asked
  for while the one before is parsed: :mod:`engram.sync.cloud.pull_ahead`), parsed by the
  client, until the end.

For each it prints the median wall time and CPU (this process + the server + the Postgres
backends serving clients; autovacuum and checkpoints are left out of every step), the
throughput ratios push/copy, push/executemany and pull/select, and how CPU grows from one size
to the next (10x the rows should cost at most ~10x). Then :mod:`cloud_fleet` runs three
servers on one database with 50 concurrent clients and checks nothing was lost or duplicated.
The load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import psycopg
from cloud_fleet import TOKEN, observation, run_fleet, start_server
from processes import client_backends_cpu_seconds, cpu_seconds, load_average
from psycopg.types.json import Jsonb

from engram.cloud.scratch_postgres import ScratchPostgres
from engram.sync.cloud import pull_ahead
from engram.sync.cloud.client import CloudClient
from engram.sync.cloud.config import Remote
from engram.sync.cloud.replicate import send_batches
from engram.sync.mutation import Mutation

BATCH = 500
COLUMNS = "project, seq, origin, clock, entity, entity_key, op, entity_project, payload, created_by"
WAYS = ("copy", "executemany", "push", "select", "pull")


def observations(count: int, origin: str, project: str) -> list[Mutation]:
    """``count`` realistic observation upserts of ``project`` from one replica."""
    return [observation(origin, seq, project) for seq in range(1, count + 1)]


def _row(project: str, seq: int, m: Mutation) -> tuple[object, ...]:
    payload = Jsonb(m.payload)
    return (project, seq, m.origin, m.seq, m.entity, m.key, m.op, m.project, payload, "bench")


def plain_copy(conn: psycopg.Connection, project: str, rows: list[Mutation]) -> None:
    sql = f"COPY bench_copy ({COLUMNS}) FROM STDIN"
    for start in range(0, len(rows), BATCH):
        with conn.cursor() as cur, cur.copy(sql) as copy:
            for i, m in enumerate(rows[start : start + BATCH], start=start + 1):
                copy.write_row(_row(project, i, m))
        conn.commit()


def plain_executemany(conn: psycopg.Connection, project: str, rows: list[Mutation]) -> None:
    sql = f"INSERT INTO bench_many ({COLUMNS}) VALUES ({', '.join(['%s'] * 10)})"
    for start in range(0, len(rows), BATCH):
        params = [
            _row(project, i, m) for i, m in enumerate(rows[start : start + BATCH], start=start + 1)
        ]
        with conn.cursor() as cur:
            cur.executemany(sql, params)
        conn.commit()


# Keyset pages bounded on the dense seq, as the server's own pull reads them: with stale
# statistics ``seq > cursor`` alone is planned as a sort of every later row (on disk at 100k).
_SELECT = """
    SELECT seq, origin, clock, entity, entity_key, op, entity_project, payload, created_by
    FROM bench_copy WHERE project = %s AND seq > %s AND seq <= %s ORDER BY seq LIMIT %s
"""


def plain_select(conn: psycopg.Connection, project: str, expected: int) -> None:
    since, seen = 0, 0
    while True:
        page = conn.execute(_SELECT, (project, since, since + BATCH, BATCH)).fetchall()
        conn.commit()
        if not page:
            break
        seen += len(page)
        since = page[-1][0]
    assert seen == expected, (seen, expected)


def push(client: CloudClient, project: str, rows: list[Mutation]) -> None:
    for batch, result in send_batches(client, project, rows):  # as engram sync --cloud sends
        assert result["accepted"] == len(batch), result


def pull(client: CloudClient, project: str, expected: int) -> None:
    seen = 0
    for page in pull_ahead.pages(client, project, 0):  # as engram sync --cloud asks for them
        seen += len(page["mutations"])
    assert seen == expected, (seen, expected)


@dataclass
class Meter:
    """Wall and CPU time of one timed step: this process, the server, Postgres."""

    server_pid: int
    postgres_pid: int | None

    def cpu(self) -> tuple[float, float, float]:
        pg = client_backends_cpu_seconds(self.postgres_pid) if self.postgres_pid else 0.0
        return time.process_time(), cpu_seconds(self.server_pid), pg

    def time(self, step: Callable[[], None]) -> Figure:
        """``(wall, client CPU, server CPU, Postgres CPU)`` seconds of ``step``."""
        before, started = self.cpu(), time.perf_counter()
        step()
        wall, after = time.perf_counter() - started, self.cpu()
        client, server, pg = (b - a for a, b in zip(before, after, strict=True))
        return Figure(wall, client, server, pg)


@dataclass(frozen=True)
class Figure:
    """One timed step, in seconds."""

    wall: float
    client: float
    server: float
    postgres: float

    @property
    def cpu(self) -> float:
        return self.client + self.server + self.postgres


def postmaster_pid(scratch: ScratchPostgres | None) -> int | None:
    if scratch is None:
        return None
    return int((scratch.root / "data" / "postmaster.pid").read_text().splitlines()[0])


Figures = dict[str, list[Figure]]


def run_repeat(
    size: int, repeat: int, conn: psycopg.Connection, client: CloudClient, meter: Meter
) -> dict[str, Figure]:
    """Every way once on a fresh project; writes and reads each in a rotating order."""
    project = f"bench-{size}-{repeat}-{os.getpid()}"
    rows = observations(size, f"dev{size}r{repeat}", project)
    # The rows this process holds (100k mutations and their payloads) are left out of the
    # collector's scans while it times: else every collection while a page is parsed (select
    # and pull alike) scans them, and the reading client's CPU grows ~14x for 10x the rows.
    # The server freezes what it holds the same way (engram.cloud.app).
    gc.collect()
    gc.freeze()
    try:
        return _run_ways(repeat, rows, project, conn, client, meter, size)
    finally:
        gc.unfreeze()


def _run_ways(
    repeat: int,
    rows: list[Mutation],
    project: str,
    conn: psycopg.Connection,
    client: CloudClient,
    meter: Meter,
    size: int,
) -> dict[str, Figure]:
    writes: list[tuple[str, Callable[[], None]]] = [
        ("copy", lambda: plain_copy(conn, project, rows)),
        ("executemany", lambda: plain_executemany(conn, project, rows)),
        ("push", lambda: push(client, project, rows)),
    ]
    reads: list[tuple[str, Callable[[], None]]] = [
        ("select", lambda: plain_select(conn, project, size)),
        ("pull", lambda: pull(client, project, size)),
    ]
    order = writes[repeat % 3 :] + writes[: repeat % 3] + reads[repeat % 2 :] + reads[: repeat % 2]
    return {way: meter.time(step) for way, step in order}


def run_sizes(
    sizes: list[int], repeats: int, url: str, server: str, meter: Meter
) -> dict[int, Figures]:
    """Every way at every size, ``repeats`` times, the smaller sizes more often
    (:func:`repeats_for`). Sizes take turns within each repeat, so the growth from one size to
    the next compares runs made under the same load."""
    client = CloudClient(Remote(server, TOKEN), timeout=300)
    results: dict[int, Figures] = {size: {way: [] for way in WAYS} for size in sizes}
    counts = {size: repeats_for(size, sizes, repeats) for size in sizes}
    with psycopg.connect(url) as conn:
        for repeat in range(max(counts.values(), default=0)):
            for size in sizes:
                if repeat < counts[size]:
                    for way, figure in run_repeat(size, repeat, conn, client, meter).items():
                        results[size][way].append(figure)
    return results


def repeats_for(size: int, sizes: list[int], repeats: int) -> int:
    """How many times ``size`` runs: a 1k push takes 20-50 ms, where one scheduling hiccup on a
    shared machine moved a median of 3 from 0.49x to 1.06x between runs; so a size gets about
    as many rows in all as a third of ``repeats`` of the largest, at most 5x ``repeats``."""
    wanted = math.ceil(repeats * max(sizes) / (3 * size))
    return min(5 * repeats, max(repeats, wanted))


def _median(values: list[Figure], name: str) -> float:
    return statistics.median(getattr(v, name) for v in values)


def report_size(size: int, figures: Figures) -> None:
    print(f"\n### {size:,} observations (median of {len(figures['push'])})")
    print("| way | wall s | obs/s | CPU s: all | bench client | server | Postgres |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for way in WAYS:
        wall, cpu, client, server, pg = (
            _median(figures[way], n) for n in ("wall", "cpu", "client", "server", "postgres")
        )
        print(
            f"| {way} | {wall:.3f} | {size / wall:,.0f} | {cpu:.3f} | {client:.3f} |"
            f" {server:.3f} | {pg:.3f} |"
        )
    for label, num, den in (
        ("push / copy", "copy", "push"),
        ("push / executemany", "executemany", "push"),
        ("pull / select", "select", "pull"),
    ):
        wall = _median(figures[num], "wall") / _median(figures[den], "wall")
        cpu = _median(figures[num], "cpu") / _median(figures[den], "cpu")
        print(f"- {label}: throughput {wall:.2f}x, CPU {cpu:.2f}x")


def report_growth(results: dict[int, Figures]) -> None:
    sizes = sorted(results)
    print("\n### CPU growth (10x the rows should cost at most ~10x; target <= 11x)")
    for small, big in itertools.pairwise(sizes):
        for way in WAYS:
            total = _median(results[big][way], "cpu") / _median(results[small][way], "cpu")
            wall = _median(results[big][way], "wall") / _median(results[small][way], "wall")
            print(
                f"- {way} {small:,} -> {big:,} ({big // small}x rows): CPU {total:.2f}x,"
                f" wall {wall:.2f}x"
            )


def report_disk(url: str) -> None:
    """What the pushed observations occupy in Postgres, tables and indexes."""
    sql = """
        SELECT (SELECT count(*) FROM cloud_mutations),
               pg_total_relation_size('cloud_mutations'), pg_total_relation_size('cloud_chunks')
    """
    with psycopg.connect(url) as conn:
        row = conn.execute(sql).fetchone()
    assert row is not None
    count, log, chunks = (int(v) for v in row)
    print(
        f"\n- on disk: {(log + chunks) / max(count, 1):,.0f} bytes per pushed observation"
        f" ({log / max(count, 1):,.0f} in cloud_mutations, {chunks / max(count, 1):,.0f} in"
        f" cloud_chunks, indexes included; {count:,} observations)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fleet-clients", type=int, default=50)
    parser.add_argument("--fleet-servers", type=int, default=3)
    parser.add_argument("--fleet-mutations", type=int, default=200, help="per client")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    print(f"cloud bench: load average at start {load_average()}")
    scratch = None if os.environ.get("ENGRAM_DATABASE_URL") else ScratchPostgres.start()
    url = os.environ.get("ENGRAM_DATABASE_URL") or scratch.dsn  # type: ignore[union-attr]
    process, server = start_server(url)
    try:
        with psycopg.connect(url) as conn:
            for table in ("bench_copy", "bench_many"):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
                conn.execute(f"CREATE TABLE {table} (LIKE cloud_mutations INCLUDING ALL)")
        warm = CloudClient(Remote(server, TOKEN), timeout=300)  # a running server is warm
        push(warm, "bench-warmup", observations(BATCH, "warmup", "bench-warmup"))
        pull(warm, "bench-warmup", BATCH)
        meter = Meter(process.pid, postmaster_pid(scratch))
        if meter.postgres_pid is None:
            print("(ENGRAM_DATABASE_URL given: Postgres's own CPU is not counted)")
        results = run_sizes(sizes, args.repeats, url, server, meter)
        for size in sizes:
            report_size(size, results[size])
        report_growth(results)
        report_disk(url)
        fleet_ok = not args.fleet_clients or run_fleet(
            url, args.fleet_servers, args.fleet_clients, args.fleet_mutations
        )
    finally:
        process.terminate()
        process.wait(timeout=20)
        if scratch is not None:
            scratch.stop()
    print(f"\nload average at end {load_average()}")
    return 0 if fleet_ok else 1


if __name__ == "__main__":
    sys.exit(main())
