"""The cloud upgrade doctor checks every row a push would send — also the parent session rows a
project's push carries for sessions another project owns."""

from __future__ import annotations

import sqlite3

from engram.memory.save import save_observation
from engram.store.db import Store
from engram.sync.cloud.journal_repair import refused_rows
from engram.testing import Sandbox

TARGET = "https://cloud.example/#legacy"


def test_a_refused_parent_session_row_is_reported(sandbox: Sandbox) -> None:
    with Store.open() as store:
        save_observation(store, title="kept decision", content="a body", project="legacy")
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        # A session of another project, journaled without its fields (a hand edit, an older
        # Engram), and a legacy observation written in it: a push of legacy sends both.
        conn.execute(
            "INSERT INTO sync_mutations (entity, entity_key, op, project, payload)"
            " VALUES ('session', 's-elsewhere', 'upsert', 'other', '{\"id\": \"s-elsewhere\"}')"
        )
        conn.execute(
            "INSERT INTO sync_mutations (entity, entity_key, op, project, payload)"
            " SELECT entity, entity_key, op, project,"
            " json_set(payload, '$.session_id', 's-elsewhere') FROM sync_mutations"
            " WHERE entity = 'observation' AND project = 'legacy'"
        )
    with Store.open() as store:
        refused = refused_rows(store, "legacy", TARGET)
    assert [(row.entity, row.key) for row in refused] == [("session", "s-elsewhere")]
