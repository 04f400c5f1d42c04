"""Walking the store in batches and handing every note to the vault.

The walk never holds more than one batch of rows: observations and sessions are read in id
order, ``BATCH`` at a time, each batch in its own read transaction.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from engram.memory.obsidian import notes
from engram.memory.obsidian.vault import ExportReport, Vault
from engram.store import browse, relations
from engram.store.db import Store
from engram.store.records import Observation

BATCH = 500
LINKED_RELATIONS = {
    "supersedes": ("supersedes", "superseded by"),
    "conflicts_with": ("conflicts with", "conflicts with"),
}


def export_vault(store: Store, out: Path, *, project: str | None) -> ExportReport:
    """Export the live observations of ``project`` (None: every project) into ``out``.

    Raises:
        EngramError: ``obsidian.bad_out``, ``obsidian.bad_state``,
            ``obsidian.write_failed``, ``obsidian.unreadable_note``.
    """
    vault = Vault(out)
    counts: dict[str, int] = defaultdict(int)
    _observations(store, vault, project, counts)
    sessions = _sessions(store, vault, project)
    topics = _topics(store, vault, project)
    names = sorted(set(counts) | set(sessions) | set(topics))
    for name in names:
        vault.put(
            notes.project_path(name),
            notes.project_note(name, sessions.get(name, []), topics.get(name, []), counts[name]),
        )
    vault.put("Engram", notes.index_note(names))
    return vault.finish()


def _observations(store: Store, vault: Vault, project: str | None, counts: dict[str, int]) -> None:
    after = 0
    while True:
        with store.read() as conn:
            rows = browse.live_after(conn, project=project, after_id=after, limit=BATCH)
            ends = relations.for_observations(conn, [o.sync_id for o in rows])
        if not rows:
            return
        lines: dict[str, list[str]] = defaultdict(list)
        by_sync = {o.sync_id: o for o in rows}
        for end in ends:
            line = _relation_line(end, by_sync[end.observation_sync_id])
            if line:
                lines[end.observation_sync_id].append(line)
        for obs in rows:
            counts[obs.project] += 1
            path = notes.observation_path(obs.id, obs.title, obs.project)
            vault.put(path, notes.observation_note(obs, lines.get(obs.sync_id, [])))
        after = rows[-1].id


def _relation_line(end: relations.RelatedEnd, mine: Observation) -> str | None:
    """``- supersedes [[...]]`` for a judged verdict; the other end as text when it is gone."""
    if end.judgment_status == "pending":
        verb = "possible conflict with"
    elif end.relation in LINKED_RELATIONS:
        outgoing, incoming = LINKED_RELATIONS[end.relation]
        verb = outgoing if end.outgoing else incoming
    else:
        return None
    if end.other_id is None or end.other_title is None:
        return f"- {verb} #{end.other_id or '?'} (deleted)"
    # Relations never cross projects, so the other end is exported whenever it is live.
    path = notes.observation_path(end.other_id, end.other_title, mine.project)
    return f"- {verb} {notes.link(path, f'#{end.other_id} {end.other_title}')}"


def _sessions(store: Store, vault: Vault, project: str | None) -> dict[str, list[str]]:
    """Write every session note; return session ids by project, newest last."""
    by_project: dict[str, list[str]] = defaultdict(list)
    after = ""
    while True:
        with store.read() as conn:
            batch = browse.sessions_after(conn, project=project, after_id=after, limit=BATCH)
            members = {s.id: browse.session_titles(conn, s.id) for s in batch}
        if not batch:
            break
        for session in batch:
            listed = [m for m in members[session.id] if project is None or m[2] == project]
            vault.put(notes.session_path(session.id), notes.session_note(session, listed))
            by_project[session.project].append(session.id)
        after = batch[-1].id
    return dict(by_project)


def _topics(store: Store, vault: Vault, project: str | None) -> dict[str, list[str]]:
    """Write every topic note; return topic keys by project."""
    by_project: dict[str, list[str]] = defaultdict(list)
    current: tuple[str, str] | None = None
    members: list[tuple[int, str]] = []
    after: tuple[str, str, int] = ("", "", 0)
    while True:
        with store.read() as conn:
            rows = browse.topic_members(conn, project=project, after=after, limit=BATCH)
        for name, key, obs_id, title in rows:
            if current is not None and (name, key) != current:
                _put_topic(vault, current, members, by_project)
                members = []
            current = (name, key)
            members.append((obs_id, title))
        if len(rows) < BATCH:
            break
        after = rows[-1][:3]
    if current is not None:
        _put_topic(vault, current, members, by_project)
    return dict(by_project)


def _put_topic(
    vault: Vault,
    topic: tuple[str, str],
    members: list[tuple[int, str]],
    by_project: dict[str, list[str]],
) -> None:
    name, key = topic
    vault.put(notes.topic_path(name, key), notes.topic_note(name, key, members))
    by_project[name].append(key)
