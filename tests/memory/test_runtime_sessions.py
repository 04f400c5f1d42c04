"""Runtime-session leases are local: renewing one journals nothing, exports nothing, and a
refused registration changes neither the session nor the sync journal."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engram.errors import EngramError
from engram.memory.backup import export_backup
from engram.memory.runtime_sessions import register_session, session_lease
from engram.store.db import Store

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _journal(store: Store) -> int:
    return int(store.connection.execute("SELECT count(*) FROM sync_mutations").fetchone()[0])


def test_renewal_moves_the_lease_and_journals_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        first = register_session(store, "s1", project="acme", now=START)
        assert first.created and first.lease_expires_at == "2026-03-01 12:30:00"
        journaled = _journal(store)
        later = START + timedelta(minutes=20)
        again = register_session(store, "s1", project="acme", now=later)
        assert not again.created
        assert session_lease(store, "s1") == "2026-03-01 12:50:00"
        assert _journal(store) == journaled
        assert "runtime_lease_expires_at" not in json.dumps(export_backup(store, "acme"))


def test_refused_registration_changes_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        register_session(store, "s2", project="one", now=START)
        journaled = _journal(store)
        with pytest.raises(EngramError) as refused:
            register_session(
                store, "s2", project="two", ownership_mode="project_owned", now=START + timedelta(1)
            )
        assert refused.value.code == "memory.session_project_conflict"
        assert session_lease(store, "s2") == "2026-03-01 12:30:00"
        assert _journal(store) == journaled
        with pytest.raises(EngramError) as bad:
            register_session(store, "s3", project="one", ownership_mode="owner")
        assert bad.value.code == "memory.bad_ownership_mode"
        assert session_lease(store, "s3") is None
