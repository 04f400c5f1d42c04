"""The observation ranking: what a user notices about which memory comes back first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.store import observations, relations
from engram.store.db import Store
from engram.store.fts import MatchQuery
from engram.store.search import search_observations


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path) as opened:
        yield opened


def _add(store: Store, title: str, content: str, project: str = "p") -> int:
    with store.write() as conn:
        return observations.insert(
            conn,
            observations.NewObservation(None, "note", title, content, project, "project", title),
            "2026-01-01 00:00:00",
        )


def _bulk(store: Store, count: int, title: str, content: str) -> None:
    with store.write() as conn:
        conn.executemany(
            "INSERT INTO observations (sync_id, type, title, content, project, scope,"
            " normalized_hash, created_at, updated_at) VALUES (?, 'note', ?, ?, 'p',"
            " 'project', ?, 'x', 'x')",
            [(f"bulk-{n}", f"{title} {n}", content, str(n)) for n in range(count)],
        )


def _ids(store: Store, text: str, mode: str = "all", **filters: str) -> list[int]:
    query = MatchQuery.build(text, mode)  # type: ignore[arg-type]
    assert query is not None
    return [h.observation.id for h in search_observations(store.connection, query, **filters)]


def test_an_old_exact_title_is_not_hidden_by_a_thousand_newer_mentions(store: Store) -> None:
    old = _add(store, "Deploy timeout error in ledger", "first seen in March")
    _bulk(store, 1300, "notes", "the deploy hit a timeout error in the ledger again")
    assert _ids(store, "deploy timeout error ledger")[0] == old


def test_other_forms_of_a_word_match(store: Store) -> None:
    cached = _add(store, "Caching layer", "we cached the responses; retries were capped")
    assert _ids(store, "cache") == [cached]
    assert _ids(store, "retried caches") == [cached]


def test_a_row_holding_only_the_distinctive_words_is_found(store: Store) -> None:
    target = _add(store, "Fix ledger drift", "balances diverged after the nightly job")
    _bulk(store, 300, "routine", "nightly job ran fine")
    # 'why' and 'did' are in no memory: every-word matching finds nothing at all
    found = _ids(store, "Why did the ledger balances diverge?")
    assert found[0] == target


def test_rows_holding_every_word_come_first_in_all_mode(store: Store) -> None:
    both = _add(store, "notes", "redis eviction policy")
    title_only = _add(store, "Eviction", "cluster")
    for n in range(3):
        _add(store, f"filler {n}", "redis")
    # the rarer word in a title outscores both words in the body, but 'all' puts both first
    assert _ids(store, "redis eviction")[:2] == [both, title_only]
    assert _ids(store, "redis eviction", "any")[:2] == [title_only, both]


def test_a_superseded_memory_drops_below_its_successor(store: Store) -> None:
    old = _add(store, "Session store backend: redis", "session store backend decision")
    new = _add(store, "Session backend moves", "session store backend decision: postgres")
    assert _ids(store, "session store backend")[0] == old  # title match wins on its own
    with store.write() as conn:
        sync = dict(conn.execute("SELECT id, sync_id FROM observations").fetchall())
        relations.insert(
            conn,
            source_id=sync[new],
            target_id=sync[old],
            now="2026-01-02 00:00:00",
            relation="supersedes",
            judgment_status="judged",
        )
    assert _ids(store, "session store backend")[:2] == [new, old]


def test_filters_still_narrow_best_match_results(store: Store) -> None:
    _add(store, "ledger drift", "balances", project="billing")
    mine = _add(store, "ledger notes", "something else", project="acme")
    assert _ids(store, "ledger drift", project="acme") == [mine]
