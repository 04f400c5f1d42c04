"""Connection settings, migrations and FTS triggers on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engram.errors import EngramError
from engram.store import observations
from engram.store.db import Store
from engram.store.fts import MatchQuery
from engram.store.migrate import available_migrations, schema_version
from engram.store.search import search_observations

NOW = "2026-01-01 00:00:00"


def _obs(title: str, content: str, project: str = "p") -> observations.NewObservation:
    return observations.NewObservation(
        session_id=None,
        type="discovery",
        title=title,
        content=content,
        project=project,
        scope="project",
        normalized_hash=title + content,
    )


def _ids(store: Store, text: str, **filters: str) -> list[int]:
    query = MatchQuery.build(text)
    assert query is not None
    hits = search_observations(store.connection, query, **filters)  # type: ignore[arg-type]
    return [hit.observation.id for hit in hits]


def test_connection_pragmas(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        conn = store.connection
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_migrations_apply_once_and_record_version(tmp_path: Path) -> None:
    latest = available_migrations()[-1].version
    with Store.open(tmp_path) as store:
        assert schema_version(store.connection) == latest
    with Store.open(tmp_path) as store:  # reopening applies nothing twice
        assert schema_version(store.connection) == latest
        tables = {r[0] for r in store.connection.execute("SELECT name FROM sqlite_master")}
    for table in (
        "sessions",
        "observations",
        "user_prompts",
        "prompt_tombstones",
        "memory_relations",
        "observations_fts",
        "prompts_fts",
    ):
        assert table in tables


def test_database_from_a_newer_engram_is_refused(tmp_path: Path) -> None:
    Store.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / "engram.db")
    conn.execute("PRAGMA user_version = 9999")
    conn.close()
    with pytest.raises(EngramError) as caught:
        Store.open(tmp_path)
    assert caught.value.code == "store.schema_too_new"


def test_garbage_database_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "engram.db").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(EngramError) as caught:
        Store.open(tmp_path)
    assert caught.value.code == "store.corrupt"


def test_write_rolls_back_on_error(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        with pytest.raises(RuntimeError), store.write() as conn:
            observations.insert(conn, _obs("kept out", "x"), NOW)
            raise RuntimeError("boom")
        assert observations.count_live(store.connection) == 0


def test_fts_follows_insert_update_soft_and_hard_delete(tmp_path: Path) -> None:
    # lexical: with semantic recall on, "zebra" would also find "Giraffe ... pumas" by meaning
    with Store.open(tmp_path, env={"ENGRAM_SEARCH": "lexical"}) as store:
        with store.write() as conn:
            first = observations.insert(conn, _obs("Zebra migration", "about pumas"), NOW)
            second = observations.insert(conn, _obs("Other", "zebra in body"), NOW)
        assert _ids(store, "zebra") == [first, second]  # title outranks content
        with store.write() as conn:
            observations.update_fields(conn, first, {"title": "Giraffe"}, NOW)
        assert _ids(store, "zebra") == [second]
        assert _ids(store, "giraffe") == [first]
        with store.write() as conn:
            observations.soft_delete(conn, second, NOW)
        assert _ids(store, "zebra") == []
        with store.write() as conn:
            observations.hard_delete(conn, second)
            observations.hard_delete(conn, first)
        assert _ids(store, "giraffe") == []
        store.connection.execute(
            "INSERT INTO observations_fts(observations_fts) VALUES('integrity-check')"
        )
        assert store.integrity_check() == "ok"


def test_search_filters_are_exact(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        with store.write() as conn:
            mine = observations.insert(conn, _obs("cache bug", "x", project="acme"), NOW)
            observations.insert(conn, _obs("cache bug", "x", project="acme-api"), NOW)
        query = MatchQuery.build("cache")
        assert query is not None
        hits = search_observations(store.connection, query, project="acme")
        assert [hit.observation.id for hit in hits] == [mine]


def test_upgrade_from_first_schema_reindexes_live_rows_only(tmp_path: Path) -> None:
    from engram.store.migrate import _statements

    first = available_migrations()[0]
    conn = sqlite3.connect(tmp_path / "engram.db", isolation_level=None)
    for statement in _statements(first.sql):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    for title, deleted in (("kept walrus", None), ("gone walrus", NOW)):
        conn.execute(
            "INSERT INTO observations (sync_id, type, title, content, project, scope,"
            " normalized_hash, created_at, updated_at, deleted_at)"
            " VALUES (?, 'note', ?, 'body', 'p', 'project', ?, ?, ?, ?)",
            (title, title, title, NOW, NOW, deleted),
        )
    conn.close()
    with Store.open(tmp_path) as store:
        assert schema_version(store.connection) == available_migrations()[-1].version
        query = MatchQuery.build("walrus")
        assert query is not None
        hits = search_observations(store.connection, query, project="p")
        assert [h.observation.title for h in hits] == ["kept walrus"]


def test_threads_sharing_a_store_do_not_interleave_transactions(tmp_path: Path) -> None:
    import threading

    with Store.open(tmp_path) as store:

        def writer(worker: int) -> None:
            for n in range(50):
                with store.write() as conn:
                    observations.insert(conn, _obs(f"t{worker}-{n}", "x"), NOW)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert observations.count_live(store.connection) == 200
