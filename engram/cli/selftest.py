"""``engram test [suite] [--quick] [--json]``: Engram's isolated self-tests.

Every suite runs against a scratch home, workspace and data dir in a temporary folder that is
removed afterwards: the user's store and host configs are never opened. Suites:

- ``store``: save, search, dedupe, topic revision, soft and hard delete, export/import.
- ``hooks``: ``engram hook claude`` answers a SessionStart with remembered context.
- ``link``: link every host into the scratch home and workspace, then unlink restores them.
- ``mcp``: a real ``engram-mcp`` subprocess: initialize, tools/list, mem_save, mem_search
  (skipped by ``--quick``, the only suite that starts a server).

Exit 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from engram.errors import EngramError

SUITES = ("store", "hooks", "link", "mcp")
SLOW = frozenset({"mcp"})


@dataclass
class Outcome:
    """One suite's verdict."""

    suite: str
    ok: bool
    detail: str
    ms: int


@contextmanager
def scratch() -> Iterator[dict[str, str]]:
    """A temporary home, workspace and data dir; the environment pointed at them."""
    with tempfile.TemporaryDirectory(prefix="engram-selftest-") as root:
        home, workspace, data = (Path(root) / n for n in ("home", "workspace", "data"))
        for folder in (home, workspace):
            folder.mkdir()
        data.mkdir(mode=0o700)
        env = {**os.environ, "HOME": str(home), "ENGRAM_DATA_DIR": str(data)}
        env["ENGRAM_NO_UPDATE_CHECK"] = "1"
        env["ENGRAM_SELFTEST_WORKSPACE"] = str(workspace)
        for key in ("ENGRAM_PROJECT", "CODEX_HOME", "XDG_CONFIG_HOME"):
            env.pop(key, None)
        yield env


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


def suite_store(env: dict[str, str]) -> str:
    """Save, search, dedupe, revise, delete, export and import in a scratch store."""
    from engram.memory.observation import delete_observation
    from engram.memory.save import save_observation
    from engram.memory.search import search
    from engram.store.db import Store

    store = Store.open(Path(env["ENGRAM_DATA_DIR"]), env=env)
    try:
        first = save_observation(
            store, title="Rate limit login", content="five tries a minute", project="selftest"
        )
        again = save_observation(
            store, title="Rate limit login", content="five tries a minute", project="selftest"
        )
        _check(again.observation.id == first.observation.id, "a duplicate made a second row")
        hits = search(store, "login", project="selftest")
        _check(
            [h.observation.id for h in hits][:1] == [first.observation.id],
            "search did not find the save",
        )
        topic = save_observation(
            store, title="Auth", content="v1", project="selftest", topic_key="auth/model"
        )
        revised = save_observation(
            store, title="Auth", content="v2", project="selftest", topic_key="auth/model"
        )
        _check(revised.observation.id == topic.observation.id, "a topic save made a new row")
        delete_observation(store, first.observation.id, expected_project="selftest")
        hits = search(store, "login", project="selftest")  # hybrid may still find "Auth"
        _check(
            first.observation.id not in [h.observation.id for h in hits],
            "a soft-deleted memory was found",
        )
        delete_observation(store, topic.observation.id, expected_project="selftest", hard=True)
    finally:
        store.close()
    return "save, dedupe, search, topic revision, soft and hard delete"


def _engram(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("engram")
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "engram.cli.entry"]
    return subprocess.run(
        [*argv, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=env["ENGRAM_SELFTEST_WORKSPACE"],
        timeout=60,
    )


def suite_hooks(env: dict[str, str]) -> str:
    """``engram hook claude`` answers a SessionStart with what was saved."""
    saved = _engram(env, "save", "Selftest remembers", "**What** hooks work", "--project", "st")
    _check(saved.returncode == 0, f"save failed: {saved.stderr.strip()}")
    payload = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "selftest"}
    payload["cwd"] = env["ENGRAM_SELFTEST_WORKSPACE"]
    answer = _engram({**env, "ENGRAM_PROJECT": "st"}, "hook", "claude", stdin=json.dumps(payload))
    _check(answer.returncode == 0, f"the hook exited {answer.returncode}")
    _check("Selftest remembers" in answer.stdout, "the SessionStart answer lacks the memory")
    return "SessionStart context through `engram hook claude`"


