"""Goose's hooks: Engram's plugin folder, and `engram hook goose` recording what Goose reports —
sessions opened and closed, prompts kept — while printing nothing (Goose reads stdout only as a
block decision, and its hooks cannot carry context)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engram.cli.app import main
from engram.hooks.events import Moment, read_event
from engram.memory.prompts import recent_prompts
from engram.memory.save import save_observation
from engram.store.db import Store
from engram.testing import Sandbox

BIN = Path(sys.executable).parent


def hook(sandbox: Sandbox, body: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", "hook", "goose"],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )


def test_goose_payloads_are_read_from_their_own_keys() -> None:
    event = read_event(
        "goose",
        {"event": "UserPromptSubmit", "session_id": "g1", "message": "add tests"},
        cwd="/w",
    )
    assert (event.moment, event.session_id, event.cwd, event.prompt) == (
        Moment.PROMPT,
        "g1",
        "/w",
        "add tests",
    )
    assert read_event("goose", {"event": "SessionEnd", "session_id": "g1"}).moment is Moment.END


def test_a_goose_session_is_recorded_and_nothing_is_printed(sandbox: Sandbox) -> None:
    store = Store.open(sandbox.data_dir)
    try:
        save_observation(
            store, title="Chose FTS5", content="d", project="workspace", type="decision"
        )
    finally:
        store.close()
    for body in (
        {"event": "SessionStart", "session_id": "g1"},
        {"event": "UserPromptSubmit", "session_id": "g1", "message": "refactor the parser"},
        {"event": "SessionEnd", "session_id": "g1"},
    ):
        done = hook(sandbox, body)
        assert done.returncode == 0 and done.stdout == "", done.stderr
    store = Store.open(sandbox.data_dir)
    try:
        prompts = [p.content for p in recent_prompts(store, project="workspace")]
    finally:
        store.close()
    assert "refactor the parser" in prompts


def test_link_installs_engrams_goose_plugin(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.chdir(sandbox.workspace)
    assert main(["link", "goose", "--global"]) == 0
    plugin = sandbox.home / ".agents/plugins/engram"
    assert json.loads((plugin / "plugin.json").read_text())["name"] == "engram"
    hooks = json.loads((plugin / "hooks/hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "SessionEnd"}
    (action,) = hooks["UserPromptSubmit"][0]["hooks"]
    assert action == {"type": "command", "command": "engram hook goose", "timeout": 10}
    assert main(["unlink", "goose", "--global"]) == 0
    assert not (sandbox.home / ".agents").exists()
