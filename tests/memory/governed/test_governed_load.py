"""Routing and loading: load order, tiers, budgets that are never exceeded, same pack twice."""

from __future__ import annotations

import pytest
from governed_support import Clock, open_test_store
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.errors import EngramError
from engram.memory.governed import (
    Candidate,
    KnowledgeBase,
    classify,
    commit,
    estimate_tokens,
    load,
    propose,
    resolve_workspace,
    route,
    search,
    set_roles,
    set_rule_variant,
)
from engram.testing import Sandbox

MEMORIES = [
    Candidate("Run ruff before committing", "ruff check and ruff format must pass.", "rule"),
    Candidate("Tests use the sandbox fixture", "Never touch the real HOME in tests.", "convention"),
    Candidate("Flaky FTS tests", "FTS5 rank ties make order flaky; sort by id too.", "gotcha"),
    Candidate("Release checklist", "Bump version, tag, publish the wheel.", "procedure"),
    Candidate("Store is SQLite", "One SQLite file with FTS5 for search.", "decision"),
    Candidate(
        "Review the migrations",
        "Every migration is reviewed by a second person.",
        "rule",
        roles=("reviewer",),
    ),
]


def seed(kb: KnowledgeBase, candidates: list[Candidate] | None = None) -> None:
    commit(kb, propose(kb, candidates or MEMORIES).approval_token, "all")


def test_classify_by_keywords() -> None:
    assert classify("fix the failing search test")[:2] == ("debug", "test")
    assert classify("publish a release") == ("release",)
    assert classify("think about life") == ("general",)


def test_route_lists_rules_first_then_matches_in_load_order(kb: KnowledgeBase) -> None:
    seed(kb)
    result = route(kb, "fix the flaky test")
    ids = [e.id for e in result.entries]
    assert result.kinds[0] == "debug"
    assert ids[:2] == ["review-the-migrations", "run-ruff-before-committing"]
    assert ids.index("flaky-fts-tests") < ids.index("tests-use-the-sandbox-fixture")
    assert "release-checklist" not in ids  # neither a rule nor a match
    assert all(e.type and e.scope and isinstance(e.score, float) for e in result.entries)


def test_roles_filter_routing(kb: KnowledgeBase) -> None:
    seed(kb)
    set_roles(kb, ["backend"])
    assert "review-the-migrations" not in [e.id for e in route(kb, "anything").entries]
    set_roles(kb, ["reviewer"])
    assert "review-the-migrations" in [e.id for e in route(kb, "anything").entries]
    set_roles(kb, [])
    assert "review-the-migrations" in [e.id for e in route(kb, "anything").entries]


def test_rule_variant_picks_the_wording(kb: KnowledgeBase) -> None:
    seed(
        kb,
        [
            Candidate(
                "Run ruff",
                "ruff check and ruff format must pass before every commit.",
                "rule",
                variants=(("short", "ruff must pass."),),
            )
        ],
    )
    assert "before every commit" in load(kb, "lint").text
    set_rule_variant(kb, "short")
    text = load(kb, "lint").text
    assert "ruff must pass." in text and "before every commit" not in text


def test_load_tiers_bodies_cards_and_omitted(kb: KnowledgeBase) -> None:
    seed(kb)
    everything = load(kb, "fix the flaky test", budget_tokens=100_000)
    assert everything.card_ids == () and everything.omitted_ids == ()
    assert set(everything.body_keys) == set(everything.selected_keys)

    small = load(kb, "fix the flaky test", budget_tokens=60)
    assert small.tokens <= 60
    assert small.card_ids or small.omitted_ids
    for memory_id in small.omitted_ids:  # everything shed is fetchable by id
        assert memory_id in load(kb, id=memory_id, budget_tokens=1).text

    cards = load(kb, "fix the flaky test", disclosure="cards", budget_tokens=100_000)
    assert cards.body_keys == () and len(cards.card_ids) == len(everything.selected_keys)


def test_id_fetch_ignores_budget_and_counts_a_fetch(kb: KnowledgeBase) -> None:
    seed(kb)
    pack = load(kb, id="release-checklist", budget_tokens=0)
    assert "Bump version, tag, publish the wheel." in pack.text
    fetches = kb.conn.execute(
        "SELECT fetch_count FROM governed_memories WHERE id = 'release-checklist'"
    ).fetchone()[0]
    assert fetches == 1
    with pytest.raises(EngramError) as err:
        load(kb, id="nope")
    assert err.value.code == "governed.unknown_memory"


def test_bad_load_arguments(kb: KnowledgeBase) -> None:
    for kwargs in ({"budget_tokens": -1}, {"disclosure": "everything"}):
        with pytest.raises(EngramError):
            load(kb, "x", **kwargs)  # type: ignore[arg-type]


def test_same_query_twice_gives_the_same_pack(kb: KnowledgeBase) -> None:
    seed(kb)
    first = load(kb, "fix the flaky test", budget_tokens=80)
    second = load(kb, "fix the flaky test", budget_tokens=80)
    assert first == second


def test_search_returns_id_type_scope_score(kb: KnowledgeBase) -> None:
    seed(kb)
    hits = search(kb, "flaky FTS!! (order")
    assert hits[0].id == "flaky-fts-tests"
    assert hits[0].to_dict().keys() >= {"id", "type", "scope", "score"}
    with pytest.raises(EngramError):
        search(kb, "  ?? ")


WORDS = st.sampled_from(
    [
        "test",
        "fix",
        "flaky",
        "release",
        "sqlite",
        "ruff",
        "search",
        "order",
        "migration",
        "review",
        "the",
        "a",
    ]
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    bodies=st.lists(st.text(min_size=1, max_size=400).filter(str.strip), min_size=1, max_size=8),
    query=st.lists(WORDS, max_size=4).map(" ".join),
    budget=st.integers(min_value=0, max_value=400),
    disclosure=st.sampled_from(["tiered", "cards", "bodies"]),
)
def test_a_pack_never_exceeds_its_budget(
    sandbox: Sandbox,
    clock: Clock,
    bodies: list[str],
    query: str,
    budget: int,
    disclosure: str,
) -> None:
    store = open_test_store(sandbox.data_dir / f"prop{abs(hash((tuple(bodies), query)))}")
    try:
        kb = KnowledgeBase(
            store.connection, resolve_workspace(sandbox.workspace, "demo"), clock=clock
        )
        candidates = [
            Candidate(f"memory {i} {body[:30]}", body, ("rule", "convention", "gotcha")[i % 3])
            for i, body in enumerate(bodies)
        ]
        outcome = commit(kb, propose(kb, candidates).approval_token, "all")
        assert outcome.written or outcome.deferred
        pack = load(kb, query, budget_tokens=budget, disclosure=disclosure)
        assert estimate_tokens(pack.text) == pack.tokens <= budget
        assert load(kb, query, budget_tokens=budget, disclosure=disclosure) == pack
    finally:
        store.close()
