"""Retrieval quality: does search bring back the right memory? Recall and MRR beside latency.

Run it (not a test; the 1M store takes ~15 minutes to build once, then is cached)::

    .venv/bin/python bench/retrieval_bench.py                       # 5k, 100k and 1M
    .venv/bin/python bench/retrieval_bench.py --sizes 5k --rankings engram
    .venv/bin/python bench/retrieval_bench.py --min-recall5 0.9     # exit 1 below it (CI)

The labelled set (bench/data/retrieval_set.py: ~5,250 memories, 540 queries of nine kinds) is
searched alone (``5k``) and embedded among 100k / 1M synthetic observations
(bench/retrieval_stores.py). Each query runs once per ranking, limit 10, filtered to the
query's project when it names one:

- ``legacy``: the v0.1.0 ranking (bench/legacy_ranking.py): newest 1000 matches, estimated IDF;
- ``bm25``: FTS5's own ``ORDER BY bm25()`` over every row matching all the words, no window;
- ``engram``: ``engram.memory.search.search``, what the CLI, ``mem_search`` and hooks call,
  lexical only (``ENGRAM_SEARCH=lexical``);
- ``hybrid``: the same call with semantic recall on (the ``semantic`` extra's default): the
  store is backfilled first (timed: the backfill rate), then lexical and nearest vectors are
  fused (engram/store/ranking/fusion.py).

Printed per ranking and query kind: recall@1/5/10, MRR, and p50 / p95 latency in ms with
its ratio to ``bm25`` measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))

import legacy_ranking
import retrieval_set
import retrieval_stores

from engram.store.db import Store
from engram.store.fts import MatchQuery

RANKINGS = ("legacy", "bm25", "bm25-stemmed", "engram", "hybrid")
SEARCH_ENV = {"engram": "lexical", "hybrid": "hybrid"}
LEXICAL_KINDS = ("exact", "paraphrase", "partial", "old", "project", "latest")
LIMIT = 10
BM25_SQL = (
    "SELECT o.sync_id FROM {0} f JOIN observations o ON o.id = f.rowid"
    " WHERE {0} MATCH ? ORDER BY bm25({0}) LIMIT ?"
)
Ranker = Callable[[Store, retrieval_set.Query], list[str]]


def _sync_ids(conn: sqlite3.Connection, rowids: list[int]) -> list[str]:
    if not rowids:
        return []
    marks = ",".join("?" * len(rowids))
    found = dict(
        conn.execute(f"SELECT id, sync_id FROM observations WHERE id IN ({marks})", rowids)
    )
    return [found[r] for r in rowids if r in found]


def legacy(store: Store, query: retrieval_set.Query) -> list[str]:
    """The v0.1.0 ranking (window + estimated IDF + title boost) and its row fetch."""
    match = MatchQuery.build(query.text)
    assert match is not None
    conn = store.connection
    total = conn.execute("SELECT coalesce(max(id), 0) FROM observations").fetchone()[0]
    ranked = legacy_ranking.rank_window(
        conn,
        "legacy_text",
        match.filtered(project=query.project),
        total_rows=total if len(match.terms) > 1 else 0,
        boosts={"legacy_titles": 4.0},
        limit=LIMIT,
    )
    return _sync_ids(conn, [r.rowid for r in ranked])


def bm25(store: Store, query: retrieval_set.Query, table: str = "legacy_text") -> list[str]:
    """FTS5's bm25() over every row holding all the words (no window), v0.1.0's index."""
    match = MatchQuery.build(query.text)
    assert match is not None
    expression = match.filtered(project=query.project).expression
    sql = BM25_SQL.format(table)
    return [row[0] for row in store.connection.execute(sql, (expression, LIMIT))]


def bm25_stemmed(store: Store, query: retrieval_set.Query) -> list[str]:
    """The same bm25() query on Engram's current (stemmed) index."""
    return bm25(store, query, "observations_fts")


def engram(store: Store, query: retrieval_set.Query) -> list[str]:
    """Engram's search operation, exactly as the CLI and mem_search call it."""
    from engram.memory.search import search

    hits = search(store, query.text, project=query.project, limit=LIMIT)
    return [hit.observation.sync_id for hit in hits]


