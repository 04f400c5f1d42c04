"""``engram cloud repair materialize-mutations``: backfill chunks for mutations that were
accepted before they were materialized. Project-scoped, non-destructive, idempotent: it only
inserts missing chunks and points the mutations at them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.cloud import chunks
from engram.cloud.store import mutations
from engram.cloud.store.db import CloudStore
from engram.cloud.wire import stored_mutation

CHUNK_SIZE = 500


@dataclass(frozen=True)
class MaterializeReport:
    """What a run found (and, with ``apply``, wrote)."""

    project: str
    mutations: int
    chunks: int
    applied: bool


def materialize_project(store: CloudStore, project: str, *, apply: bool) -> MaterializeReport:
    """Group the project's unchunked mutations (by attribution and origin, in order) into
    chunks."""
    with store.transaction() as conn:
        mutations.lock_project(conn, project)
        pending = mutations.unchunked(conn, project)
        groups: list[list[dict[str, Any]]] = []
        for m in pending:
            last = groups[-1] if groups else None
            same = last and (last[-1]["created_by"], last[-1]["origin"]) == (
                m["created_by"],
                m["origin"],
            )
            if last and same and len(last) < CHUNK_SIZE:
                last.append(m)
            else:
                groups.append([m])
        if apply:
            for group in groups:
                [(chunk, _)] = chunks.encode_by_origin(stored_mutation(m) for m in group)
                mutations.insert_chunk(
                    conn,
                    project,
                    chunk.id,
                    chunk.data,
                    created_by=group[0]["created_by"],
                    origin="materialized",
                    mutation_count=len(group),
                )
                mutations.assign_chunk(conn, project, [m["seq"] for m in group], chunk.id)
    return MaterializeReport(project, len(pending), len(groups), apply)
