"""Applying remote mutations: the convergence rule (docs/sync.md, "Conflicts").

Versions of an entity are totally ordered by ``(clock, origin)``. Hard deletes win for good
(tombstones); otherwise the greatest version wins whole; an observation's soft deletion
sticks (earliest ``deleted_at``); a version that loses to one from another origin is kept in
``sync_revisions``. The rule is commutative and idempotent, so import order does not matter.

Every mutation passes the transport's :class:`~engram.sync.trust.TrustGate` first, and the
row it would change here must belong to a gate project too; anything else is ``refused``.

Everything here runs inside one write transaction opened by the caller.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from engram.store import sync_journal, sync_rows
from engram.sync.mutation import Mutation
from engram.sync.trust import TrustGate

Outcome = Literal["applied", "stale", "ignored", "own", "deferred", "refused"]

_NO_VERSION = (0, "")


class MissingParent(Exception):
    """The mutation refers to a parent that is not here yet (message names it)."""


@dataclass
class ApplyCounts:
    """What one import did, by outcome."""

    applied: int = 0
    stale: int = 0
    ignored: int = 0
    own: int = 0
    deferred: int = 0
    refused: int = 0

    def add(self, outcome: Outcome) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)


@dataclass
class Applier:
    """Applies mutations on one connection inside one write transaction.

    ``journal_floor`` is the last local seq before this transaction: journal rows above it
    were written by the triggers while applying, and are not local versions. ``gate`` says
    which projects the transport may write.
    """

    conn: sqlite3.Connection
    me: str
    now: str
    journal_floor: int
    gate: TrustGate
    # (origin, seq) -> the principal that sent it (cloud pulls); else the device is named.
    authors: dict[tuple[str, int], str] = field(default_factory=dict)
    max_clock: int = 0
    _exists: dict[str, set[str]] = field(default_factory=dict)
    _tombs: dict[str, set[str]] = field(default_factory=dict)
    _checked: dict[str, set[str]] = field(default_factory=dict)
    _won: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)

    def prefetch(self, mutations: Iterable[Mutation]) -> None:
        """Load, in a few batched queries, which keys (and parents) exist or are tombstoned."""
        wanted: dict[str, set[str]] = {e: set() for e in sync_rows.TABLES}
        for m in mutations:
            wanted[m.entity].add(m.key)
            if m.op != "upsert":
                continue
            if m.entity in ("observation", "prompt") and m.payload.get("session_id"):
                wanted["session"].add(m.payload["session_id"])
            if m.entity == "relation":
                wanted["observation"].update((m.payload["source_id"], m.payload["target_id"]))
        for entity, keys in wanted.items():
            self._checked[entity] = keys
            self._exists[entity] = sync_rows.existing_keys(self.conn, entity, keys)
            self._tombs[entity] = sync_journal.tombstoned_keys(self.conn, entity, keys)

    def _prefetched(self, entity: str, key: str) -> bool:
        return key in self._checked.get(entity, ())

    def _has(self, entity: str, key: str) -> bool:
        if key in self._exists.get(entity, ()):
            return True
        if self._prefetched(entity, key):
            return False
        if entity == "session":
            return sync_rows.session_exists(self.conn, key)
        if entity == "observation":
            return sync_rows.observation_exists(self.conn, key)
        return sync_rows.current(self.conn, entity, key) is not None

    def _dead(self, entity: str, key: str) -> bool:
        if key in self._tombs.get(entity, ()):
            return True
        if self._prefetched(entity, key):
            return False
        return sync_journal.tombstoned(self.conn, entity, key)

    def apply(self, m: Mutation) -> Outcome:
        """Apply one mutation.

        Raises:
            MissingParent: its session or a relation end is not here yet (nothing written).
        """
        if m.origin == self.me:
            return "own"
        if self.gate.refusal(m) is not None or not self._owns_row(m):
            return "refused"
        self.max_clock = max(self.max_clock, m.seq)
        if m.op == "delete":
            return self._delete(m)
        if self._dead(m.entity, m.key) and self._tombstone_of_own_project(m):
            return "ignored"
        payload = self._with_parents(m)
        if not self._has(m.entity, m.key):
            sync_rows.insert(self.conn, m.entity, payload)
            self._mark_origin(m)
            self._exists.setdefault(m.entity, set()).add(m.key)
            self._won[(m.entity, m.key)] = m.version
            return "applied"
        return self._merge(m, payload)

    def _owns_row(self, m: Mutation) -> bool:
        """Whether the row ``m`` would change here (and a new relation's ends) belong to the
        gate's projects: a mutation never moves or removes another project's memory."""
        owners = (
            sync_rows.owner_projects(self.conn, m.entity, m.key)
            if self._has(m.entity, m.key)
            else set()
        )
        if m.entity == "relation" and m.op == "upsert":
            ends = (m.payload["source_id"], m.payload["target_id"])
            owners |= sync_rows.observation_projects(self.conn, ends)
        return all(self.gate.owns(project) for project in owners)

    def _tombstone_of_own_project(self, m: Mutation) -> bool:
        """A tombstone only stops versions of its own project (another project's delete of a
        key cannot bury this one's memory)."""
        recorded = sync_journal.tombstone_project(self.conn, m.entity, m.key)
        return recorded is None or recorded in ("", m.project)

    def _with_parents(self, m: Mutation) -> dict[str, Any]:
        payload = m.payload
        if m.entity in ("observation", "prompt"):
            session_id = payload.get("session_id")
            if session_id and not self._has("session", session_id):
                if not self._dead("session", session_id):
                    raise MissingParent(f"session {session_id} is not here yet")
                payload = {**payload, "session_id": None}
        elif m.entity == "relation":
            for end in (payload["source_id"], payload["target_id"]):
                if not self._has("observation", end) and not self._dead("observation", end):
                    raise MissingParent(f"observation {end} is not here yet")
        return payload

    def _delete(self, m: Mutation) -> Outcome:
        deleted_at = str(m.payload["deleted_at"])
        if self._has(m.entity, m.key):
            sync_rows.delete(self.conn, m.entity, m.key, deleted_at)
            self._exists.get(m.entity, set()).discard(m.key)
        sync_journal.record_tombstone(
            self.conn,
            m.entity,
            m.key,
            project=m.project,
            session_id=m.payload.get("session_id"),
            deleted_at=deleted_at,
            remote_seq=m.seq,
        )
        self._tombs.setdefault(m.entity, set()).add(m.key)
        return "applied"

    def _current_version(self, entity: str, key: str) -> tuple[int, str]:
        local = sync_journal.latest_for(self.conn, entity, key, upto=self.journal_floor)
        remote = self._won.get((entity, key)) or sync_journal.applied_version(
            self.conn, entity, key
        )
        candidates = [v for v in (remote, (local.seq, self.me) if local else None) if v]
        return max(candidates, default=_NO_VERSION)

    def _merge(self, m: Mutation, payload: dict[str, Any]) -> Outcome:
        current = sync_rows.current(self.conn, m.entity, m.key)
        assert current is not None
        version = self._current_version(m.entity, m.key)
        if m.version == version:
            return "stale"
        if m.version > version:
            winner, loser, loser_version = dict(payload), current, version
        else:
            winner, loser, loser_version = dict(current), m.payload, m.version
        if m.entity == "observation":
            winner["deleted_at"] = _earliest(current["deleted_at"], payload["deleted_at"])
        if loser_version[1] != max(m.version, version)[1] and _differs(loser, winner):
            sync_journal.record_revision(
                self.conn,
                m.entity,
                m.key,
                loser=loser_version,
                payload=json.dumps(loser, ensure_ascii=False, sort_keys=True),
                winner=max(m.version, version),
                now=self.now,
            )
        if winner != current:
            sync_rows.overwrite(self.conn, m.entity, winner)
        if m.version > version:
            self._mark_origin(m)
            self._won[(m.entity, m.key)] = m.version
            return "applied"
        return "stale"

    def _mark_origin(self, m: Mutation) -> None:
        """Record who wrote the winning version of a memory, and through which transport."""
        if m.entity == "observation":
            by = self.authors.get((m.origin, m.seq)) or f"device {m.origin[:12]}"
            sync_rows.set_origin(self.conn, m.key, by, self.gate.transport)

    def finish(self) -> None:
        """Record the winning remote versions (batched) and drop the journal rows applying
        wrote; move the Lamport clock past every clock seen."""
        sync_journal.set_applied_versions(
            self.conn, [(e, k, clock, origin) for (e, k), (clock, origin) in self._won.items()]
        )
        self._won.clear()
        sync_journal.discard_after(self.conn, self.journal_floor)
        sync_journal.raise_clock(self.conn, max(self.max_clock, self.journal_floor))


def _earliest(first: object, second: object) -> object:
    stamps = [s for s in (first, second) if s is not None]
    return min(stamps, key=str) if stamps else None


def _differs(loser: dict[str, Any], winner: dict[str, Any]) -> bool:
    return any(loser.get(k) != v for k, v in winner.items() if k != "deleted_at")
