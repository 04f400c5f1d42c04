"""delete project, projects consolidate|prune, the reserved inbox, engram setup, engram test:
success, and bad input that is a one-line error and changes nothing."""

from __future__ import annotations

import json

from engram.testing import Sandbox
from tests.cli.conftest import Run
from tests.cli.test_memories import dump
from tests.cli.test_observation_commands import one_line_error, saved


def names(cli: Run) -> dict[str, dict[str, int]]:
    listed = json.loads(cli("projects", "list", "--json").stdout)["projects"]
    return {p["name"]: p for p in listed}


def prompt(sandbox: Sandbox, project: str, text: str) -> None:
    from engram.memory.prompts import save_prompt
    from engram.store.db import Store

    store = Store.open(sandbox.data_dir)
    try:
        save_prompt(store, content=text, project=project)
    finally:
        store.close()


def test_delete_project_soft_then_hard(cli: Run, sandbox: Sandbox) -> None:
    saved(cli, "Doomed", "**What** x", "--project", "old-app")
    saved(cli, "Kept", "**What** y")
    prompt(sandbox, "old-app", "a prompt of the old app")
    done = cli("delete", "project", "old-app")
    assert done.returncode == 0, done.stderr
    assert "1 observations soft-deleted, 1 prompts" in done.stdout
    assert names(cli).get("old-app", {"observations": 0})["observations"] == 0
    hard = cli("delete", "project", "old-app", "--hard", "--json")
    assert json.loads(hard.stdout)["hard"] is True
    assert "old-app" not in names(cli)
    assert names(cli)["workspace"]["observations"] == 1


def test_delete_project_bad_input_changes_nothing(cli: Run, sandbox: Sandbox) -> None:
    saved(cli, "Kept")
    before = dump(sandbox)
    assert "no project named 'ghost'" in one_line_error(cli("delete", "project", "ghost"))
    assert cli("delete", "project").returncode == 2
    assert dump(sandbox) == before


def test_a_legacy_name_can_be_deleted(cli: Run, sandbox: Sandbox) -> None:
    prompt(sandbox, "Users/me/Legacy App", "from an old tool")
    done = cli("delete", "project", "Users/me/Legacy App")
    assert done.returncode == 0, done.stderr
    assert "Users/me/Legacy App" not in names(cli)


def test_consolidate_merges_spelling_variants(cli: Run) -> None:
    saved(cli, "One", "**What** a", "--project", "acme-api")
    saved(cli, "Two", "**What** b", "--project", "acme-api")
    prompt_free = cli("save", "Three", "**What** c", "--project", "acme_api")
    assert prompt_free.returncode == 0
    preview = cli("projects", "consolidate", "--all", "--dry-run")
    assert "'acme_api' -> 'acme-api'" in preview.stdout and "dry run" in preview.stdout
    assert "acme_api" in names(cli)
    done = cli("projects", "consolidate", "--all")
    assert done.returncode == 0 and "moved 1 observations" in done.stdout
    assert "acme_api" not in names(cli) and names(cli)["acme-api"]["observations"] == 3
    assert cli("projects", "consolidate", "--all").stdout.strip() == (
        "no project names to consolidate"
    )


def test_consolidate_asks_per_group(cli: Run, engram: Run, sandbox: Sandbox) -> None:
    saved(cli, "One", "**What** a", "--project", "acme-api")
    saved(cli, "Two", "**What** b", "--project", "acme_api")
    import subprocess

    from tests.cli.conftest import ENGRAM

    declined = subprocess.run(
        [str(ENGRAM), "projects", "consolidate"],
        input="n\n",
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert declined.returncode == 0 and "merge 'acme_api' into" in declined.stdout
    assert "acme_api" in names(cli)


def test_prune_removes_projects_without_observations(cli: Run, sandbox: Sandbox) -> None:
    saved(cli, "Real")
    prompt(sandbox, "empty-app", "only a prompt")
    prompt(sandbox, "/home/me/old", "a path-like name")
    paths = cli("projects", "prune", "--paths-only", "--dry-run")
    assert "would remove '/home/me/old'" in paths.stdout and "empty-app" not in paths.stdout
    assert "/home/me/old" in names(cli)
    done = cli("projects", "prune")
    assert done.returncode == 0
    left = names(cli)
    assert "empty-app" not in left and "/home/me/old" not in left and "workspace" in left
    assert cli("projects", "prune").stdout.strip() == "no projects to prune"


def test_prune_bad_input(cli: Run) -> None:
    assert cli("projects", "prune", "--paths", "x").returncode == 2


def test_inbox_is_never_a_merge_target(cli: Run, sandbox: Sandbox) -> None:
    saved(cli, "Inbox item", "**What** x", "--project", "in-box")
    before = dump(sandbox)
    error = one_line_error(cli("projects", "merge", "--from", "in-box", "--to", "inbox", "--apply"))
    assert "reserved inbox" in error
    assert dump(sandbox) == before


def test_setup_is_link_global(cli: Run, sandbox: Sandbox) -> None:
    listing = cli("setup")
    assert (
        listing.returncode == 0
        and "claude" in listing.stdout
        and "engram setup <agent>" in (listing.stdout)
    )
    done = cli("setup", "gemini")
    assert done.returncode == 0, done.stdout + done.stderr
    settings = json.loads((sandbox.home / ".gemini/settings.json").read_text())
    assert "engram" in settings["mcpServers"]
    assert not (sandbox.workspace / ".gemini").exists()


def test_setup_an_unknown_agent_is_a_one_line_error(cli: Run, sandbox: Sandbox) -> None:
    assert "nope" in one_line_error(cli("setup", "nope"))
    assert not (sandbox.home / ".gemini").exists()


def test_engram_test_runs_in_a_scratch_dir(engram: Run, sandbox: Sandbox) -> None:
    done = engram("test", "--quick", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert [s["suite"] for s in report["suites"]] == ["store", "hooks", "link"]
    assert not (sandbox.data_dir / "engram.db").exists()  # the user's store was never opened
    assert list(sandbox.home.iterdir()) == [] or not any(
        p.name.startswith(".gemini") for p in sandbox.home.iterdir()
    )
    one = engram("test", "mcp")
    assert one.returncode == 0 and one.stdout.startswith("ok   mcp:"), one.stdout


def test_engram_test_unknown_suite(engram: Run) -> None:
    done = engram("test", "everything")
    assert done.returncode == 1 and done.stderr.startswith("error: no self-test suite")
