"""Query sanitising: no user text can raise an FTS5 error."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engram.store import observations
from engram.store.db import Store
from engram.store.fts import MatchQuery
from engram.store.search import search_observations


def test_fts_operators_are_literal() -> None:
    query = MatchQuery.build('foo AND "bar" NEAR( x* col:y')
    assert query is not None
    assert query.terms == ("foo", "AND", '"bar"', "NEAR(", "x*", "col:y")


def test_only_punctuation_gives_no_query() -> None:
    assert MatchQuery.build("  !!! --- ___ \" ' ") is None
    assert MatchQuery.build("") is None


def test_any_mode_joins_with_or() -> None:
    query = MatchQuery.build("alpha beta", "any")
    assert query is not None and " OR " in query.expression


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=60), mode=st.sampled_from(["all", "any"]), project=st.text(max_size=8))
def test_any_text_runs_without_error(
    tmp_path_factory: object, text: str, mode: str, project: str
) -> None:
    store = _shared_store(tmp_path_factory)
    query = MatchQuery.build(text, mode)  # type: ignore[arg-type]
    if query is not None:
        search_observations(store.connection, query, project=project)


_STORE: list[Store] = []


def _shared_store(factory: object) -> Store:
    if not _STORE:
        path: Path = factory.mktemp("fts")  # type: ignore[attr-defined]
        store = Store.open(path)
        with store.write() as conn:
            for n, text in enumerate(["foo bar", "AND or NOT", 'quote " here', "naïve café", "x"]):
                new = observations.NewObservation(
                    None, "note", text, text * 3, f"p{n % 2}", "project", str(n)
                )
                observations.insert(conn, new, "2026-01-01 00:00:00")
        _STORE.append(store)
    return _STORE[0]


def test_filters_are_exact_inside_the_window(tmp_path: Path) -> None:
    # 1200 rows share a word; the one row of a small project is still found, and newer
    # rows of other projects don't crowd it out of the ranking window.
    with Store.open(tmp_path) as store:
        with store.write() as conn:
            rare = observations.insert(
                conn,
                observations.NewObservation(
                    None, "note", "common tiny", "x", "tiny", "project", "h"
                ),
                "2026-01-01 00:00:00",
            )
            conn.executemany(
                "INSERT INTO observations (sync_id, type, title, content, project, scope,"
                " normalized_hash, created_at, updated_at) VALUES (?, 'note', ?, 'body',"
                " 'big', 'project', ?, 'x', 'x')",
                [(f"s{n}", f"common {n}", str(n)) for n in range(1200)],
            )
        query = MatchQuery.build("common")
        assert query is not None
        hits = search_observations(store.connection, query, project="tiny")
        assert [h.observation.id for h in hits] == [rare]
        assert search_observations(store.connection, query, project="tin") == []
        assert search_observations(store.connection, query, type="note", scope="personal") == []
        assert len(search_observations(store.connection, query, limit=20)) == 20


def test_title_outranks_content_and_rarer_words_weigh_more(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        with store.write() as conn:
            ids = [
                observations.insert(
                    conn,
                    observations.NewObservation(None, "note", title, body, "p", "project", title),
                    "2026-01-01 00:00:00",
                )
                for title, body in [
                    ("alpha notes", "zeta"),
                    ("other", "alpha zeta"),
                    ("zeta", "alpha"),
                    ("filler one", "zeta"),
                    ("filler two", "zeta"),
                ]
            ]
        query = MatchQuery.build("alpha zeta", "any")
        assert query is not None
        ranked = [h.observation.id for h in search_observations(store.connection, query)]
        # alpha is rarer than zeta, so a title holding alpha beats a title holding zeta.
        assert ranked[:3] == [ids[0], ids[2], ids[1]]
