"""Every shared change is journaled in its own transaction; local-only state never is."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from engram.memory.observation import delete_observation, set_pinned, update_observation
from engram.memory.prompts import save_prompt
from engram.memory.relations import judge
from engram.memory.removal import delete_prompt, delete_session
from engram.memory.review import mark_reviewed
from engram.memory.save import save_observation
from engram.memory.sessions import start_session
from engram.store import relations as relation_rows
from engram.store.db import Store
from engram.store.sync_rows import TABLES
from engram.sync.mutation import UPSERT_FIELDS
from tests.sync.replica import Replica


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "data", env={})


def _journal(store: Store) -> list[tuple[int, str, str, str, dict[str, object]]]:
    rows = store.connection.execute(
        "SELECT seq, entity, entity_key, op, payload FROM sync_mutations ORDER BY seq"
    )
    return [(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]


def test_store_columns_match_the_wire_format() -> None:
    for entity, (_, _, columns) in TABLES.items():
        assert list(columns) == list(UPSERT_FIELDS[entity])


def test_each_change_adds_one_mutation_with_a_rising_seq(store: Store) -> None:
    saved = save_observation(store, title="cache", content="cold", project="p", topic_key="t/c")
    obs = saved.observation
    save_observation(store, title="cache", content="warm now", project="p", topic_key="t/c")
    update_observation(store, obs.id, expected_project="p", title="cache policy")
    delete_observation(store, obs.id, expected_project="p")
    delete_observation(store, obs.id, expected_project="p", hard=True)

    journal = _journal(store)
    kinds = [(entity, op) for _, entity, _, op, _ in journal]
    assert kinds == [
        ("session", "upsert"),
        ("observation", "upsert"),  # create
        ("observation", "upsert"),  # topic revision
        ("observation", "upsert"),  # update
        ("observation", "upsert"),  # soft delete
        ("observation", "delete"),  # hard delete
    ]
    seqs = [seq for seq, *_ in journal]
    assert seqs == sorted(set(seqs))
    assert {key for _, entity, key, _, _ in journal if entity == "observation"} == {obs.sync_id}
    assert journal[2][4]["content"] == "warm now"
    assert journal[3][4]["title"] == "cache policy"
    assert journal[4][4]["deleted_at"] is not None


def test_local_only_state_is_never_journaled(store: Store) -> None:
    obs = save_observation(store, title="pin me", content="body", project="p").observation
    before = len(_journal(store))
    set_pinned(store, obs.id, True)
    set_pinned(store, obs.id, False)
    mark_reviewed(store, obs.id)
    assert len(_journal(store)) == before
    payloads = json.dumps([p for *_, p in _journal(store)])
    for local in ("pinned", "review_after", "lease"):
        assert local not in payloads


def test_a_duplicate_save_travels_as_a_counter(store: Store) -> None:
    save_observation(store, title="dup", content="same body", project="p")
    save_observation(store, title="dup", content="same body", project="p")
    last = _journal(store)[-1]
    assert (last[1], last[3]) == ("observation", "upsert")
    assert last[4]["duplicate_count"] == 2


def test_prompts_sessions_and_relations_are_journaled(store: Store) -> None:
    start_session(store, "s-1", project="p", directory="/w")
    prompt = save_prompt(store, "why is it slow?", project="p", session_id="s-1")
    delete_prompt(store, prompt.prompt.id)
    delete_session(store, "s-1")
    a = save_observation(store, title="a", content="x", project="p").observation
    b = save_observation(store, title="b", content="y", project="p").observation
    with store.write() as conn:
        rel = relation_rows.insert(conn, source_id=a.sync_id, target_id=b.sync_id, now="t")
    judge(store, rel.sync_id, "related", reason="same area")

    kinds = [(entity, op) for _, entity, _, op, _ in _journal(store)]
    assert ("prompt", "upsert") in kinds and ("prompt", "delete") in kinds
    assert ("session", "delete") in kinds
    relations = [p for _, entity, _, _, p in _journal(store) if entity == "relation"]
    assert [r["relation"] for r in relations] == ["pending", "related"]


def test_a_failed_write_journals_nothing(store: Store) -> None:
    before = len(_journal(store))
    with pytest.raises(RuntimeError), store.write() as conn:
        conn.execute(
            "INSERT INTO sessions (id, project, started_at) VALUES ('s-x', 'p', '2026-01-01')"
        )
        raise RuntimeError("boom")
    assert len(_journal(store)) == before


def test_only_redacted_text_leaves_the_machine(tmp_path: Path) -> None:
    replica = Replica(tmp_path / "r")
    sync_id = replica.save("deploy", "key is <private>sk-123</private> ok")
    # A row written before redaction existed (or by an older Engram) is redacted on export too.
    with replica.store.write() as conn:
        conn.execute(
            "UPDATE observations SET content = 'old <private>pw-9</private>' WHERE sync_id = ?",
            (sync_id,),
        )
    chunk_id = replica.sync()
    assert chunk_id is not None
    text = gzip.decompress((replica.folder.chunks_dir / f"{chunk_id}.jsonl.gz").read_bytes())
    assert b"sk-123" not in text and b"pw-9" not in text
    assert b"[REDACTED]" in text
    replica.close()


def test_exported_lines_are_exactly_the_wire_format(tmp_path: Path) -> None:
    from engram.store import sync_journal
    from engram.sync.chunk import read_chunk
    from engram.sync.export import to_mutation

    replica = Replica(tmp_path / "r")
    replica.save("naïve café", 'quotes " and \\ and\nnewlines, émoji 🎉')
    replica.prompt("plain <private>hidden</private> prompt")
    chunk_id = replica.sync()
    assert chunk_id is not None
    chunk = read_chunk(chunk_id, (replica.folder.chunks_dir / f"{chunk_id}.jsonl.gz").read_bytes())
    with replica.store.read() as conn:
        origin = sync_journal.device_id(conn)
        rows = sync_journal.pending(conn, after_seq=0, project=None)
    assert list(chunk.mutations) == [to_mutation(origin, row) for row in rows]
    assert "hidden" not in json.dumps([m.payload for m in chunk.mutations])
    replica.close()
