"""Code citations through the real ``engram`` CLI in a real git repository: a memory whose
cited file was renamed shows ``state: stale`` in search and in ``engram review --stale``."""

from __future__ import annotations

import json

from engram.testing import Sandbox
from tests.cli.conftest import Run
from tests.memory.citation_repo import commit, git, make_repo

SHOP = {"ENGRAM_PROJECT": "shop"}


def test_save_refactor_search_and_review_stale(sandbox: Sandbox, engram: Run) -> None:
    repo = make_repo(sandbox.workspace)
    saved = engram("save", "Retry rule", "retries back off in billing/retry.py:backoff()", env=SHOP)
    assert saved.returncode == 0, saved.stderr
    kept = engram(
        "save", "Settings rule", "settings are read by `load_settings` in app/settings.py", env=SHOP
    )
    assert kept.returncode == 0, kept.stderr
    assert "0 memories cite code" in engram("review", "--stale", env=SHOP).stdout

    git(repo, "mv", "billing/retry.py", "billing/backoff.py")
    commit(repo, "rename retry")
    found = engram("search", "rule", env=SHOP)
    assert found.returncode == 0, found.stderr
    assert "stale: billing/retry.py renamed to billing/backoff.py" in found.stdout
    assert "state: stale" in found.stdout
    assert found.stdout.index("Settings rule") < found.stdout.index("Retry rule")

    review = engram("review", "--stale", env=SHOP)
    assert review.returncode == 0, review.stderr
    assert "1 memories cite code that moved or is gone:" in review.stdout
    assert "Retry rule (state: stale)" in review.stdout
    assert "fix: engram update 1 --content" in review.stdout
    assert "fix: engram delete 1" in review.stdout
    data = json.loads(engram("review", "--stale", "--json", env=SHOP).stdout)
    assert [(r["id"], r["reasons"]) for r in data["results"]] == [
        (1, ["billing/retry.py renamed to billing/backoff.py"])
    ]

    fixed = engram(
        "update", "1", "--content", "retries back off in billing/backoff.py:backoff()", env=SHOP
    )
    assert fixed.returncode == 0, fixed.stderr
    assert "0 memories cite code" in engram("review", "--stale", env=SHOP).stdout
    assert "state: stale" not in engram("search", "rule", env=SHOP).stdout


def test_review_without_stale_lists_due_memories(sandbox: Sandbox, engram: Run) -> None:
    make_repo(sandbox.workspace)
    assert engram("save", "Fix", "in app/settings.py", "--type", "bugfix", env=SHOP).returncode == 0
    out = engram("review", env=SHOP)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("0 memories need review")