def suite_link(env: dict[str, str]) -> str:
    """Link every host into the scratch folders; unlink gives every byte back."""
    workspace = Path(env["ENGRAM_SELFTEST_WORKSPACE"])
    home = Path(env["HOME"])

    def snapshot() -> dict[str, bytes]:
        return {
            str(p): p.read_bytes()
            for root in (home, workspace)
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }

    before = snapshot()
    for args in (("link", "all"), ("unlink", "all")):
        done = _engram(env, *args)
        _check(done.returncode == 0, f"engram {' '.join(args)} failed: {done.stdout[-300:]}")
    _check(snapshot() == before, "unlink did not restore every file")
    return "link all + unlink all restore the scratch home and workspace byte for byte"


def suite_mcp(env: dict[str, str]) -> str:
    """A real engram-mcp: initialize, tools/list, mem_save, mem_search."""
    script = Path(sys.executable).with_name("engram-mcp")
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "engram.server.main"]
    init = {"protocolVersion": "2025-11-25", "capabilities": {}}
    init["clientInfo"] = {"name": "engram-selftest", "version": "1"}
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "mem_save",
                "arguments": {"title": "Selftest MCP", "content": "works"},
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "mem_search", "arguments": {"query": "selftest"}},
        },
    ]
    done = subprocess.run(
        argv,
        input="".join(json.dumps(c) + "\n" for c in calls),
        capture_output=True,
        text=True,
        env=env,
        cwd=env["ENGRAM_SELFTEST_WORKSPACE"],
        timeout=60,
    )
    answers = {m.get("id"): m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    errors = [str(m["error"]) for m in answers.values() if "error" in m]
    _check(not errors, f"engram-mcp refused: {errors[:1]}")
    _check(set(answers) >= {1, 2, 3, 4}, f"engram-mcp answered {sorted(answers)} of 1-4")
    _check(len(answers[2]["result"]["tools"]) > 0, "tools/list was empty")
    content = answers[4]["result"]["structuredContent"]
    _check(content["ok"], f"mem_search failed: {content['data'].get('message')}")
    found = content["data"]["result"]
    _check(any(h["title"] == "Selftest MCP" for h in found), "mem_search missed mem_save")
    return "initialize, tools/list, mem_save, mem_search over stdio"


RUNNERS: dict[str, Callable[[dict[str, str]], str]] = {
    "store": suite_store,
    "hooks": suite_hooks,
    "link": suite_link,
    "mcp": suite_mcp,
}


def run_suite(name: str) -> Outcome:
    """Run one suite in its own scratch folders."""
    start = time.monotonic()
    with scratch() as env:
        try:
            detail, ok = RUNNERS[name](env), True
        except Exception as exc:  # a failed check or anything unexpected: the suite fails
            detail, ok = f"{type(exc).__name__}: {exc}", False
    return Outcome(name, ok, detail, int((time.monotonic() - start) * 1000))


def test_command(
    suite: Annotated[
        str | None,
        typer.Argument(help=f"One suite: {', '.join(SUITES)} (default: all).", show_default=False),
    ] = None,
    quick: Annotated[
        bool, typer.Option("--quick", help="Skip the suite that starts a server.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Run Engram's self-tests against a scratch data dir (your store is never touched)."""
    if suite is not None and suite not in SUITES:
        raise EngramError(
            "cli.unknown_suite",
            f"no self-test suite {suite!r}",
            f"pick one of {', '.join(SUITES)}, or none for all",
        )
    names = [suite] if suite else [s for s in SUITES if not (quick and s in SLOW)]
    outcomes = [run_suite(name) for name in names]
    if as_json:
        typer.echo(
            json.dumps(
                {"ok": all(o.ok for o in outcomes), "suites": [o.__dict__ for o in outcomes]},
                indent=2,
            )
        )
    else:
        for o in outcomes:
            typer.echo(f"{'ok  ' if o.ok else 'FAIL'} {o.suite}: {o.detail}")
        failed = sum(not o.ok for o in outcomes)
        verdict = f"{failed} of {len(outcomes)} suites failed" if failed else "every suite passed"
        typer.echo(f"engram test: {verdict}")
    if not all(o.ok for o in outcomes):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``engram test`` to the root app."""
    app.command("test")(test_command)