@dataclass
class Tally:
    """Per-query ranks of the first relevant answer, and latencies."""

    reciprocal: list[float] = field(default_factory=list)
    recall: dict[int, list[float]] = field(default_factory=lambda: {1: [], 5: [], 10: []})
    millis: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def add(self, found: list[str], relevant: set[str], millis: float, cpu: float) -> None:
        ranks = [i for i, sync_id in enumerate(found, start=1) if sync_id in relevant]
        self.reciprocal.append(1.0 / ranks[0] if ranks else 0.0)
        for k, values in self.recall.items():
            values.append(sum(1 for r in ranks if r <= k) / len(relevant))
        self.millis.append(millis)
        self.cpu.append(cpu)

    def figures(self) -> dict[str, float]:
        cuts = statistics.quantiles(self.millis, n=20, method="inclusive")
        cpu_cuts = statistics.quantiles(self.cpu, n=20, method="inclusive")
        return {
            "cpu50": statistics.median(self.cpu),
            "cpu95": cpu_cuts[18],
            "r1": statistics.fmean(self.recall[1]),
            "r5": statistics.fmean(self.recall[5]),
            "r10": statistics.fmean(self.recall[10]),
            "mrr": statistics.fmean(self.reciprocal),
            "p50": statistics.median(self.millis),
            "p95": cuts[18],
        }


def evaluate(store: Store, ranker: Ranker, queries: list[retrieval_set.Query]) -> dict[str, Tally]:
    """One run of every query; tallies per kind and ``overall``."""
    kinds = (*retrieval_set.KINDS, "lexical", "overall")
    tallies: dict[str, Tally] = {kind: Tally() for kind in kinds}
    ranker(store, queries[0])  # warm-up
    for query in queries:
        started, cpu_started = time.perf_counter(), time.process_time()
        found = ranker(store, query)
        cpu = (time.process_time() - cpu_started) * 1000
        millis = (time.perf_counter() - started) * 1000
        relevant = {retrieval_stores.LABEL_PREFIX + r for r in query.relevant}
        tallies[query.kind].add(found, relevant, millis, cpu)
        if query.kind in LEXICAL_KINDS:  # the kinds that share words with their answers
            tallies["lexical"].add(found, relevant, millis, cpu)
        tallies["overall"].add(found, relevant, millis, cpu)
    return tallies


