"""Sync benchmark: exporting and importing N observations through git sync chunks, against
``engram export`` / ``engram import`` of the same data, in the same run.

Run it (not a test)::

    .venv/bin/python bench/sync_bench.py                 # 10k observations, 5 repeats
    .venv/bin/python bench/sync_bench.py --size 2k --repeats 3

It bulk-loads a source store with synthetic observations (bench/corpus.py, one project) through
the store's own schema, so the journal triggers record every row as a save would. Then, each
repeat on fresh destination stores, it times the operations behind each command:

- export: ``engram sync --project P`` (``export_chunk``: journal rows -> redacted mutations ->
  one gzipped chunk + manifest line) against ``engram export --project P``
  (``export_backup`` + ``json.dumps`` + the command's atomic, fsynced file write);
- import: ``engram sync --import`` (``import_chunks``: verify, apply with the convergence rule)
  against ``engram import`` (``import_backup``) into an empty store.

It prints medians of wall-clock and CPU time, the ratios sync / backup (the target is at most
1.5), and the bytes per observation of the chunk (gzipped) and of the backup file (JSON).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus

from engram.cli.backup import _write_atomically as write_backup_file
from engram.memory.backup import export_backup, import_backup
from engram.store.db import Store
from engram.sync.export import export_chunk
from engram.sync.gitdir import SyncFolder
from engram.sync.importer import import_chunks
from engram.sync.trust import TrustGate

PROJECT = "bench-sync"


def parse_size(text: str) -> int:
    """``10k`` -> 10000, ``2500`` -> 2500."""
    text = text.strip().lower()
    scale = 1_000 if text.endswith("k") else 1
    number = text[:-1] if scale > 1 else text
    if not number.isdigit() or int(number) <= 0:
        raise ValueError(f"not a size: {text!r} (use e.g. 10k, 2500)")
    return int(number) * scale


def load_source(store: Store, size: int) -> None:
    """``size`` observations of one project in sessions of 250, in one transaction."""
    rows, sessions = [], []
    for index, item in enumerate(corpus.observations(size)):
        session_id = f"bench-{index // 250}"
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(1_700_000_000 + index))
        if index % 250 == 0:
            sessions.append((session_id, PROJECT, stamp))
        digest = hashlib.sha256(item.content.encode()).hexdigest()
        rows.append(
            (f"obs-bench-{index}", session_id, item.type, item.title, item.content, PROJECT,
             digest, stamp, stamp, stamp)
        )  # fmt: skip
    with store.write() as conn:
        conn.executemany(
            "INSERT INTO sessions (id, project, directory, started_at) VALUES (?, ?, '/b', ?)",
            sessions,
        )
        conn.executemany(
            "INSERT INTO observations (sync_id, session_id, type, title, content, project,"
            " normalized_hash, last_seen_at, created_at, updated_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            rows,
        )


def forget_exports(store: Store) -> None:
    """Reset the git target's cursors so the next sync exports everything again."""
    with store.write() as conn:
        conn.execute("DELETE FROM sync_cursors")
        conn.execute("DELETE FROM sync_chunks")


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) milliseconds of one call. CPU time leaves out the wait for a core, so it
    stays comparable on a loaded machine."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def one_round(source: Store, work: Path) -> dict[str, float | int]:
    """Export and import once each way, on fresh destination stores; times in ms."""
    folder = SyncFolder(work / "repo")
    backup_file = work / "backup.json"
    forget_exports(source)

    def export_backup_file() -> None:
        # What `engram export FILE` does: the same dump, written atomically with an fsync.
        text = json.dumps(export_backup(source, PROJECT), indent=2, ensure_ascii=False)
        write_backup_file(backup_file, text + "\n")

    found: dict[str, float | int] = {}
    found["sync_out"], found["sync_out_cpu"] = timed(
        lambda: export_chunk(source, folder, project=PROJECT)
    )
    found["exp"], found["exp_cpu"] = timed(export_backup_file)
    sync_store = Store.open(work / "sync-dest", env={})
    backup_store = Store.open(work / "backup-dest", env={})
    found["sync_in"], found["sync_in_cpu"] = timed(
        lambda: import_chunks(sync_store, folder, gate=TrustGate.for_projects({PROJECT}, "git"))
    )
    text = backup_file.read_text(encoding="utf-8")
    found["imp"], found["imp_cpu"] = timed(lambda: import_backup(backup_store, text))
    found["chunk_bytes"] = sum(p.stat().st_size for p in folder.chunks_dir.iterdir())
    found["backup_bytes"] = backup_file.stat().st_size
    found["observations"] = int(
        sync_store.connection.execute("SELECT count(*) FROM observations").fetchone()[0]
    )
    sync_store.close()
    backup_store.close()
    shutil.rmtree(work)
    return found


def run(size: int, repeats: int, root: Path) -> dict[str, list[float] | int]:
    source = Store.open(root / "source", env={})
    load_source(source, size)
    timings = ("sync_out", "sync_in", "exp", "imp")
    found: dict[str, list[float] | int] = {k: [] for k in timings}
    found.update({f"{k}_cpu": [] for k in timings})
    for repeat in range(repeats + 1):  # the first round warms caches and is not counted
        one = one_round(source, root / f"r{repeat}")
        for key, value in one.items():
            samples = found.get(key)
            if isinstance(samples, list):
                if repeat:
                    samples.append(float(value))
            else:
                found[key] = int(value)
    source.close()
    return found


def report(size: int, found: dict[str, list[float] | int]) -> None:
    def median(key: str) -> float:
        samples = found[key]
        assert isinstance(samples, list)
        return statistics.median(samples)

    assert found["observations"] == size, "the sync import did not bring every observation"
    print(f"### {size:,} observations, one project (median of {len(found['exp'])} runs)\n")  # type: ignore[arg-type]
    print(
        "| step | git sync wall / CPU | engram export/import wall / CPU | ratio wall | ratio CPU |"
    )
    print("|---|---:|---:|---:|---:|")
    for label, ours, theirs in (("export", "sync_out", "exp"), ("import", "sync_in", "imp")):
        ours_cpu, theirs_cpu = median(ours + "_cpu"), median(theirs + "_cpu")
        print(
            f"| {label} | {median(ours):,.0f} / {ours_cpu:,.0f} ms"
            f" | {median(theirs):,.0f} / {theirs_cpu:,.0f} ms"
            f" | {median(ours) / median(theirs):.2f}x | {ours_cpu / theirs_cpu:.2f}x |"
        )
    chunk = int(found["chunk_bytes"])  # type: ignore[arg-type]
    backup = int(found["backup_bytes"])  # type: ignore[arg-type]
    print(
        f"\nchunk bytes per observation: {chunk / size:,.0f} (gzipped chunk {chunk:,} B);"
        f" backup JSON: {backup / size:,.0f} per observation ({backup:,} B)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="10k", help="observations (default 10k)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (default 5)")
    args = parser.parse_args()
    size = parse_size(args.size)
    with tempfile.TemporaryDirectory(prefix="engram-sync-bench-") as tmp:
        report(size, run(size, args.repeats, Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
