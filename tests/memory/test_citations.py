"""Code citations in the memory layer: found at save, checked on read, shown, renewed by use."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from engram.memory.citations.checking import code_status
from engram.memory.clock import utc_now
from engram.memory.context import build_context
from engram.memory.observation import fetch_for_agent, update_observation
from engram.memory.review import list_due
from engram.memory.save import save_observation
from engram.memory.search import search
from engram.memory.stale import list_stale
from engram.store import citations
from engram.store.db import Store
from engram.testing import Sandbox
from tests.memory.citation_repo import commit, git, make_repo


@pytest.fixture
def repo(sandbox: Sandbox) -> Path:
    """The sandbox workspace as a committed repository (saves run from it)."""
    return make_repo(sandbox.workspace)


def cited(store: Store, obs_id: int) -> list[tuple[str, int | None, str | None]]:
    with store.locked() as conn:
        return [(c.path, c.line, c.symbol) for c in citations.for_observations(conn, [obs_id])]


def save(store: Store, content: str, title: str = "note", **kw: str) -> int:
    return save_observation(
        store, title=title, content=content, project="shop", **kw
    ).observation.id


def test_paths_lines_symbols_and_backticks_are_recorded(repo: Path, store: Store) -> None:
    oid = save(
        store,
        "the retry lives in billing/retry.py:backoff() with `RetryPolicy`; settings at "
        "app/settings.py#L2 and web/cart.ts:1, `Enqueue` in svc/queue.go",
    )
    assert cited(store, oid) == [
        ("billing/retry.py", None, "backoff"),
        ("app/settings.py", 2, None),
        ("web/cart.ts", 1, None),
        ("svc/queue.go", None, None),
        ("billing/retry.py", None, "RetryPolicy"),
        ("svc/queue.go", None, "Enqueue"),
    ]
    with store.locked() as conn:
        row = citations.for_observations(conn, [oid])[0]
    assert row.repo_root == str(repo)
    assert row.commit_id == git(repo, "rev-parse", "HEAD").strip()
    assert row.blob_id == git(repo, "hash-object", "billing/retry.py").strip()


def test_urls_absolute_outside_missing_and_prose_are_not_citations(
    repo: Path, store: Store
) -> None:
    (repo.parent / "outside.py").write_text("x = 1\n")
    oid = save(
        store,
        "see https://example.com/billing/retry.py and /etc/hosts and ../outside.py, "
        "not src/missing.py nor e.g. v1.2 or `backoff` (no cited file defines it here)",
    )
    assert cited(store, oid) == []
    assert code_status(store, [oid]) == {}


def test_redaction_runs_before_finding(repo: Path, store: Store) -> None:
    oid = save(store, "public app/settings.py <private>billing/retry.py</private>")
    assert cited(store, oid) == [("app/settings.py", None, None)]


def test_a_symbol_the_file_does_not_define_cites_only_the_file(repo: Path, store: Store) -> None:
    oid = save(store, "billing/retry.py:nowhere and `load_settings` (not in a cited file)")
    assert cited(store, oid) == [("billing/retry.py", None, None)]


def test_outside_a_repository_nothing_is_cited(sandbox: Sandbox, store: Store) -> None:
    (sandbox.workspace / "a.py").write_text("def f(): pass\n")
    assert cited(store, save(store, "a.py:f")) == []


def test_rename_deleted_file_deleted_symbol_and_changed_file(repo: Path, store: Store) -> None:
    moved = save(store, "retry is billing/retry.py:backoff")
    gone = save(store, "settings: app/settings.py")
    symbol = save(store, "cart adds with `addItem` in web/cart.ts")
    changed = save(store, "queue: `Enqueue` in svc/queue.go")
    plain = save(store, "no code here at all")
    git(repo, "mv", "billing/retry.py", "billing/backoff.py")
    git(repo, "rm", "-q", "app/settings.py")
    deleted_in = commit(repo, "refactor")
    (repo / "web/cart.ts").write_text("export const MAX_ITEMS = 50;\n")
    (repo / "svc/queue.go").write_text("package svc\n\n// Enqueue adds.\nfunc Enqueue() {}\n")
    found = code_status(store, [moved, gone, symbol, changed, plain])
    assert found[moved].state == "stale"
    assert found[moved].reasons == ("billing/retry.py renamed to billing/backoff.py",)
    assert found[gone].reasons == (f"app/settings.py deleted in {deleted_in}",)
    assert found[symbol].reasons == ("addItem() no longer in web/cart.ts",)
    assert (found[changed].state, found[changed].reasons) == (
        "changed",
        ("svc/queue.go changed since saved",),
    )
    assert plain not in found
    # Warm: the same answer from the cache (and a deletion not committed yet is named so).
    assert code_status(store, [moved, gone, symbol, changed]) == found
    (repo / "svc/queue.go").unlink()
    assert code_status(store, [changed])[changed].reasons == (
        "svc/queue.go deleted (not committed yet)",
    )


def test_stale_results_rank_below_current_ones_and_say_why(repo: Path, store: Store) -> None:
    stale = save(store, "retry backoff lives in billing/retry.py", title="retry backoff")
    current = save(store, "retry backoff is in app/settings.py too", title="retry backoff")
    assert [h.observation.id for h in search(store, "retry backoff", project="shop")] == [
        current,
        stale,
    ]
    git(repo, "rm", "-q", "billing/retry.py")
    sha = commit(repo, "drop retry")
    hits = search(store, "retry backoff", project="shop")
    assert [h.observation.id for h in hits] == [current, stale]
    assert hits[1].state == "stale"
    assert hits[1].annotations[0] == f"stale: billing/retry.py deleted in {sha}"
    assert hits[1].to_dict()["code"]["state"] == "stale"
    assert hits[0].state == "active" and hits[0].to_dict()["code"]["state"] == "current"


def test_context_lists_stale_memories_apart_and_leaves_them_out_when_full(
    repo: Path, store: Store
) -> None:
    stale = save(store, "retry in billing/retry.py:backoff", title="Retry rule")
    save(store, "settings in app/settings.py", title="Settings rule")
    (repo / "billing/retry.py").write_text("MAX_TRIES = 5\n")
    (repo / "app/settings.py").write_text("def load_settings():\n    return {'a': 1}\n")
    result = build_context(store, project="shop", fenced=True)
    main, _, tail = result.text.partition("### Stale Observations")
    assert "Retry rule" not in main and "Settings rule" in main
    assert "(app/settings.py changed since saved)" in main
    assert f"(#{stale}) — stale: backoff() no longer in billing/retry.py" in tail
    assert result.stale == 1
    small = build_context(store, project="shop", max_bytes=len(main.encode()) + 10)
    assert "Retry rule" not in small.text


def test_update_and_topic_resave_re_record_citations(repo: Path, store: Store) -> None:
    oid = save(store, "retry in billing/retry.py", topic_key="arch/retry")
    git(repo, "mv", "billing/retry.py", "billing/backoff.py")
    commit(repo, "rename")
    assert code_status(store, [oid])[oid].stale
    again = save(store, "retry in billing/backoff.py", topic_key="arch/retry")
    assert again == oid
    assert code_status(store, [oid])[oid].state == "current"
    update_observation(store, oid, expected_project="shop", content="now in app/settings.py")
    assert cited(store, oid) == [("app/settings.py", None, None)]


def test_fetching_renews_and_an_unused_stale_memory_needs_review(
    repo: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    then = utc_now() - timedelta(days=40)
    oid = save_observation(
        store, title="Retry", content="billing/retry.py", project="shop", type="bugfix", now=then
    ).observation.id
    git(repo, "rm", "-q", "billing/retry.py")
    commit(repo, "drop")
    item = list_stale(store, project="shop")[0]
    assert (item.observation.id, item.state) == (oid, "needs_review")  # unused 40 days > 30
    assert [i.observation.id for i in list_due(store, project="shop")] == [oid]  # before its date
    monkeypatch.setenv("ENGRAM_STALE_REVIEW_DAYS", "60")
    assert list_stale(store, project="shop")[0].state == "stale"
    monkeypatch.delenv("ENGRAM_STALE_REVIEW_DAYS")
    before = item.observation.review_after
    fetched = fetch_for_agent(store, oid, project="shop")
    assert fetched.state == "stale"  # used just now: within the grace time again
    assert fetched.observation.review_after is not None
    assert before is not None and fetched.observation.review_after > before
    assert "fixes" in list_stale(store, project="shop")[0].to_dict()


def test_checking_can_be_turned_off(
    repo: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    oid = save(store, "retry in billing/retry.py")
    git(repo, "rm", "-q", "billing/retry.py")
    monkeypatch.setenv("ENGRAM_CODE_CITATIONS", "record")
    assert code_status(store, [oid]) == {}
    assert search(store, "retry", project="shop")[0].state == "active"
    monkeypatch.setenv("ENGRAM_CODE_CITATIONS", "off")
    assert cited(store, save(store, "other app/settings.py")) == []


def test_a_repository_not_on_this_machine_leaves_memories_unchecked(
    repo: Path, store: Store, sandbox: Sandbox
) -> None:
    oid = save(store, "retry in billing/retry.py")
    repo.rename(sandbox.root / "moved")
    assert code_status(store, [oid]) == {}


def test_a_staged_rename_is_followed_before_it_is_committed(repo: Path, store: Store) -> None:
    oid = save(store, "settings: app/settings.py:load_settings")
    git(repo, "mv", "app/settings.py", "app/config.py")
    assert code_status(store, [oid])[oid].reasons == ("app/settings.py renamed to app/config.py",)


def test_a_repository_cannot_smuggle_an_option_into_git(
    repo: Path, store: Store, sandbox: Sandbox
) -> None:
    planted = sandbox.root / "planted"
    (repo / ".git" / "HEAD").write_text(f"--output={planted}\n")
    oid = save(store, "settings: app/settings.py")
    with store.locked() as conn:
        assert citations.for_observations(conn, [oid])[0].commit_id == ""
    (repo / "app/settings.py").unlink()
    assert code_status(store, [oid])[oid].state == "stale"
    assert not planted.exists()


def test_the_tui_pages_carry_the_code_status(repo: Path, store: Store) -> None:
    from engram.memory.browse import observation_detail, search_page

    oid = save(store, "retry in billing/retry.py:backoff", title="Retry rule")
    git(repo, "mv", "billing/retry.py", "billing/backoff.py")
    commit(repo, "rename")
    note = "stale: billing/retry.py renamed to billing/backoff.py"
    assert search_page(store, "retry", project="shop").items[0].annotations == (note,)
    assert observation_detail(store, oid).annotations == (note,)


def test_engram_load_by_journal_id_renews_and_labels(
    repo: Path, store: Store, sandbox: Sandbox
) -> None:
    from engram.memory.governed import load, open_knowledge_base

    then = utc_now() - timedelta(days=50)
    oid = save_observation(
        store, title="Retry", content="billing/retry.py", project="shop", type="bugfix", now=then
    ).observation.id
    before = store.connection.execute(
        "SELECT review_after FROM observations WHERE id = ?", (oid,)
    ).fetchone()[0]
    git(repo, "rm", "-q", "billing/retry.py")
    sha = commit(repo, "drop")
    with open_knowledge_base(sandbox.workspace, project="shop") as kb:
        pack = load(kb, id=f"#{oid}")
    assert f"stale: billing/retry.py deleted in {sha}" in pack.text
    after = store.connection.execute(
        "SELECT review_after FROM observations WHERE id = ?", (oid,)
    ).fetchone()[0]
    assert after > before
    from engram.errors import EngramError

    with (
        open_knowledge_base(sandbox.workspace, project="other") as kb,
        pytest.raises(EngramError, match="no memory"),
    ):
        load(kb, id=f"#{oid}")  # another project's journal is not reachable by id


def test_paths_from_a_subfolder_and_ambiguous_backticks(
    repo: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "billing/other.py").write_text("def backoff(n):\n    return n\n")
    monkeypatch.chdir(repo / "billing")
    oid = save(store, "retry.py and other.py both hold `backoff`; see README.md `demo`")
    assert cited(store, oid) == [
        ("billing/retry.py", None, None),
        ("billing/other.py", None, None),
        ("README.md", None, None),
    ]


ENDLESS = """
import sys
from engram.memory.citations.finding import find_citations
from engram.memory.git_repo import find_git_repo
repo = find_git_repo(sys.argv[1])
find_citations(repo, "a." * 60000 + " " + "-a" * 60000 + " " + "x@" * 60000, "now")
"""


def test_long_path_like_runs_do_not_stall_a_save(repo: Path) -> None:
    """A memory of one long dotted word was quadratic in the URL/e-mail masks (minutes at
    100 KB); it must finish like any other save (the child is killed after 60 s)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", ENDLESS, str(repo)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
