"""The vector index file beside the store: written once, reused by the next process, and
never trusted past what it can prove: a truncated, damaged, foreign or forged file is
rebuilt and the search answers from the store's own vectors."""

from __future__ import annotations

import json
import os
import stat
import struct
import zlib
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from engram.memory.observation import update_observation
from engram.memory.save import save_observation
from engram.memory.search import search
from engram.store import vector_file, vector_index
from engram.store.db import Store
from engram.store.semantic import of
from engram.testing import Sandbox

LEAK = ("Memory leak in the worker", "resident memory grew until the container was killed")
NOTES = [
    LEAK,
    ("Postgres connection pool exhausted", "raised the pool size to 50 after requests waited"),
    ("Sidebar layout moved to flexbox", "the grid broke on narrow screens"),
    ("Invoice PDF fonts", "embedded the fonts so invoices render the same everywhere"),
]
QUESTION = "process keeps getting more ram"  # shares no word with LEAK, only its meaning


def _fill(store: Store, project: str = "shop", notes: list[tuple[str, str]] = NOTES) -> list[int]:
    return [
        save_observation(
            store, title=t, content=c, project=project, surface_conflicts=False
        ).observation.id
        for t, c in notes
    ]


def _titles(store: Store, text: str = QUESTION, project: str | None = None) -> list[str]:
    return [hit.observation.title for hit in search(store, text, project=project)]


def _index_file(data_dir: Path) -> Path:
    files = list((data_dir / "vectors").glob("*.vec"))
    assert len(files) == 1, files
    return files[0]


def _header(path: Path) -> tuple[dict[str, object], int]:
    raw = path.read_bytes()
    _, length, _ = struct.unpack("<8sII", raw[:16])
    return json.loads(raw[16 : 16 + length]), length


