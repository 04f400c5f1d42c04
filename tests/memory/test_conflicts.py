"""The conflict audit over a real store: list, show, stats and the lexical scan."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.errors import EngramError
from engram.memory.conflict_scan import CAP_WARNING, ScanOptions, scan
from engram.memory.conflicts import conflict_stats, list_conflicts, show_conflict
from engram.memory.relations import compare
from engram.memory.save import save_observation
from engram.store.db import Store

EXAMPLES = itertools.count()
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def put(store: Store, title: str, content: str, project: str = "shop", minutes: int = 0) -> int:
    result = save_observation(
        store,
        title=title,
        content=content,
        project=project,
        type="decision",
        now=T0 + timedelta(minutes=minutes),
        surface_conflicts=False,
    )
    return result.observation.id


def conflicting_store(store: Store) -> dict[str, int]:
    ids = {
        "celery": put(
            store, "Use Celery for background jobs", "Celery runs background jobs.", minutes=1
        ),
        "rq": put(store, "Background jobs now on RQ", "RQ handles background jobs now.", minutes=2),
        "pool": put(
            store, "Database pool size is 10", "Pool size 10 in settings/db.py.", minutes=3
        ),
        "pool2": put(
            store, "Database pool size changed to 25", "Pool went from 10 to 25.", minutes=4
        ),
        "other": put(store, "Frontend uses Tailwind", "Styling with Tailwind classes.", minutes=5),
        "elsewhere": put(
            store, "Use Celery for background jobs", "Same words, other project.", "crm", 6
        ),
    }
    return ids


def test_dry_run_scan_finds_conflicting_pairs_and_changes_nothing(store: Store) -> None:
    conflicting_store(store)
    report = scan(store, ScanOptions(project="shop"))
    assert report.dry_run is True
    assert report.inspected == 5
    assert report.ranked_queries == 5
    assert report.candidates_found == 2
    assert report.inserted == 0
    assert "next_cursor" not in report.to_dict()  # fewer than a page: the walk is over
    assert list_conflicts(store, project="shop").total == 0


def test_applied_scan_inserts_pending_relations_listed_shown_and_counted(store: Store) -> None:
    ids = conflicting_store(store)
    report = scan(store, ScanOptions(project="shop", apply=True))
    assert (report.inserted, report.dry_run, report.capped) == (2, False, False)

    page = list_conflicts(store, project="shop")
    assert page.total == 2
    titles = {
        (row.to_dict()["source_title"], row.to_dict()["target_title"]) for row in page.relations
    }
    assert ("Background jobs now on RQ", "Use Celery for background jobs") in titles
    assert all(row.to_dict()["judgment_status"] == "pending" for row in page.relations)
    assert list_conflicts(store, project="crm").total == 0

    detail = show_conflict(store, page.relations[0].view.relation.id).to_dict()
    assert detail["source_snippet"] and detail["target_snippet"]
    assert detail["source_observation_id"] in ids.values()

    stats = conflict_stats(store, project="shop").to_dict()
    assert stats["by_judgment_status"] == {"pending": 2}
    assert stats["by_relation"] == {"conflicts_with": 2}
    assert (stats["deferred"], stats["dead"]) == (0, 0)

    again = scan(store, ScanOptions(project="shop", apply=True))
    assert (again.candidates_found, again.already_related, again.inserted) == (0, 2, 0)


def test_cap_reached_has_no_cursor_and_a_warning_then_resumes_from_same_cursor(
    store: Store,
) -> None:
    conflicting_store(store)
    capped = scan(store, ScanOptions(project="shop", apply=True, max_insert=1, limit=5))
    data = capped.to_dict()
    assert data["capped"] is True and data["inserted"] == 1
    assert "next_cursor" not in data
    assert data["warning"] == CAP_WARNING
    rerun = scan(store, ScanOptions(project="shop", apply=True, max_insert=10, limit=5))
    assert (rerun.inserted, rerun.already_related, rerun.capped) == (1, 1, False)
    assert rerun.next_cursor is not None


def test_not_conflict_verdicts_hide_from_lists_and_suppress_scans(store: Store) -> None:
    ids = conflicting_store(store)
    compare(store, ids["rq"], ids["celery"], "not_conflict", confidence=0.9, reasoning="fine")
    compare(store, ids["pool2"], ids["pool"], "supersedes", confidence=0.9, reasoning="newer value")
    page = list_conflicts(store, project="shop")
    assert [row.to_dict()["relation"] for row in page.relations] == ["supersedes"]
    assert conflict_stats(store, project="shop").by_judgment_status == {"judged": 1}
    report = scan(store, ScanOptions(project="shop"))
    assert (report.candidates_found, report.already_related) == (0, 2)


def test_list_filters_clamp_and_offset(store: Store) -> None:
    conflicting_store(store)
    scan(store, ScanOptions(project="shop", apply=True))
    assert list_conflicts(store, project="shop", limit=100_000).limit == 500
    assert list_conflicts(store, project="shop", limit=0).limit == 50
    assert len(list_conflicts(store, project="shop", offset=1).relations) == 1
    assert list_conflicts(store, project="shop", status="judged").total == 0
    assert list_conflicts(store, project=None).total == 2
    assert list_conflicts(store, project="shop", since="2999-01-01T00:00:00Z").total == 0
    assert list_conflicts(store, project="shop", since="2000-01-01T00:00:00+02:00").total == 2


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"status": "open"}, "conflicts.bad_status"),
        ({"since": "yesterday"}, "conflicts.bad_since"),
    ],
)
def test_bad_list_filters_are_named_errors(store: Store, kwargs: dict[str, str], code: str) -> None:
    with pytest.raises(EngramError) as caught:
        list_conflicts(store, project="shop", **kwargs)  # type: ignore[arg-type]
    assert caught.value.code == code


@pytest.mark.parametrize(
    "options",
    [
        ScanOptions(project="shop", limit=0),
        ScanOptions(project="shop", limit=101),
        ScanOptions(project="shop", semantic=True, concurrency=21),
        ScanOptions(project="shop", semantic=True, timeout_per_call=601),
        ScanOptions(project="shop", since="not a time"),
    ],
)
def test_out_of_range_scan_options_are_refused_before_scanning(
    store: Store, options: ScanOptions
) -> None:
    conflicting_store(store)
    with pytest.raises(EngramError) as caught:
        scan(store, options)
    assert caught.value.code in {"conflicts.bad_option", "conflicts.bad_since"}
    assert list_conflicts(store, project=None).total == 0


def test_unknown_relation_is_not_found(store: Store) -> None:
    for bad in (1, 2**70):
        with pytest.raises(EngramError) as caught:
            show_conflict(store, bad)
        assert caught.value.code == "conflicts.not_found"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    titles=st.lists(
        st.sampled_from(
            [
                "Use Redis cache",
                "Redis cache TTL",
                "Cache layer is Memcached",
                "Deploy on Friday",
                "No deploys on Friday",
                "Login test flaky",
                "pool size 10",
                "pool size 25",
            ]
        ),
        min_size=0,
        max_size=30,
    ),
    deleted=st.sets(st.integers(min_value=0, max_value=29), max_size=5),
    page=st.integers(min_value=1, max_value=7),
    apply=st.booleans(),
)
def test_resuming_from_next_cursor_visits_every_memory_exactly_once(
    store: Store, titles: list[str], deleted: set[int], page: int, apply: bool
) -> None:
    from engram.memory.observation import delete_observation

    project = f"walk-{next(EXAMPLES)}"
    ids = [
        put(store, title, f"{title} body {i}", project, minutes=i) for i, title in enumerate(titles)
    ]
    for index in deleted:
        if index < len(ids):
            delete_observation(store, ids[index], expected_project=project)
    live = sorted(
        {obs_id for i, obs_id in enumerate(ids) if i not in deleted}
        - {ids[i] for i in deleted if i < len(ids)}
    )
    seen: list[int] = []
    cursor: int | None = None
    for _ in range(len(ids) + 2):
        report = scan(store, ScanOptions(project=project, limit=page, cursor=cursor, apply=apply))
        start = cursor or 0
        seen.extend(report.inspected_ids)
        assert report.inspected == len(report.inspected_ids) <= page
        if report.next_cursor is None:
            break
        assert report.next_cursor > start
        cursor = report.next_cursor
    assert sorted(seen) == live
    assert len(seen) == len(set(seen))
