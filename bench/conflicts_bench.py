"""Quality of the conflict scan's lexical candidates on a labelled set of memory pairs.

Usage: ``python bench/conflicts_bench.py [--noise N] [--json]``

The labelled pairs (``bench/data/conflict_pairs.py``: contradicting decisions, superseded
configs, compatible refinements, unrelated look-alikes) are saved through
``engram.memory.save`` into a fresh store, older memory of each pair months before the newer
one, among ``--noise`` synthetic journal entries (``bench/corpus.py``). Then the scan's own
FindCandidates runs for every memory, exactly as ``engram conflicts scan`` does, and the
figures are:

- candidate recall: conflict-labelled pairs found / conflict-labelled pairs (per kind too);
- candidate precision: found pairs that are labelled conflicts / all pairs found among the
  labelled memories (refinements and look-alikes found count against it — they are what the
  semantic judge is for);
- a full paged walk (``scan`` with the default page size, resumed by ``next_cursor``) to
  check it inspects every memory once and finds the same pairs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "data"))

import corpus
from conflict_pairs import CONFLICT_KINDS, labelled_pairs

from engram.memory.conflict_scan import ScanOptions, find_candidates, scan
from engram.memory.save import save_observation
from engram.store.db import Store
from engram.store.observations import get

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def build(store: Store, noise: int) -> tuple[dict[int, tuple[int, int]], dict[int, str]]:
    """Save every pair (older ones first, then newer ones) among noise; return
    ``{pair index: (older id, newer id)}`` and ``{pair index: kind}``."""
    pairs = labelled_pairs()
    projects = sorted({pair.project for pair in pairs})
    noise_rows = list(corpus.observations(noise, seed=11))
    ids: dict[int, list[int]] = {}
    moment = START

    def put(project: str, title: str, content: str, type_: str) -> int:
        nonlocal moment
        moment += timedelta(minutes=37)
        result = save_observation(
            store,
            title=title,
            content=content,
            project=project,
            type=type_,
            now=moment,
            surface_conflicts=False,
        )
        return result.observation.id

    half = len(noise_rows) // 2
    for i, row in enumerate(noise_rows[:half]):
        put(projects[i % len(projects)], row.title, row.content, row.type)
    for index, pair in enumerate(pairs):
        ids[index] = [put(pair.project, pair.older.title, pair.older.content, pair.older.type)]
    moment += timedelta(days=90)
    for i, row in enumerate(noise_rows[half:]):
        put(projects[i % len(projects)], row.title, row.content, row.type)
    for index, pair in enumerate(pairs):
        ids[index].append(put(pair.project, pair.newer.title, pair.newer.content, pair.newer.type))
    return {i: (v[0], v[1]) for i, v in ids.items()}, {i: p.kind for i, p in enumerate(pairs)}


def evaluate(store: Store, ids: dict[int, tuple[int, int]], kinds: dict[int, str]) -> dict:
    labelled = {obs_id for pair in ids.values() for obs_id in pair}
    pair_of = {frozenset(pair): index for index, pair in ids.items()}
    found: set[frozenset[int]] = set()
    started = time.perf_counter()
    for obs_id in sorted(labelled):
        observation = get(store.connection, obs_id)
        assert observation is not None
        for other in find_candidates(store, observation):
            if other.id in labelled:
                found.add(frozenset((obs_id, other.id)))
    elapsed = time.perf_counter() - started
    per_kind: dict[str, dict[str, float]] = {}
    totals = Counter(kinds.values())
    hits = Counter(kinds[pair_of[p]] for p in found if p in pair_of)
    for kind, total in sorted(totals.items()):
        per_kind[kind] = {"pairs": total, "found": hits[kind], "rate": hits[kind] / total}
    conflicts = sum(totals[k] for k in CONFLICT_KINDS)
    conflicts_found = sum(hits[k] for k in CONFLICT_KINDS)
    return {
        "labelled_pairs": len(ids),
        "conflict_pairs": conflicts,
        "recall": conflicts_found / conflicts,
        "precision": conflicts_found / len(found) if found else 0.0,
        "pairs_found": len(found),
        "per_kind": per_kind,
        "ms_per_memory": 1000 * elapsed / len(labelled),
    }


def walk(store: Store, projects: list[str]) -> dict[str, int]:
    """A full dry-run walk of every project, page after page."""
    inspected = candidates = pages = 0
    for project in projects:
        cursor = None
        while True:
            report = scan(store, ScanOptions(project=project, cursor=cursor))
            pages += 1
            inspected += report.inspected
            candidates += report.candidates_found
            if report.next_cursor is None:
                break
            cursor = report.next_cursor
    return {"pages": pages, "inspected": inspected, "candidates_found": candidates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--noise", type=int, default=2000, help="synthetic memories around")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "engram.db") as store:
        ids, kinds = build(store, args.noise)
        result = evaluate(store, ids, kinds)
        projects = [
            row[0]
            for row in store.connection.execute(
                "SELECT DISTINCT project FROM observations ORDER BY project"
            )
        ]
        result["walk"] = walk(store, projects)
        result["walk"]["live_memories"] = store.connection.execute(
            "SELECT count(*) FROM observations WHERE deleted_at IS NULL"
        ).fetchone()[0]
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"labelled pairs: {result['labelled_pairs']} ({result['conflict_pairs']} conflicts),"
        f" noise: {args.noise}"
    )
    print(f"candidate recall:    {result['recall']:.3f}")
    print(f"candidate precision: {result['precision']:.3f}  ({result['pairs_found']} pairs found)")
    for kind, row in result["per_kind"].items():
        print(f"  {kind:<18} found {row['found']:>3}/{row['pairs']:<3} ({row['rate']:.2f})")
    print(f"FindCandidates: {result['ms_per_memory']:.2f} ms per memory")
    w = result["walk"]
    print(
        f"paged walk: {w['pages']} pages, inspected {w['inspected']} of {w['live_memories']}"
        f" live memories, {w['candidates_found']} candidates"
    )


if __name__ == "__main__":
    main()