def _rewrite_header(path: Path, change: dict[str, object]) -> None:
    """Forge a header with a valid checksum (what an attacker who knows the format can do);
    the arrays after it move with it, to the next 64-byte boundary."""
    raw = path.read_bytes()
    header, length = _header(path)
    data = raw[(16 + length + 63) // 64 * 64 :]
    header.update(change)
    body = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    prefix = struct.pack("<8sII", b"ENGRAMVI", len(body), zlib.crc32(body)) + body
    path.write_bytes(prefix.ljust((len(prefix) + 63) // 64 * 64, b"\0") + data)


def _built(tmp_path: Path) -> Path:
    """A store whose index file exists (written by its first hybrid search)."""
    with Store.open(tmp_path, env={}) as store:
        _fill(store)
        assert _titles(store)[:1] == [LEAK[0]]
    return _index_file(tmp_path)


def test_the_first_search_writes_a_private_file_the_next_process_reuses(tmp_path: Path) -> None:
    path = _built(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    before = path.stat().st_ino, path.stat().st_mtime_ns
    with Store.open(tmp_path, env={}) as store:
        assert _titles(store)[:1] == [LEAK[0]]
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == before  # reused, not rewritten
    header, _ = _header(path)
    assert header["count"] == len(NOTES) and header["model"].endswith(":256")


@pytest.mark.parametrize(
    "damage",
    [
        "truncate",
        "flip_matrix",
        "flip_ids",
        "garbage",
        "empty",
        "huge_header",
        "bad_json",
        "crc_text",
        "deep_json",
        "huge_count",
    ],
)
def test_a_damaged_file_is_rebuilt_and_the_answer_stays_right(tmp_path: Path, damage: str) -> None:
    path = _built(tmp_path)
    raw = bytearray(path.read_bytes())
    header, length = _header(path)
    if damage == "truncate":
        raw = raw[: len(raw) - 100]
    elif damage == "flip_matrix":
        raw[-5] ^= 0xFF  # a vector byte: only the chunk's crc can tell
    elif damage == "flip_ids":
        raw[(16 + length + 63) // 64 * 64] ^= 0x01  # the first row id
    elif damage == "garbage":
        raw = bytearray(os.urandom(len(raw)))
    elif damage == "empty":
        raw = bytearray()
    elif damage == "huge_header":
        raw[8:12] = struct.pack("<I", 2**31)
    elif damage == "bad_json":
        raw[16:20] = b"\xff\xfe{["
    path.write_bytes(bytes(raw))
    if damage == "crc_text":
        _rewrite_header(path, {"crcs": ["not a number"]})
    elif damage == "deep_json":
        body = b"[" * 100_000 + b"]" * 100_000
        path.write_bytes(struct.pack("<8sII", b"ENGRAMVI", len(body), zlib.crc32(body)) + body)
    elif damage == "huge_count":
        _rewrite_header(path, {"count": 2**62})
    with Store.open(tmp_path, env={}) as store:
        assert _titles(store)[:1] == [LEAK[0]]
    rebuilt = vector_file.open_file(
        path, model=header["model"], dimension=256, database=header["database"]
    )
    assert len(rebuilt) == len(NOTES)


def test_swapped_vectors_with_valid_checksums_never_rank_the_wrong_row(tmp_path: Path) -> None:
    """A forged file (rows' vectors swapped, every checksum recomputed, watermark kept):
    the rows a search returns are scored from the store, so the leak still comes first."""
    path = _built(tmp_path)
    header, length = _header(path)
    count = int(header["count"])
    ids_at = (16 + length + 63) // 64 * 64
    matrix_at = (ids_at + 20 * count + 63) // 64 * 64
    raw = bytearray(path.read_bytes())
    matrix = np.frombuffer(bytes(raw[matrix_at:]), dtype=np.int8).reshape(count, 256).copy()
    matrix = matrix[::-1].copy()  # every row now holds another row's vector
    raw[matrix_at:] = matrix.tobytes()
    path.write_bytes(bytes(raw))
    _rewrite_header(path, {"crcs": [zlib.crc32(matrix.tobytes())]})
    with Store.open(tmp_path, env={}) as store:
        assert _titles(store)[:1] == [LEAK[0]]
        hits = search(store, QUESTION, project=None)
        assert [h.observation.title for h in hits][:1] == [LEAK[0]]


def test_a_file_from_another_store_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another store's file copied in, even with this database's identity forged into it
    and a watermark far in the future: its rows differ from this store's, so it is rebuilt."""
    other = tmp_path / "other"
    foreign = _built(other)
    mine = tmp_path / "mine"
    with Store.open(mine, env={}) as store:
        _fill(store, notes=[NOTES[3], NOTES[2], NOTES[1], NOTES[0]])  # same ids, other rows
        assert _titles(store)[:1] == [LEAK[0]]
    path = _index_file(mine)
    header, _ = _header(path)
    path.write_bytes(foreign.read_bytes())
    _rewrite_header(path, {"database": header["database"], "watermark": "2999-01-01 00:00:00.000"})
    with Store.open(mine, env={}) as store:
        assert _titles(store)[:1] == [LEAK[0]]
        index = of(store.connection)._index  # type: ignore[union-attr]
        assert isinstance(index, vector_index.VectorIndex) and index.rebuilt_because
    assert _header(path)[0]["watermark"] != "2999-01-01 00:00:00.000"
    # the same with the true watermark: the rows compared on opening differ from the store
    monkeypatch.setattr(vector_index, "MARGIN", timedelta(0))
    path.write_bytes(foreign.read_bytes())
    _rewrite_header(path, {"database": header["database"], "watermark": header["watermark"]})
    with Store.open(mine, env={}) as store:
        assert _titles(store)[:1] == [LEAK[0]]
        assert "differs from the database" in of(store.connection)._index.rebuilt_because  # type: ignore[union-attr]
    # a plain copy (the header names the other database file) is refused at once
    path.write_bytes(foreign.read_bytes())
    with Store.open(mine, env={}) as store:
        assert _titles(store)[:1] == [LEAK[0]]
        assert "another database" in of(store.connection)._index.rebuilt_because  # type: ignore[union-attr]


def test_rows_written_after_the_file_are_found_and_deleted_or_moved_ones_follow_the_store(
    tmp_path: Path,
) -> None:
    path = _built(tmp_path)
    with Store.open(tmp_path, env={}) as store:
        moved = "Memory leak in the scheduler"
        [new_id] = _fill(store, project="ops", notes=[(moved, LEAK[1])])
        assert _titles(store, project="ops")[:1] == [moved]  # not in the file: fresh
        first = store.connection.execute(
            "SELECT id FROM observations WHERE title = ?", (LEAK[0],)
        ).fetchone()[0]
        store.connection.execute("UPDATE observations SET project = 'ops' WHERE id = ?", (first,))
        assert LEAK[0] in _titles(store, project="ops")  # re-filed: scored under its new project
        assert LEAK[0] not in _titles(store, project="shop")
        store.connection.execute(
            "UPDATE observations SET deleted_at = '2026-01-01' WHERE id IN (?, ?)",
            (first, new_id),
        )
        assert LEAK[0] not in _titles(store) and moved not in _titles(store)
    assert _header(path)[0]["count"] == len(NOTES)


def test_an_edited_memory_is_scored_by_its_new_vector_in_a_new_process(tmp_path: Path) -> None:
    _built(tmp_path)
    with Store.open(tmp_path, env={}) as store:
        ids = store.connection.execute("SELECT id, title FROM observations ORDER BY id").fetchall()
        by_title = {title: rowid for rowid, title in ids}
        update_observation(store, by_title[LEAK[0]], expected_project="shop", content="grid again")
        update_observation(
            store, by_title[NOTES[3][0]], expected_project="shop", title="Leak", content=LEAK[1]
        )
    with Store.open(tmp_path, env={}) as store:
        assert _titles(store)[:1] == ["Leak"]


@pytest.mark.parametrize("new", [5, 13])  # 13 > 4 x 3: the rewrite reads the store alone
def test_many_new_rows_rewrite_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new: int
) -> None:
    monkeypatch.setattr(vector_index, "REWRITE_MIN", 3)
    monkeypatch.setattr(vector_index, "REWRITE_SHARE", 0.0)
    path = _built(tmp_path)
    with Store.open(tmp_path, env={}) as store:
        ids = store.connection.execute("SELECT id, title FROM observations").fetchall()
        leak = next(rowid for rowid, title in ids if title == LEAK[0])
        update_observation(store, leak, expected_project="shop", content="the grid again")
        notes = [(f"deploy note {i}", "rolled out") for i in range(new - 1)]
        _fill(store, project="ops", notes=[*notes, ("Leak", LEAK[1])])
        assert len(_titles(store, "rolled out", project="ops")) == min(new - 1, 10)
        assert _titles(store)[:1] == ["Leak"]  # the edited row's new vector, not the file's
    header, _ = _header(path)
    assert header["count"] == len(NOTES) + new and header["spans"]["ops"] == [0, new]
    with Store.open(tmp_path, env={}) as store:
        assert _titles(store)[:1] == ["Leak"]


def test_a_vectors_symlink_or_file_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "vectors").symlink_to(elsewhere)
    with Store.open(data, env={}) as store:
        _fill(store)
        assert _titles(store)[:1] == [LEAK[0]]
    assert list(elsewhere.iterdir()) == []
    plain = tmp_path / "plain"
    plain.mkdir(mode=0o700)
    (plain / "vectors").write_text("not a folder")
    with Store.open(plain, env={}) as store:
        _fill(store)
        assert _titles(store)[:1] == [LEAK[0]]
    assert (plain / "vectors").read_text() == "not a folder"
    # the index file's own name taken by a folder: read as a bad file, written nowhere
    path = _built(tmp_path / "taken")
    path.unlink()
    path.mkdir()
    with Store.open(tmp_path / "taken", env={}) as store:
        assert _titles(store)[:1] == [LEAK[0]]
    assert path.is_dir() and list(path.iterdir()) == []
    # no temporary left (the model's token table may stand beside it)
    assert {p.name for p in path.parent.iterdir()} == {
        path.name,
        "wordllama-l2-supercat.tokens.sqlite",
    }


def test_doctor_and_embed_report_the_index_file(sandbox: Sandbox) -> None:
    import subprocess
    import sys

    def engram(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "engram.cli.entry", *args], capture_output=True, text=True,
            env=sandbox.env(), cwd=sandbox.workspace, timeout=120,
        )  # fmt: skip
        assert "Traceback" not in done.stderr
        return done.stdout

    with Store.open(sandbox.data_dir, env={}) as store:
        _fill(store)
    assert "vector index: none yet (the next hybrid search writes" in engram("embed")
    with Store.open(sandbox.data_dir, env={}) as store:
        _titles(store)
    path = _index_file(sandbox.data_dir)
    report = engram("doctor", "--check", "semantic")
    assert f"vector index {path}: 4 vectors" in report
    path.write_bytes(path.read_bytes()[:-10])
    report = engram("doctor", "--check", "semantic")
    line = next(line for line in report.splitlines() if "vector index" in line)
    assert "the next search rebuilds it" in line and "truncated" in line
    assert path.stat().st_size > 0  # doctor only looks: nothing rebuilt or removed


def test_two_processes_share_the_file_while_one_rewrites_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader keeps its mapping of the old file while another rewrites it: both answer
    from the store's truth (candidates and confirmed rows), and the rewritten file is whole."""
    monkeypatch.setattr(vector_index, "REWRITE_MIN", 3)
    monkeypatch.setattr(vector_index, "REWRITE_SHARE", 0.0)
    path = _built(tmp_path)
    first_inode = path.stat().st_ino
    with Store.open(tmp_path, env={}) as reader, Store.open(tmp_path, env={}) as writer:
        assert _titles(reader)[:1] == [LEAK[0]]  # maps the file
        _fill(writer, project="ops", notes=[(f"deploy note {i}", "rolled out") for i in range(6)])
        assert len(_titles(writer, "rolled out", project="ops")) == 6  # rewrites the file
        assert path.stat().st_ino != first_inode
        leak = writer.connection.execute(
            "SELECT id FROM observations WHERE title = ?", (LEAK[0],)
        ).fetchone()[0]
        update_observation(writer, leak, expected_project="shop", content="the grid again")
        _fill(writer, notes=[("Leak", LEAK[1])])
        assert _titles(reader)[:1] == ["Leak"]  # the old mapping, the store's new rows
        assert len(_titles(reader, "rolled out", project="ops")) == 6
        live = reader.connection.execute(
            "SELECT count(*) FROM observations WHERE embedding IS NOT NULL"
        ).fetchone()[0]
    header, _ = _header(path)
    assert header["count"] in (len(NOTES) + 6, live)  # the last rewrite, by either of them
