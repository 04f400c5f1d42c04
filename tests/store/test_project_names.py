"""Project names from the indexes: existence probes and the distinct-name walk."""

from __future__ import annotations

import pytest

from engram.errors import EngramError
from engram.memory.project import known_project_names, require_known_project
from engram.store import observations, prompts, sessions
from engram.store.db import Store
from engram.store.observations import NewObservation
from engram.store.project_names import distinct_names, project_exists
from engram.testing import Sandbox

NOW = "2026-01-01 00:00:00"


def test_names_come_from_every_table_and_skip_blank(sandbox: Sandbox) -> None:
    with Store.open() as store:
        with store.write() as conn:
            sessions.create(conn, "s-only", project="sessions-only", directory="", now=NOW)
            sessions.create(conn, "s-blank", project="", directory="", now=NOW)
            prompts.insert(conn, session_id=None, content="q", project="prompts-only", now=NOW)
            for project in ("zeta", "alpha", "alpha", "mid"):
                observations.insert(
                    conn,
                    NewObservation(None, "manual", "t", "c", project, "project", f"h-{project}"),
                    NOW,
                )
            gone = observations.insert(
                conn, NewObservation(None, "manual", "t", "c", "deleted-only", "project", "h"), NOW
            )
            observations.soft_delete(conn, gone, NOW)
        with store.read() as conn:
            assert distinct_names(conn) == [
                "alpha",
                "deleted-only",
                "mid",
                "prompts-only",
                "sessions-only",
                "zeta",
            ]
            assert project_exists(conn, "prompts-only")
            assert project_exists(conn, "deleted-only")
            assert not project_exists(conn, "")
            assert not project_exists(conn, "alph")
        assert known_project_names(store)[0] == "alpha"
        require_known_project(store, "zeta")
        with pytest.raises(EngramError) as caught:
            require_known_project(store, "nope")
        assert caught.value.code == "project.unknown"
        assert "zeta" in caught.value.details["available_projects"]


def test_an_empty_store_knows_no_projects(sandbox: Sandbox) -> None:
    with Store.open() as store:
        assert known_project_names(store) == []
        with pytest.raises(EngramError, match="none yet"):
            require_known_project(store, "anything")
