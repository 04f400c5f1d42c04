"""The semantic scan with stand-ins for the agent CLIs: real subprocesses on PATH that answer
the way ``claude -p --output-format json`` and ``opencode run --format json`` do, or hang, or
answer garbage."""

from __future__ import annotations

import json
import os
import stat
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engram.errors import EngramError
from engram.memory.conflict_judge import Judge, JudgeError, agent_from_env, parse_verdict
from engram.memory.conflict_scan import ScanOptions, scan
from engram.memory.conflicts import conflict_stats, list_conflicts
from engram.memory.save import save_observation
from engram.store.db import Store

STANDIN = """#!{python}
import json, os, sys, time
log = os.environ["STANDIN_LOG"]
with open(log, "a") as f:
    f.write(" ".join(sys.argv[1:2]) + "\\n")
mode = os.environ.get("STANDIN_MODE", "answer")
prompt = sys.argv[2] if sys.argv[1] == "-p" else sys.argv[-1]
verdict = "not_conflict" if "Tailwind" in prompt else "conflicts_with"
answer = json.dumps({{"relation": verdict, "confidence": 0.8, "reasoning": "stand-in"}})
if mode == "hang":
    time.sleep(60)
if mode == "garbage":
    print("I think they might conflict, hard to say.")
    sys.exit(0)
if mode == "fail":
    print("rate limited", file=sys.stderr)
    sys.exit(3)
if os.path.basename(sys.argv[0]) == "claude":
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                       "result": "Verdict:\\n" + answer, "session_id": "s1"}}))
else:
    for event in (
        {{"type": "step_start", "sessionID": "ses_1", "part": {{"type": "step-start"}}}},
        {{"type": "text", "sessionID": "ses_1", "part": {{"type": "text", "text": answer}}}},
        {{"type": "step_finish", "sessionID": "ses_1", "part": {{"reason": "stop"}}}},
    ):
        print(json.dumps(event))
"""

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``claude`` and ``opencode`` stand-ins first on PATH; returns their call log."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("claude", "opencode"):
        script = bin_dir / name
        script.write_text(STANDIN.format(python=sys.executable))
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "calls.log"
    log.write_text("")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STANDIN_LOG", str(log))
    return log


def calls(log: Path) -> int:
    return len(log.read_text().splitlines())


def seed(store: Store) -> None:
    for minutes, (title, content) in enumerate(
        [
            ("Use Celery for background jobs", "Celery runs background jobs."),
            ("Frontend styling uses Sass", "Sass modules for frontend styling."),
            ("Background jobs now on RQ", "RQ handles background jobs now."),
            ("Frontend styling now Tailwind", "Tailwind for frontend styling."),
        ]
    ):
        save_observation(
            store,
            title=title,
            content=content,
            project="shop",
            type="decision",
            now=T0 + timedelta(minutes=minutes),
            surface_conflicts=False,
        )


@pytest.mark.parametrize("agent", ["claude", "opencode"])
def test_semantic_dry_run_judges_without_persisting(store: Store, agents: Path, agent: str) -> None:
    seed(store)
    report = scan(store, ScanOptions(project="shop", semantic=True), judge=Judge(agent))
    assert (report.semantic_judged, report.semantic_skipped, report.semantic_errors) == (1, 1, 0)
    assert report.inserted == 0 and report.dry_run
    assert calls(agents) == 2
    assert list_conflicts(store, project=None).total == 0


def test_semantic_apply_persists_every_valid_verdict(store: Store, agents: Path) -> None:
    seed(store)
    report = scan(
        store, ScanOptions(project="shop", semantic=True, apply=True), judge=Judge("claude")
    )
    # Both verdicts were persisted, so both count as judged (not_conflict included).
    assert (report.semantic_judged, report.semantic_skipped, report.inserted) == (2, 0, 2)
    stats = conflict_stats(store, project="shop")
    assert stats.by_relation == {"conflicts_with": 1}  # not_conflict persisted but not listed
    assert stats.by_judgment_status == {"judged": 1}
    again = scan(store, ScanOptions(project="shop", semantic=True), judge=Judge("claude"))
    assert (again.candidates_found, again.already_related) == (0, 2)
    assert calls(agents) == 2  # nothing left to judge: no new call


@pytest.mark.parametrize("mode", ["garbage", "fail", "hang"])
def test_a_broken_agent_counts_as_errors_and_never_aborts(
    store: Store, agents: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store)
    monkeypatch.setenv("STANDIN_MODE", mode)
    options = ScanOptions(project="shop", semantic=True, apply=True, timeout_per_call=1)
    report = scan(store, options, judge=Judge("claude"))
    assert report.semantic_errors == 2
    assert (report.semantic_judged, report.inserted) == (0, 0)
    assert list_conflicts(store, project=None).total == 0


def test_missing_agent_binary_counts_as_errors(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seed(store)
    monkeypatch.setenv("PATH", str(tmp_path))
    report = scan(store, ScanOptions(project="shop", semantic=True), judge=Judge("opencode"))
    assert report.semantic_errors == 2


def test_max_semantic_caps_calls_and_withholds_the_cursor(store: Store, agents: Path) -> None:
    seed(store)
    options = ScanOptions(project="shop", semantic=True, max_semantic=1, limit=4)
    report = scan(store, options, judge=Judge("claude"))
    assert calls(agents) == 1
    assert report.capped and report.next_cursor is None
    assert "warning" in report.to_dict()


def test_no_llm_call_without_semantic_even_with_a_judge(store: Store, agents: Path) -> None:
    seed(store)
    scan(store, ScanOptions(project="shop", apply=True), judge=Judge("claude"))
    assert calls(agents) == 0


def test_declined_confirmation_makes_no_call(store: Store, agents: Path) -> None:
    seed(store)
    asked: list[tuple[int, int]] = []

    def decline(count: int, tokens: int) -> bool:
        asked.append((count, tokens))
        return False

    with pytest.raises(EngramError) as caught:
        scan(
            store,
            ScanOptions(project="shop", semantic=True),
            judge=Judge("claude"),
            confirm=decline,
        )
    assert caught.value.code == "conflicts.not_confirmed"
    assert asked and asked[0][0] == 2 and asked[0][1] > 0
    assert calls(agents) == 0


def test_semantic_scan_without_a_judge_is_refused(store: Store) -> None:
    with pytest.raises(EngramError) as caught:
        scan(store, ScanOptions(project="shop", semantic=True))
    assert caught.value.code == "conflicts.judge_required"


@pytest.mark.parametrize("value", ["", "gpt", "Claude"])
def test_agent_must_be_claude_or_opencode(value: str) -> None:
    with pytest.raises(EngramError) as caught:
        agent_from_env({"ENGRAM_AGENT_CLI": value})
    assert caught.value.code == "conflicts.agent_not_set"
    assert agent_from_env({"ENGRAM_AGENT_CLI": "opencode"}) == "opencode"


@pytest.mark.parametrize(
    "text",
    [
        "no json here",
        '{"relation": "maybe"}',
        '{"relation": "supersedes", "confidence": 7}',
        '{"relation": "supersedes", "confidence": "high"}',
    ],
)
def test_garbage_answers_are_judge_errors(text: str) -> None:
    with pytest.raises(JudgeError):
        parse_verdict(text)


def test_verdict_is_found_inside_prose() -> None:
    verdict = parse_verdict('Sure. {"note": 1} Here: {"relation": "supersedes", "confidence": 1}')
    assert (verdict.relation, verdict.confidence) == ("supersedes", 1.0)
    assert json.dumps(verdict.reasoning)
