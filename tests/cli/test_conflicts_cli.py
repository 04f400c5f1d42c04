"""``engram conflicts`` end to end: the real console script on a real store."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from engram.testing import Sandbox
from tests.cli.conftest import Run

# Pairs whose titles share too little for a save to flag them, but whose bodies say the
# same thing differently: only the scan finds them.
MEMORIES = [
    ("Sessions stored in PostgreSQL", "User sessions live in the sessions table of PostgreSQL."),
    ("Gunicorn runs four workers", "The API server gunicorn config starts four sync workers."),
    (
        "Move user sessions to Redis cluster for speed",
        "User sessions live in Redis now instead of the PostgreSQL sessions table.",
    ),
    ("Scale API to nine processes", "The gunicorn config of the API server starts nine workers."),
]


def seed(engram: Run) -> None:
    for title, content in MEMORIES:
        done = engram("save", title, content, "--project", "shop", "--type", "decision")
        assert done.returncode == 0, done.stderr


def test_scan_list_show_stats_journey(engram: Run) -> None:
    seed(engram)
    dry = engram("conflicts", "scan", "--project", "shop")
    assert dry.returncode == 0, dry.stderr
    assert "candidates_found: 2" in " ".join(dry.stdout.split())
    assert "dry_run: True" in " ".join(dry.stdout.split())

    applied = engram("conflicts", "scan", "--project", "shop", "--apply", "--json")
    report = json.loads(applied.stdout)
    assert (report["inserted"], report["dry_run"], report["capped"]) == (2, False, False)
    assert report["semantic_errors"] == 0

    listed = engram("conflicts", "list", "--project", "shop")
    assert listed.returncode == 0
    assert "showing 1-2 of 2" in listed.stdout
    lines = [line for line in listed.stdout.splitlines() if line.startswith("judgment_status:")]
    assert len(lines) == 2
    # Label-colon columns: every value starts in the same column within a block.
    block = listed.stdout.split("\n\n")[1].splitlines()
    assert len({line.index(line.split(":", 1)[1].strip()) for line in block}) == 1

    rows = json.loads(engram("conflicts", "list", "--project", "shop", "--json").stdout)
    relation_id = rows["relations"][0]["id"]
    shown = engram("conflicts", "show", str(relation_id))
    assert shown.returncode == 0
    assert "source_title:" in shown.stdout and "target_title:" in shown.stdout

    stats = engram("conflicts", "stats", "--project", "shop")
    assert stats.returncode == 0
    flat = " ".join(stats.stdout.split())
    assert "pending: 2" in flat and "By relation type" in stats.stdout
    assert "deferred: 0" in flat and "dead: 0" in flat


def test_dry_run_with_apply_is_refused_before_the_store_is_opened(
    engram: Run, sandbox: Sandbox
) -> None:
    for order in (("--dry-run", "--apply"), ("--apply", "--dry-run")):
        done = engram("conflicts", "scan", *order)
        assert done.returncode == 2
        assert "mutually exclusive" in done.stderr
    assert not sandbox.data_dir.exists()


def test_cap_prints_a_warning_and_no_cursor(engram: Run) -> None:
    seed(engram)
    done = engram("conflicts", "scan", "--project", "shop", "--apply", "--max-insert", "1")
    assert done.returncode == 0
    assert "WARNING: cap reached" in done.stderr
    assert "next_cursor" not in done.stdout


def test_unknown_relation_and_bad_filters_exit_non_zero_with_one_line(engram: Run) -> None:
    seed(engram)
    before = engram("conflicts", "stats", "--project", "shop", "--json").stdout
    cases = [
        (("conflicts", "show", "999"), 1, "relation 999 not found"),
        (("conflicts", "show", "abc"), 2, ""),
        (("conflicts", "list", "--project", "shop", "--status", "open"), 1, "unknown judgment"),
        (("conflicts", "list", "--project", "shop", "--since", "last week"), 1, "RFC 3339"),
        (("conflicts", "scan", "--project", "shop", "--limit", "101"), 2, ""),
        (("conflicts", "scan", "--project", "shop", "--concurrency", "21"), 2, ""),
        (("conflicts", "scan", "--project", "nope"), 1, "nope"),
    ]
    for args, code, text in cases:
        done = engram(*args)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        if code == 1:
            assert len(done.stderr.strip().splitlines()) == 1 and text in done.stderr
    assert engram("conflicts", "stats", "--project", "shop", "--json").stdout == before


def test_semantic_needs_an_agent_and_a_yes_off_a_terminal(engram: Run, tmp_path: Path) -> None:
    seed(engram)
    missing = engram("conflicts", "scan", "--project", "shop", "--semantic")
    assert missing.returncode == 1
    assert "ENGRAM_AGENT_CLI" in missing.stderr

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    agent = bin_dir / "claude"
    agent.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"open({str(log)!r}, 'a').write('call\\n')\n"
        "answer = json.dumps({'relation': 'supersedes', 'confidence': 0.9, 'reasoning': 'x'})\n"
        "print(json.dumps({'type': 'result', 'is_error': False, 'result': answer}))\n"
    )
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR)
    env = {"ENGRAM_AGENT_CLI": "claude", "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}

    unconfirmed = engram("conflicts", "scan", "--project", "shop", "--semantic", env=env)
    assert unconfirmed.returncode == 1
    assert "--yes" in unconfirmed.stderr
    assert not log.exists()

    done = engram(
        "conflicts",
        "scan",
        "--project",
        "shop",
        "--semantic",
        "--apply",
        "--yes",
        "--json",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["semantic_judged"], report["inserted"]) == (2, 2)
    assert len(log.read_text().splitlines()) == 2
    stats = json.loads(engram("conflicts", "stats", "--project", "shop", "--json").stdout)
    assert stats["by_relation"] == {"supersedes": 2}
