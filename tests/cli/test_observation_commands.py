"""show, list, pin, unpin, update, prompts search|recent, save -, --type choices, timeline --all,
doctor --project: success, and bad input that is a one-line error and changes nothing."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from engram.memory.checks import TYPES
from engram.testing import Sandbox
from tests.cli.conftest import ENGRAM, Run
from tests.cli.test_memories import dump


def saved(cli: Run, title: str, content: str = "**What** it", *args: str) -> int:
    done = cli("save", title, content, "--json", *args)
    assert done.returncode == 0, done.stderr
    return int(json.loads(done.stdout)["observation"]["id"])


def one_line_error(done: subprocess.CompletedProcess[str], code: int = 1) -> str:
    assert done.returncode == code, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_show_prints_one_observation_in_full(cli: Run) -> None:
    obs = saved(cli, "Rate limit login", "**What** 5 tries a minute on /login")
    done = cli("show", str(obs))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"#{obs} [manual] Rate limit login")
    assert "5 tries a minute on /login" in done.stdout
    data: dict[str, Any] = json.loads(cli("show", str(obs), "--json").stdout)
    assert data["id"] == obs and data["title"] == "Rate limit login"


def test_show_an_unknown_id_is_a_one_line_error(cli: Run) -> None:
    assert "does not exist" in one_line_error(cli("show", "999"))
    assert cli("show", "abc").returncode == 2  # not a number: usage


def test_list_filters_by_type_and_project(cli: Run, sandbox: Sandbox) -> None:
    saved(cli, "Chose Postgres", "**What** db", "--type", "decision")
    saved(cli, "Fixed the login loop", "**What** bug", "--type", "bugfix")
    saved(cli, "Elsewhere", "**What** other", "--project", "other-app")
    mine = cli("list")
    assert "Chose Postgres" in mine.stdout and "Fixed the login loop" in mine.stdout
    assert "Elsewhere" not in mine.stdout
    only = json.loads(cli("list", "--type", "bugfix", "--json").stdout)
    assert [o["title"] for o in only] == ["Fixed the login loop"]
    everywhere = cli("list", "--all").stdout
    assert "Elsewhere (other-app)" in everywhere
    assert cli("list", "--limit", "1", "--json").stdout.count('"id"') == 1


def test_list_bad_input(cli: Run) -> None:
    done = cli("list", "--type", "nonsense")
    assert done.returncode == 2 and "nonsense" in done.stderr
    assert cli("list", "--all", "--project", "x").returncode == 2
    assert "unknown project" in one_line_error(cli("list", "--project", "never-seen"))


def test_pin_and_unpin(cli: Run) -> None:
    obs = saved(cli, "Pin me")
    assert cli("pin", str(obs)).stdout.strip() == f"observation #{obs} pinned"
    assert json.loads(cli("show", str(obs), "--json").stdout)["pinned"] is True
    assert cli("list").stdout.startswith(f"*#{obs}")
    assert cli("unpin", str(obs)).stdout.strip() == f"observation #{obs} unpinned"
    assert json.loads(cli("show", str(obs), "--json").stdout)["pinned"] is False


def test_pin_an_unknown_id_changes_nothing(cli: Run, sandbox: Sandbox) -> None:
    saved(cli, "Keep")
    before = dump(sandbox)
    one_line_error(cli("pin", "999"))
    one_line_error(cli("unpin", "999"))
    assert dump(sandbox) == before


def test_update_fields_and_find_replace(cli: Run) -> None:
    obs = saved(cli, "Old title", "**What** uses port 8080")
    done = cli("update", str(obs), "--title", "New title", "--type", "config")
    assert done.returncode == 0 and f"#{obs} updated: New title" in done.stdout
    cli("update", str(obs), "--find", "8080", "--replace", "9090")
    data = json.loads(cli("show", str(obs), "--json").stdout)
    assert data["title"] == "New title" and data["type"] == "config"
    assert "9090" in data["content"] and "8080" not in data["content"]


def test_update_bad_input_changes_nothing(cli: Run, sandbox: Sandbox) -> None:
    obs = saved(cli, "Mine", "**What** x")
    other = saved(cli, "Theirs", "**What** y", "--project", "other-app")
    before = dump(sandbox)
    assert cli("update", str(obs)).returncode == 2  # nothing to change
    assert cli("update", str(obs), "--find", "x").returncode == 2  # --find without --replace
    assert cli("update", str(obs), "--type", "bogus").returncode == 2
    assert "other-app" in one_line_error(cli("update", str(other), "--title", "Stolen"))
    one_line_error(cli("update", "999", "--title", "x"))
    assert dump(sandbox) == before


def test_save_reads_content_from_stdin(sandbox: Sandbox, engram: Run) -> None:
    done = subprocess.run(
        [str(ENGRAM), "save", "Piped", "-"],
        input="**What** a long\nmulti-line note\n",
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(engram("list", "--json").stdout)[0]
    assert shown["content"] == "**What** a long\nmulti-line note"
    empty = subprocess.run(
        [str(ENGRAM), "save", "Empty", "-"],
        input="",
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert "stdin was empty" in one_line_error(empty)
    assert len(json.loads(engram("list", "--json").stdout)) == 1


def test_save_type_is_a_choice_and_help_lists_every_type(cli: Run, sandbox: Sandbox) -> None:
    saved(cli, "First")
    before = dump(sandbox)
    done = cli("save", "T", "C", "--type", "notatype")
    assert done.returncode == 2 and "notatype" in done.stderr
    assert dump(sandbox) == before
    text = " ".join(cli("save", "--help").stdout.split())
    assert all(t in text for t in TYPES) and "default manual" in text


def test_the_cli_offers_the_memory_layers_types() -> None:
    from engram.cli import observations
    from engram.memory import checks

    assert observations.TYPES == checks.TYPES and observations.SCOPES == checks.SCOPES
    assert observations.DEFAULT_TYPE == checks.DEFAULT_TYPE


def test_prompts_recent_and_search(cli: Run, sandbox: Sandbox) -> None:
    from engram.memory.prompts import save_prompt
    from engram.store.db import Store

    store = Store.open(sandbox.data_dir)
    try:
        save_prompt(store, content="add rate limiting to login", project="workspace")
        save_prompt(store, content="refactor the billing module", project="workspace")
    finally:
        store.close()
    recent = cli("prompts", "recent")
    assert recent.returncode == 0 and "billing" in recent.stdout and "login" in recent.stdout
    found = json.loads(cli("prompts", "search", "login", "--json").stdout)
    assert [p["content"] for p in found] == ["add rate limiting to login"]
    assert cli("prompts", "search", "nothinglikethis").stdout.strip() == "No prompts."


def test_prompts_bad_input(cli: Run) -> None:
    assert cli("prompts", "search", "x", "--limit", "0").returncode == 2
    one_line_error(cli("prompts", "search", "   "))
    assert "unknown project" in one_line_error(cli("prompts", "recent", "--project", "nowhere"))


def test_timeline_all(cli: Run) -> None:
    obs = saved(cli, "Centre")
    done = cli("timeline", str(obs), "--all")
    assert done.returncode == 0 and "Centre" in done.stdout
    assert cli("timeline", str(obs), "--all", "--project", "workspace").returncode == 2


def test_doctor_project(cli: Run) -> None:
    saved(cli, "Something")
    done = cli("doctor", "--project", "workspace", "--check", "store.project")
    assert "store.project: project workspace: 1 observations" in done.stdout, done.stdout
    bad = one_line_error(cli("doctor", "--project", "nowhere"))
    assert "--all" not in bad and "engram projects list" in bad
