"""Pending journal rows the cloud would refuse, and their deterministic local repairs.

The cloud validates every pushed mutation exactly as a replica would
(:func:`engram.sync.mutation.parse_mutation`); a journal row written by an older Engram, or
damaged by hand, fails there with ``invalid_mutation`` and stops the project's push. For each
such pending row of a project (blank titles excepted — the untitled repair handles those):

- ``rejournal``: an upsert of an entity that still exists and whose current row is valid is
  retired and the current row journaled again as a fresh upsert;
- ``drop``: an upsert of an entity that no longer exists locally is retired (nothing local is
  lost: there is nothing left to send);
- otherwise (a malformed delete, or a current row that is itself invalid) there is no safe
  automatic fix: the doctor reports the project ``blocked``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from engram.store import sync_cloud, sync_journal, sync_rows
from engram.store.db import Store
from engram.sync.export import pending_rows, to_mutation
from engram.sync.mutation import MalformedMutation, Mutation, parse_mutation


@dataclass(frozen=True)
class RefusedRow:
    """One pending journal row the cloud would refuse, and its fix (None: none is safe)."""

    seq: int
    entity: str
    key: str
    reason: str
    fix: str | None
    current: str | None = None

    def describe(self) -> str:
        what = f"journal row {self.seq} ({self.entity} {self.key}: {self.reason})"
        if self.fix == "rejournal":
            return f"re-journal {self.entity} {self.key} from its current row, retiring {what}"
        if self.fix == "drop":
            return f"retire {what}: the {self.entity} no longer exists here"
        return f"{what} has no safe automatic repair"


def refused_rows(store: Store, project: str, target_key: str) -> list[RefusedRow]:
    """The project's pending rows for ``target_key`` that the cloud would refuse: every row a
    push would send (:func:`engram.sync.export.pending_rows`, parent sessions included)."""
    found = []
    with store.locked() as conn:
        origin = sync_journal.device_id(conn)
        for row in pending_rows(conn, project, target_key):
            reason = _refusal(origin, row)
            if reason is not None and "needs a title" not in reason:
                found.append(_classify(conn, row, reason))
    return found


def _refusal(origin: str, row: sync_journal.JournalRow) -> str | None:
    """Why the cloud would refuse the row as pushed (redacted, parsed as a replica would)."""
    try:
        parse_mutation(to_mutation(origin, row).to_dict())
    except ValueError as exc:  # the payload is not JSON, or a MalformedMutation
        return str(exc)
    return None


def _classify(conn: sqlite3.Connection, row: sync_journal.JournalRow, reason: str) -> RefusedRow:
    if row.op != "upsert":
        return RefusedRow(row.seq, row.entity, row.entity_key, reason, None)
    current = sync_rows.current(conn, row.entity, row.entity_key)
    if current is None:
        return RefusedRow(row.seq, row.entity, row.entity_key, reason, "drop")
    fresh = Mutation("repair", 1, row.entity, row.entity_key, "upsert", row.project, current)
    try:
        parse_mutation(fresh.to_dict())
    except MalformedMutation:
        return RefusedRow(row.seq, row.entity, row.entity_key, reason, None)
    return RefusedRow(row.seq, row.entity, row.entity_key, reason, "rejournal", json.dumps(current))


def apply_fixes(conn: sqlite3.Connection, project: str, rows: list[RefusedRow]) -> None:
    """Retire each fixable row and journal the current state where there is one (inside the
    caller's write transaction)."""
    for row in rows:
        if row.fix is None:
            continue
        sync_cloud.drop_journal_row(conn, row.seq)
        if row.fix == "rejournal" and row.current is not None:
            sync_cloud.journal_upsert(conn, row.entity, row.key, project, row.current)
