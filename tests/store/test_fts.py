"""Query sanitising: no user text can raise an FTS5 error."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

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
    query = MatchQuery.build(text, mode, column_filters={"project": project})  # type: ignore[arg-type]
    if query is not None:
        search_observations(store.connection, query, project=project)


_STORE: list[Store] = []


def _shared_store(factory: object) -> Store:
    if not _STORE:
        path: Path = factory.mktemp("fts")  # type: ignore[attr-defined]
        _STORE.append(Store.open(path))
    return _STORE[0]
