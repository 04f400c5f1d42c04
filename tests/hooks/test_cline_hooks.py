"""Cline's hooks: the executables `engram link cline` writes run under Cline's protocol —
JSON on stdin, one JSON answer with ``cancel`` on stdout, exit 0 (anything else blocks Cline)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engram.cli.app import main
from engram.hooks.answers import context_answer, empty_answer
from engram.hooks.events import Moment, read_event
from engram.memory.save import save_observation
from engram.store.db import Store
from engram.testing import Sandbox

BIN = Path(sys.executable).parent
EVENTS = ["TaskStart", "TaskResume", "UserPromptSubmit", "PreCompact", "TaskComplete"]


def payload(sandbox: Sandbox, hook: str, **extra: Any) -> dict[str, Any]:
    return {
        "clineVersion": "3.40.0",
        "hookName": hook,
        "timestamp": "1767225600000",
        "taskId": "task-1",
        "workspaceRoots": [str(sandbox.workspace)],
        "userId": "u",
        **extra,
    }


def test_cline_payloads_are_read_from_their_own_keys(sandbox: Sandbox) -> None:
    event = read_event(
        "cline",
        payload(sandbox, "UserPromptSubmit", userPromptSubmit={"prompt": "fix the parser"}),
        cwd="/elsewhere",
    )
    assert (event.moment, event.session_id, event.cwd, event.prompt) == (
        Moment.PROMPT,
        "task-1",
        str(sandbox.workspace),
        "fix the parser",
    )
    assert read_event("cline", {"hookName": "TaskStart"}).moment is Moment.START
    assert read_event("cline", {"hookName": "TaskCancel"}).moment is Moment.END


def test_cline_answers_always_say_cancel_false() -> None:
    assert json.loads(empty_answer("cline", "PreCompact")) == {"cancel": False}
    assert json.loads(context_answer("cline", "TaskStart", "pack")) == {
        "cancel": False,
        "contextModification": "pack",
    }
    assert json.loads(context_answer("cline", "TaskComplete", "pack")) == {"cancel": False}


@pytest.fixture
def linked(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`engram link cline` in the sandbox workspace with engram on PATH; the hooks folder."""
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.chdir(sandbox.workspace)
    assert main(["link", "cline"]) == 0
    return sandbox.workspace / ".clinerules/hooks"


def run(sandbox: Sandbox, script: Path, body: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(script)],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=sandbox.env(PATH=f"{BIN}{os.pathsep}/usr/bin:/bin"),
        cwd=sandbox.workspace,
        timeout=60,
    )


def test_link_writes_one_executable_per_hook(linked: Path) -> None:
    assert sorted(p.name for p in linked.iterdir()) == sorted(EVENTS)
    for script in linked.iterdir():
        assert script.stat().st_mode & stat.S_IXUSR
        assert script.read_text().startswith("#!/bin/sh\n")
        assert script.read_text().rstrip().endswith("exec engram hook cline")


def test_the_written_hooks_run_and_bring_memory_in(sandbox: Sandbox, linked: Path) -> None:
    store = Store.open(sandbox.data_dir)
    try:
        save_observation(
            store, title="Chose SQLite FTS5", content="d", project="workspace", type="decision"
        )
    finally:
        store.close()
    start = run(sandbox, linked / "TaskStart", payload(sandbox, "TaskStart"))
    assert start.returncode == 0, start.stderr
    answer = json.loads(start.stdout)
    assert answer["cancel"] is False and "Chose SQLite FTS5" in answer["contextModification"]
    prompt = payload(sandbox, "UserPromptSubmit", userPromptSubmit={"prompt": "go on"})
    for hook, body in [
        ("UserPromptSubmit", prompt),
        ("PreCompact", payload(sandbox, "PreCompact")),
        ("TaskComplete", payload(sandbox, "TaskComplete")),
    ]:
        done = run(sandbox, linked / hook, body)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["cancel"] is False


def test_broken_input_still_lets_cline_go_on(sandbox: Sandbox, linked: Path) -> None:
    done = subprocess.run(
        [str(linked / "TaskStart")],
        input="{not json",
        capture_output=True,
        text=True,
        env=sandbox.env(PATH=f"{BIN}{os.pathsep}/usr/bin:/bin"),
        timeout=60,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"cancel": False}


def test_unlink_removes_the_hooks_and_their_folder(sandbox: Sandbox, linked: Path) -> None:
    assert main(["unlink", "cline"]) == 0
    assert not (sandbox.workspace / ".clinerules").exists()
