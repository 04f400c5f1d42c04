"""Every write path embeds at save time; edits re-embed; redaction comes first; no sync."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np

from engram.memory.backup import export_backup, import_backup
from engram.memory.observation import update_observation
from engram.memory.save import save_observation
from engram.semantic.embedder import document_text
from engram.semantic.wordllama import WordLlamaEmbedder
from engram.store.db import Store
from engram.store.vectors import dequantise, quantise
from engram.testing import Sandbox

MODEL = "wordllama-l2-supercat:256"


def _vector(store: Store, obs_id: int) -> tuple[bytes | None, str | None, str | None]:
    row = store.connection.execute(
        "SELECT embedding, embedding_model, embedding_created_at FROM observations WHERE id = ?",
        (obs_id,),
    ).fetchone()
    return row[0], row[1], row[2]


def _save(store: Store, title: str, content: str, project: str = "shop") -> int:
    result = save_observation(
        store, title=title, content=content, project=project, surface_conflicts=False
    )
    return result.observation.id


def test_a_save_stores_the_vector_its_model_and_when(tmp_path: Path) -> None:
    with Store.open(tmp_path, env={}) as store:
        obs_id = _save(store, "Ledger race fixed", "two workers wrote the same balance")
        blob, model, made = _vector(store, obs_id)
    assert model == MODEL and made and blob is not None and len(blob) == 256
    expected = WordLlamaEmbedder().embed(
        [document_text("Ledger race fixed", "two workers wrote the same balance")]
    )[0]
    assert float(dequantise([blob], 256)[0] @ expected) > 0.999


def test_a_content_edit_re_embeds_the_new_text(tmp_path: Path) -> None:
    with Store.open(tmp_path, env={}) as store:
        obs_id = _save(store, "Cache note", "the cache timed out")
        before = _vector(store, obs_id)[0]
        update_observation(store, obs_id, expected_project="shop", content="flexbox sidebar")
        after, model, _ = _vector(store, obs_id)
    assert model == MODEL and after is not None and after != before
    expected = WordLlamaEmbedder().embed([document_text("Cache note", "flexbox sidebar")])[0]
    assert float(dequantise([after], 256)[0] @ expected) > 0.999


def test_an_edit_where_semantic_recall_is_off_drops_the_stale_vector(tmp_path: Path) -> None:
    with Store.open(tmp_path, env={}) as store:
        obs_id = _save(store, "Cache note", "the cache timed out")
    with Store.open(tmp_path, env={"ENGRAM_SEARCH": "lexical"}) as store:
        update_observation(store, obs_id, expected_project="shop", content="new words")
        assert _vector(store, obs_id) == (None, None, None)
        # and a save there leaves the row for the backfill
        other = _save(store, "Second", "not embedded here")
        assert _vector(store, other) == (None, None, None)


def test_a_private_secret_is_redacted_before_it_is_embedded(tmp_path: Path) -> None:
    with Store.open(tmp_path, env={}) as store:
        obs_id = _save(store, "Deploy key", "use <private>hunter2-secret-token</private> here")
        stored = store.connection.execute(
            "SELECT content FROM observations WHERE id = ?", (obs_id,)
        ).fetchone()[0]
        blob = _vector(store, obs_id)[0]
    assert "hunter2" not in stored
    embedder = WordLlamaEmbedder()
    redacted = embedder.embed([document_text("Deploy key", stored)])[0]
    raw = embedder.embed([document_text("Deploy key", "use hunter2-secret-token here")])[0]
    vector = dequantise([blob], 256)[0]  # type: ignore[list-item]
    assert float(vector @ redacted) > 0.999
    assert float(vector @ raw) < float(vector @ redacted) - 0.001


def test_backup_import_embeds_and_no_export_carries_a_vector(sandbox: Sandbox) -> None:
    with Store.open(sandbox.root / "a", env={}) as source:
        _save(source, "Ledger race fixed", "two workers wrote the same balance")
        text = json.dumps(export_backup(source, None))
        payloads = [
            row[0] for row in source.connection.execute("SELECT payload FROM sync_mutations")
        ]
    assert "embedding" not in text
    assert payloads and all("embedding" not in json.loads(p) for p in payloads)
    with Store.open(sandbox.root / "b", env={}) as target:
        import_backup(target, text)
        rows = target.connection.execute(
            "SELECT embedding_model, length(embedding) FROM observations"
        ).fetchall()
    assert [tuple(r) for r in rows] == [(MODEL, 256)]


def test_git_sync_apply_embeds_on_the_receiving_side(tmp_path: Path) -> None:
    from tests.sync.replica import Replica

    a, b = Replica(tmp_path / "a"), Replica(tmp_path / "b")
    try:
        a.save("Ledger race fixed", "two workers wrote the same balance")
        a.sync()
        b.pull_from(a)
        b.import_()
        rows = b.store.connection.execute(
            "SELECT embedding_model, length(embedding) FROM observations"
        ).fetchall()
    finally:
        a.close()
        b.close()
    assert [tuple(r) for r in rows] == [(MODEL, 256)]


def test_embedding_columns_come_from_migration_0011(tmp_path: Path) -> None:
    with Store.open(tmp_path, env={}):
        pass
    conn = sqlite3.connect(tmp_path / "engram.db")
    columns = {row[1] for row in conn.execute("PRAGMA table_info(observations)")}
    conn.close()
    assert {"embedding", "embedding_model", "embedding_created_at"} <= columns


def test_vectors_are_int8_unit_vectors(tmp_path: Path) -> None:
    with Store.open(tmp_path, env={}) as store:
        obs_id = _save(store, "Ledger race fixed", "two workers")
        blob = _vector(store, obs_id)[0]
    assert blob is not None
    raw = np.frombuffer(blob, dtype=np.int8)
    assert raw.shape == (256,) and int(np.abs(raw).max()) <= 127


def test_a_vector_made_in_another_process_is_stored_for_its_text_only(tmp_path: Path) -> None:
    # engram serve makes a draft's vector beside its writer process and hands it over: the
    # writer stores it for a row with exactly that text and that model, and embeds the rest.
    with Store.open(tmp_path, env={}) as server, Store.open(tmp_path, env={}) as writer:
        server.warm_semantic()
        text = document_text("Ledger race fixed", "two workers wrote the same balance")
        made = server.vectors_for([text])
        assert made is not None
        label, (blob,) = made
        assert label == MODEL
        assert blob == quantise(WordLlamaEmbedder().embed([text]))[0]
        marker = bytes([1]) * 256  # not what the model gives: proves the offer was taken
        writer.take_vectors(label, {text: marker})
        taken = _save(writer, "Ledger race fixed", "two workers wrote the same balance")
        other = _save(writer, "Cache key fixed", "the route name is in the key")
        writer.take_vectors("another-model:256", {document_text("A", "b"): marker})
        foreign = _save(writer, "A", "b")
        writer.take_vectors(label, None)
        assert _vector(writer, taken)[:2] == (marker, MODEL)
        assert _vector(writer, other)[0] not in (None, marker)
        assert _vector(writer, foreign)[0] not in (None, marker)  # another model's: embedded
