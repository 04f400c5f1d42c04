"""The built-in model's token table: a search-only process tokenizes its query from it, with
the tokenizer's own ids, without loading the tokenizer; anything it cannot vouch for goes to
the tokenizer, and a stale or damaged table is never used."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.memory.save import save_observation
from engram.memory.search import search
from engram.semantic import token_table
from engram.semantic.wordllama import NAME, TOKENIZER, WordLlamaEmbedder, package_dir
from engram.store.db import Store

CONFIG = os.path.join(package_dir() or "", TOKENIZER)
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "data"))


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> token_table.TokenTable:
    folder = tmp_path_factory.mktemp("vectors")
    assert token_table.build(CONFIG, folder, NAME) is not None
    opened = token_table.TokenTable.open(folder, CONFIG, NAME)
    assert opened is not None
    return opened


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    from tokenizers import Tokenizer

    loaded = Tokenizer.from_file(CONFIG)
    loaded.no_padding()
    loaded.no_truncation()
    return loaded


def _ids(tokenizer, text: str) -> list[int]:  # type: ignore[no-untyped-def]
    return list(tokenizer.encode(text, add_special_tokens=False).ids)


def test_the_labelled_set_tokenizes_as_the_tokenizer_does(table, tokenizer) -> None:  # type: ignore[no-untyped-def]
    import retrieval_set

    data = retrieval_set.build()
    texts = [q.text for q in data.queries] + [
        f"{m.title} {m.content}" for m in data.memories[:1500]
    ]
    compared = 0
    for text in texts:
        mine = table.encode(text)
        if mine is not None:
            assert mine == _ids(tokenizer, text), text
            compared += 1
    assert compared >= len(texts) * 0.95


# Letters that merge into each other in many ways (runs, repeats, common pieces).
_PIECES = st.sampled_from(
    ["a", "aa", "aaa", "e", "r", "er", "in", "ing", "the", " ", "  ", "q", "z"]
)


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=80),
        st.lists(_PIECES, max_size=30).map("".join),
    )
)
def test_any_printable_ascii_text_tokenizes_as_the_tokenizer_does(
    table, tokenizer, text: str
) -> None:  # type: ignore[no-untyped-def]
    mine = table.encode(text)
    if mine is not None:
        assert mine == _ids(tokenizer, text)


def test_what_it_cannot_vouch_for_is_left_to_the_tokenizer(table) -> None:  # type: ignore[no-untyped-def]
    assert table.encode("") == []
    for text in (
        "café au lait",
        "line\nbreak",
        "tab\there",
        "a <s> b",
        "</s>",
        "<unk>",
        "x" * (token_table.MAX_CHARS + 1),
    ):
        assert table.encode(text) is None, text


def test_the_query_vector_is_the_one_the_tokenizer_gives(tmp_path: Path) -> None:
    assert token_table.build(CONFIG, tmp_path, NAME) is not None
    fresh = WordLlamaEmbedder()
    query = "why did account totals diverge"
    from_table = fresh.query_vector(query, tmp_path)
    assert not fresh.ready  # the tokenizer was not loaded for it
    assert np.array_equal(from_table, WordLlamaEmbedder().embed([query])[0])


def test_a_stale_foreign_or_damaged_table_is_not_used(tmp_path: Path) -> None:
    path = token_table.build(CONFIG, tmp_path, NAME)
    assert path is not None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o700
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '1:other:1:1' WHERE key = 'signature'")
    conn.close()
    assert token_table.TokenTable.open(tmp_path, CONFIG, NAME) is None
    with sqlite3.connect(path) as conn:  # forged: tokens far longer than any of the model's
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'signature'",
            (token_table.signature(CONFIG, NAME),),
        )
        conn.execute("UPDATE meta SET value = '100000' WHERE key = 'longest'")
    conn.close()
    assert token_table.TokenTable.open(tmp_path, CONFIG, NAME) is None
    path.write_bytes(b"not a database at all" * 100)
    assert token_table.TokenTable.open(tmp_path, CONFIG, NAME) is None
    embedder = WordLlamaEmbedder()  # and a query still gets its vector, from the tokenizer
    assert np.array_equal(
        embedder.query_vector("memory leak", tmp_path),
        WordLlamaEmbedder().embed(["memory leak"])[0],
    )
    embedder.keep_query_tokens(tmp_path)  # the next process that embeds writes it again
    assert token_table.TokenTable.open(tmp_path, CONFIG, NAME) is not None


def test_a_search_only_process_answers_without_loading_the_tokenizer(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Store.open(data, env={}) as store:
        for title, content in (
            ("Memory leak in the worker", "resident memory grew until the container was killed"),
            ("Invoice PDF fonts", "embedded the fonts so invoices render the same everywhere"),
        ):
            save_observation(
                store, title=title, content=content, project="shop", surface_conflicts=False
            )
        expected = [
            h.observation.title
            for h in search(store, "process keeps getting more ram", project="shop")
        ]
    assert (data / "vectors" / token_table.file_name(NAME)).is_file()
    script = textwrap.dedent(
        f"""
        import sys
        from engram.memory.search import search
        from engram.store.db import Store
        with Store.open({str(data)!r}, env={{}}) as store:
            hits = [h.observation.title for h in search(store, "process keeps getting more ram", project="shop")]
        print(hits)
        print("tokenizers" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    hits, loaded = done.stdout.strip().splitlines()
    assert hits == repr(expected) and expected[0] == "Memory leak in the worker"
    assert loaded == "False"


def test_a_vectors_path_that_is_not_a_folder_gets_no_table_and_is_left_alone(
    tmp_path: Path,
) -> None:
    taken = tmp_path / "vectors"
    taken.write_text("not a folder")
    assert token_table.build(CONFIG, taken, NAME) is None
    assert taken.read_text() == "not a folder"
    assert token_table.TokenTable.open(taken, CONFIG, NAME) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors"]


def test_a_server_that_searched_before_its_first_save_still_writes_the_table(
    tmp_path: Path,
) -> None:
    # The search loads the tokenizer (no table yet), so the save embeds inside its write:
    # the table must be written all the same, after that write.
    data = tmp_path / "data"
    table = data / "vectors" / token_table.file_name(NAME)
    with Store.open(data, env={}) as store:
        save_observation(
            store, title="Invoice PDF fonts", content="embedded the fonts", project="shop",
            surface_conflicts=False,
        )  # fmt: skip
        table.unlink()
    with Store.open(data, env={}) as store:
        search(store, "fonts in invoices", project="shop")
        assert not table.exists()
        save_observation(
            store, title="Memory leak in the worker", content="resident memory grew",
            project="shop", surface_conflicts=False,
        )  # fmt: skip
        assert table.is_file()
