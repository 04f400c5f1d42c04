"""A small, fixed memory for the TUI tests: the same ids, times and text every run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engram.memory.relations import compare
from engram.memory.save import save_observation
from engram.memory.sessions import end_session, start_session
from engram.store.db import Store

# "Now" for every test: what counts as an active session is decided against it.
NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
ZONE = "Europe/Berlin"

TOPICS = [
    ("decision", "Use SQLite WAL for the store", "WAL lets readers run while one writer commits."),
    ("bugfix", "Fix token refresh race", "Two refreshes raced; a lock around refresh fixes it."),
    ("discovery", "FTS5 ranks title words higher", "Title matches weigh five times the body."),
    ("pattern", "Paged queries everywhere", "Every list reads one page with LIMIT and OFFSET."),
    ("architecture", "Surfaces call engram/memory", "CLI, MCP and TUI never run SQL themselves."),
    ("config", "ENGRAM_TIMEZONE sets display time", "Any IANA zone; local time otherwise."),
]


def seed(store: Store, *, old_sessions: int = 3, per_session: int = 18) -> dict[str, int]:
    """Fill ``store``: ended sessions of two projects, one active session, relations.

    Returns ids worth pointing at: ``first``, ``middle`` (has neighbours), ``superseded``.
    """
    ids: dict[str, int] = {}
    moment = NOW - timedelta(days=30)
    for number in range(old_sessions):
        project = "acme-api" if number % 2 == 0 else "billing"
        sid = f"session-{number + 1:02d}"
        start_session(store, sid, project=project, directory=f"/src/{project}", now=moment)
        for index in range(per_session):
            kind, title, body = TOPICS[(number + index) % len(TOPICS)]
            moment += timedelta(minutes=7)
            saved = save_observation(
                store,
                title=f"{title} ({number + 1}.{index + 1})",
                content=f"{body} Note {index + 1} of session {number + 1}.",
                project=project,
                type=kind,
                session_id=sid,
                now=moment,
                surface_conflicts=False,
            )
            ids.setdefault("first", saved.observation.id)
            if number == 0 and index == 8:
                ids["middle"] = saved.observation.id
        moment += timedelta(hours=20)
        end_session(store, sid, summary=f"Worked on {project}: {per_session} notes.", now=moment)
    start_session(store, "session-live", project="acme-api", directory="/src/acme-api", now=NOW)
    for index, (kind, title, body) in enumerate(TOPICS[:3]):
        saved = save_observation(
            store,
            title=f"Live: {title}",
            content=f"{body} Still in progress.",
            project="acme-api",
            type=kind,
            session_id="session-live",
            now=NOW + timedelta(minutes=index),
            surface_conflicts=False,
        )
        ids[f"live{index}"] = saved.observation.id
    compare(
        store,
        ids["live0"],
        ids["first"],
        "supersedes",
        confidence=0.9,
        reasoning="the live decision replaces the first one",
        now=NOW,
    )
    ids["superseded"] = ids["first"]
    return ids
