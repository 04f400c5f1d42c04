"""The hook path stays light: no typer, click, pydantic, jinja2 or MCP SDK on ``engram hook``."""

from __future__ import annotations

import json
import subprocess
import sys

from engram.testing import Sandbox

HEAVY = ("typer", "click", "pydantic", "mcp", "jinja2", "rich", "tomlkit", "pluggy")

# A child that runs the real console-script entry, then reports every module it imported.
CHILD = """
import io, json, sys
from engram.cli.entry import main
sys.stdout = io.StringIO()
main(["hook", "claude"])
sys.__stdout__.write(json.dumps(sorted(sys.modules)))
"""


def test_session_start_imports_nothing_heavy(sandbox: Sandbox) -> None:
    payload = json.dumps(
        {
            "hook_event_name": "SessionStart",
            "source": "startup",
            "session_id": "s1",
            "cwd": str(sandbox.workspace),
        }
    )
    result = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=payload,
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    modules = json.loads(result.stdout)
    assert {"engram.hooks.respond", "engram.memory.context", "engram.store.db"} <= set(modules)
    loaded = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert loaded == []
    # No governed knowledge in this project: the governed layer is not even imported.
    assert not {m for m in modules if m.startswith("engram.memory.governed")}


# The stdlib modules that cost a hook more than its work (issue 17: SessionStart within 3x a
# bare interpreter). The project is named (ENGRAM_PROJECT), as `engram link` hosts often run it.
LEAN = ("dataclasses", "inspect", "typing", "pathlib", "threading", "urllib", "zlib", "hashlib")

LEAN_CHILD = """
import io, sys
before = set(sys.modules)
from engram.cli.entry import main
sys.stdout = io.StringIO()
main(["hook", "claude"])
sys.__stdout__.write(" ".join(sorted(set(sys.modules) - before)))
"""


def test_session_start_with_a_named_project_imports_no_slow_stdlib(sandbox: Sandbox) -> None:
    from engram.memory.save import save_observation
    from engram.store.db import Store

    store = Store.open(sandbox.data_dir)
    try:
        save_observation(store, title="Chose FTS5", content="why", project="shop", type="decision")
    finally:
        store.close()
    payload = {
        "hook_event_name": "SessionStart",
        "source": "startup",
        "session_id": "s1",
        "cwd": str(sandbox.workspace),
    }
    result = subprocess.run(
        [sys.executable, "-c", LEAN_CHILD],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=sandbox.env(ENGRAM_PROJECT="shop"),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    modules = set(result.stdout.split())
    assert {"engram.memory.context", "engram.memory.sessions"} <= modules  # it did the work
    assert sorted(m for m in modules if m.split(".")[0] in LEAN) == []


# What the hook imports before it knows whether a running `engram serve` will answer.
CLIENT_CHILD = """
import sys
import engram.cli.entry, engram.hooks.client
print(" ".join(sorted(sys.modules)))
"""


def test_runtime_client_imports_neither_store_nor_memory(sandbox: Sandbox) -> None:
    result = subprocess.run(
        [sys.executable, "-c", CLIENT_CHILD],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    modules = set(result.stdout.split())
    assert "engram.hooks.client" in modules
    assert {m for m in modules if m.startswith(("engram.store", "engram.memory"))} == set()
    slow = {"json", "sqlite3", "pathlib", "dataclasses", "typing", "socket", "enum", "re"}
    assert slow & modules == set()


# What a host waits for at SessionStart in a clone (issue 27, point 6): the project detected
# from the repository's remote and bound, ten memories served, none citing code.
CLONE_CHILD = """
import io, sys
from engram.cli.entry import main
out = sys.stdout = io.StringIO()
main(["hook", "claude"])
modules = sorted(sys.modules)
import json
answer = json.loads(out.getvalue() or "{}").get("hookSpecificOutput", {}).get("additionalContext", "")
sys.__stdout__.write(json.dumps({"answer": answer, "modules": modules}))
"""


def _clone_with_memories(sandbox: Sandbox, *, cite: bool) -> None:
    from engram.memory.project_binding import confirm_here
    from engram.memory.save import save_observation
    from engram.store.db import Store

    workspace = sandbox.workspace
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    remote = "git@git.example.invalid:Team/Shop.git"
    subprocess.run(["git", "-C", str(workspace), "remote", "add", "origin", remote], check=True)
    (workspace / "cart.py").write_text("def total(items):\n    return sum(items)\n")
    store = Store.open(sandbox.data_dir)
    try:
        for n in range(10):
            cited = " See cart.py:1." if cite and n == 9 else ""
            content = f"**What**: cart totals round half up ({n}).{cited}"
            save_observation(store, title=f"Cart {n}", content=content, project="shop")
    finally:
        store.close()
    confirm_here(sandbox.data_dir, workspace)


def _session_start_in(sandbox: Sandbox, **event: str) -> tuple[str, set[str]]:
    payload = {"hook_event_name": "SessionStart", "session_id": "s1", "cwd": str(sandbox.workspace)}
    payload.update(event)
    result = subprocess.run(
        [sys.executable, "-c", CLONE_CHILD],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    return report["answer"], set(report["modules"])


def test_session_start_in_a_clone_imports_neither_re_nor_enum_nor_the_citation_checks(
    sandbox: Sandbox,
) -> None:
    _clone_with_memories(sandbox, cite=False)
    answer, modules = _session_start_in(sandbox)
    assert "project: shop" in answer and "Cart 9" in answer  # detected, trusted, served
    assert {"json", "re", "enum"} & modules == set()
    assert {m for m in modules if m.startswith("engram.memory.citations")} == set()


def test_a_served_memory_that_cites_code_loads_the_citation_checks(sandbox: Sandbox) -> None:
    _clone_with_memories(sandbox, cite=True)
    answer, modules = _session_start_in(sandbox)
    assert "Cart 9" in answer
    assert "engram.memory.citations.checking" in modules


def test_a_prompt_is_saved_without_the_save_or_search_stack(sandbox: Sandbox) -> None:
    from engram.memory.prompts import recent_prompts
    from engram.store.db import Store

    _clone_with_memories(sandbox, cite=False)
    _session_start_in(sandbox)
    _, modules = _session_start_in(
        sandbox, hook_event_name="UserPromptSubmit", prompt="why do totals round?"
    )
    with Store.open(sandbox.data_dir) as store:
        saved = recent_prompts(store, project="shop")
    assert [(p.content, p.session_id) for p in saved] == [("why do totals round?", "s1")]
    slow = {"json", "re", "enum", "dataclasses", "typing", "engram.memory.save"}
    assert slow & modules == set()
    assert {m for m in modules if m.startswith("engram.memory.search")} == set()