def report(label: str, results: dict[str, dict[str, Tally]]) -> None:
    """A Markdown table: one row per ranking and kind."""
    print(f"\n### {label}\n")
    print(
        "| ranking | kind | R@1 | R@5 | R@10 | MRR | wall p50 / p95 ms | CPU p50 / p95 ms"
        " | CPU p50 / p95 vs bm25 | vs legacy |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    bases = [results[b]["overall"].figures() if b in results else None for b in ("bm25", "legacy")]
    for name, tallies in results.items():
        for kind, tally in tallies.items():
            f = tally.figures()
            ratios = [
                f"{f['cpu50'] / base['cpu50']:.2f} / {f['cpu95'] / base['cpu95']:.2f}"
                if base and kind == "overall"
                else "-"
                for base in bases
            ]
            print(
                f"| {name} | {kind} | {f['r1']:.3f} | {f['r5']:.3f} | {f['r10']:.3f} |"
                f" {f['mrr']:.3f} | {f['p50']:.2f} / {f['p95']:.2f} |"
                f" {f['cpu50']:.2f} / {f['cpu95']:.2f} | {ratios[0]} | {ratios[1]} |"
            )
    sys.stdout.flush()


def term_cases(store: Store, repeats: int, name: str = "engram") -> None:
    """bench/store_bench.py's search cases (a very common, a mid and a rare corpus word, with
    and without the largest project's filter) on this store: Engram's search (``name``:
    lexical ``engram`` or ``hybrid``, as the store was opened) against the v0.1.0 ranking,
    p50 / p95 wall and CPU ms over ``repeats`` runs each, same process."""
    import corpus
    import store_bench

    print(
        f"\n| term | filter | {name} wall p50 / p95 | {name} CPU p50 / p95 |"
        " v0.1.0 wall p50 / p95 | v0.1.0 CPU p50 / p95 |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for label, rank in store_bench.TERM_RANKS.items():
        term = corpus.term_at_rank(rank)
        for project in (None, store_bench.FILTER_PROJECT):
            query = retrieval_set.Query("t", "term", term, (), project)
            cells = [
                _percentiles(lambda r=r, q=query: r(store, q), repeats) for r in (engram, legacy)
            ]
            print(f"| {label} ({term}) | {project or '-'} | " + " | ".join(cells) + " |")
    sys.stdout.flush()


def _percentiles(action: Callable[[], object], repeats: int) -> str:
    action()
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeats):
        started, cpu_started = time.perf_counter(), time.process_time()
        action()
        cpu.append((time.process_time() - cpu_started) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    cells = []
    for samples in (wall, cpu):
        p95 = statistics.quantiles(samples, n=20, method="inclusive")[18]
        cells.append(f"{statistics.median(samples):.2f} / {p95:.2f}")
    return " | ".join(cells)


def run(size: int, rankings: list[str], cache: Path, repeats: int) -> dict[str, dict[str, Tally]]:
    """Build or load the store for ``size`` and evaluate each ranking on it."""
    data = retrieval_set.build()
    data_dir = retrieval_stores.labelled_store(size, data, cache)
    if size and repeats:
        print(f"\n### bench/store_bench.py's search cases at {size:,} (+ the labelled set)")
        with Store.open(data_dir, env={"ENGRAM_SEARCH": "lexical"}) as store:
            term_cases(store, repeats)
    rankers: dict[str, Ranker] = {
        "legacy": legacy,
        "bm25": bm25,
        "bm25-stemmed": bm25_stemmed,
        "engram": engram,
    }
    results = {}
    for name in rankings:
        env = {"ENGRAM_SEARCH": SEARCH_ENV.get(name, "lexical")}
        with Store.open(data_dir, env=env) as store:
            if name == "hybrid":
                prepare_hybrid(store)
            results[name] = evaluate(store, rankers.get(name, engram), data.queries)
            if name == "hybrid":
                footprint(store)
                if size and repeats:
                    term_cases(store, repeats, "hybrid")
    return results


def save_throughput(count: int = 300) -> None:
    """Saves a CPU second through ``save_observation``, semantic recall on vs off, measured
    alternately in this run (fresh stores in a temporary folder)."""
    from engram.memory.save import save_observation

    rates: dict[str, list[float]] = {"hybrid": [], "lexical": []}
    for round_ in range(3):
        for mode in ("lexical", "hybrid"):
            folder = Path(tempfile.mkdtemp(prefix=f"engram-save-{mode}-"))
            with Store.open(folder, env={"ENGRAM_SEARCH": mode}) as store:
                save_observation(store, title="warm", content="up", project="p")
                cpu = time.process_time()
                for i in range(count):
                    save_observation(
                        store,
                        title=f"Fixed race {round_}-{i} in the ledger worker",
                        content="two workers updated the same record; wrapped it in a lock",
                        project="p",
                        surface_conflicts=False,
                    )
                rates[mode].append(count / max(time.process_time() - cpu, 1e-9))
    on, off = statistics.median(rates["hybrid"]), statistics.median(rates["lexical"])
    print(
        f"\nsave throughput (median of 3 x {count} saves, CPU): with embedding {on:,.0f}/s,"
        f" without {off:,.0f}/s, ratio {on / off:.2f} (load average {_load()})"
    )


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def footprint(store: Store) -> None:
    """Peak RSS of this process and the vectors' bytes in the database."""
    import resource

    row = store.connection.execute(
        "SELECT count(*), coalesce(sum(length(embedding)), 0) FROM observations"
        " WHERE embedding IS NOT NULL"
    ).fetchone()
    size = store.path.stat().st_size
    index = sum(p.stat().st_size for p in (store.path.parent / "vectors").glob("*.vec"))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"  vectors: {row[0]:,} rows, {row[1] / 2**20:.1f} MB of int8 vectors in a"
        f" {size / 2**20:.0f} MB database, index file {index / 2**20:.1f} MB;"
        f" peak RSS {rss:.0f} MB (load average {_load()})"
    )


def prepare_hybrid(store: Store) -> None:
    """Backfill what the cached store lacks (timed), then load the vector index (timed)."""
    from engram.memory import embedding

    state = embedding.status(store)
    if not state.on:
        raise SystemExit(f"hybrid needs semantic recall: {state.reason}")
    started, cpu = time.perf_counter(), time.process_time()
    made = embedding.backfill(store)
    took = time.perf_counter() - started
    if made:
        rate = made / max(time.process_time() - cpu, 1e-9)
        print(f"  backfilled {made:,} memories in {took:.1f} s ({rate:,.0f} a CPU second)")
    started, cpu = time.perf_counter(), time.process_time()
    engram(store, retrieval_set.Query("warm", "warm", "warm up", (), None))
    print(
        f"  first hybrid search (opens or builds the vector index file):"
        f" {time.perf_counter() - started:.2f} s, {time.process_time() - cpu:.2f} s CPU"
    )


# The goals; ``everyday`` (hand-written memories asked for in other words) is held to
# the concept goal: it is the nearest stand-in here for a labelled set nobody tuned on.
GOALS = {"concept": 0.9, "mixed": 0.95, "everyday": 0.9}


def check_hybrid(results: dict[str, dict[str, Tally]], label: str) -> bool:
    """Hybrid against lexical-only, per kind: no lexical kind down by more than 0.01 (recall@5
    and MRR), mixed queries better by at least 0.05; the issue's goals printed, met or not."""
    ok = True
    for kind in (*LEXICAL_KINDS, "mixed"):
        lexical, hybrid = (results[r][kind].figures() for r in ("engram", "hybrid"))
        for figure in ("r5", "mrr"):
            if kind in LEXICAL_KINDS and hybrid[figure] < lexical[figure] - 0.01:
                print(f"FAIL: hybrid {kind} {figure} {hybrid[figure]:.3f} < {lexical[figure]:.3f}")
                ok = False
        if kind == "mixed" and hybrid["r5"] < lexical["r5"] + 0.05:
            print(f"FAIL: hybrid mixed recall@5 {hybrid['r5']:.3f} not above {lexical['r5']:.3f}")
            ok = False
    for kind, goal in GOALS.items():
        value = results["hybrid"][kind].figures()["r5"]
        verdict = "met" if value >= goal else "MISSED"
        print(f"goal: hybrid {kind} recall@5 {value:.3f} (goal {goal}): {verdict} ({label})")
    return ok


def _override(parser: argparse.ArgumentParser, item: str) -> None:
    from engram.store.ranking import fusion, lexical

    name, _, value = item.partition("=")
    module = next((m for m in (lexical, fusion) if hasattr(m, name)), None)
    if not name.isupper() or module is None or not value:
        parser.error(f"--set wants NAME=VALUE with a constant of engram.store.ranking: {item!r}")
    kind = type(getattr(module, name))
    setattr(module, name, kind(value))
    print(f"ablation: {module.__name__}.{name} = {getattr(module, name)!r}")


def main(argv: list[str] | None = None) -> int:
    """Parse flags, evaluate each size, print tables; exit 1 under ``--min-recall5``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="5k,100k,1m", help="comma list of 5k, 100k, 1m")
    parser.add_argument("--rankings", default=",".join(RANKINGS), help="legacy,bm25,engram")
    parser.add_argument("--cache", type=Path, default=retrieval_stores.CACHE)
    parser.add_argument(
        "--save-throughput", action="store_true", help="also time saves with/without embedding"
    )
    parser.add_argument(
        "--term-repeats",
        type=int,
        default=40,
        help="runs per store_bench search case at 100k / 1m (0: skip those cases)",
    )
    parser.add_argument(
        "--min-recall5",
        type=float,
        help="fail if engram's recall@5 over the lexical kinds (the six that share words with"
        " their answers) is lower",
    )
    parser.add_argument(
        "--check-hybrid",
        action="store_true",
        help="fail if hybrid loses more than 0.01 recall@5 or MRR on a lexical kind against"
        " engram, or does not beat it by 0.05 on mixed queries; print the concept/mixed goals",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="ablation: override a constant of engram.store.ranking (e.g. RECENCY=0)",
    )
    args = parser.parse_args(argv)
    for item in args.set:
        _override(parser, item)
    try:
        sizes = [
            retrieval_stores.parse_size(part) for part in args.sizes.split(",") if part.strip()
        ]
    except ValueError as exc:
        parser.error(str(exc))
    rankings = [r for r in args.rankings.split(",") if r]
    if unknown := set(rankings) - set(RANKINGS):
        parser.error(f"unknown ranking(s): {', '.join(sorted(unknown))}")
    os.environ["ENGRAM_DATA_DIR"] = tempfile.mkdtemp(prefix="engram-bench-")
    print(f"# Engram retrieval benchmark (sqlite {sqlite3.sqlite_version}, load {_load()})")
    if args.save_throughput:
        save_throughput()
    failed = False
    for size in sizes:
        label = "labelled set alone" if size == 0 else f"labelled set among {size:,} synthetic"
        results = run(size, rankings, args.cache, args.term_repeats)
        report(label, results)
        if args.check_hybrid and {"engram", "hybrid"} <= set(results):
            failed |= not check_hybrid(results, label)
        if args.min_recall5 is not None and "engram" in results:
            recall5 = results["engram"]["lexical"].figures()["r5"]
            if recall5 < args.min_recall5:
                print(f"FAIL: engram recall@5 {recall5:.3f} < {args.min_recall5} ({label})")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
