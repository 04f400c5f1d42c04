"""Nothing from data reaches the hook pack raw: every id, name, session summary, prompt and
title that SessionStart, the prompt delta or the after-compaction context prints is quoted or
flattened onto its line, so no stored value can start a line of its own in the pack."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from typing import Any

from engram.memory.compaction import compaction_context
from engram.memory.prompts import save_prompt
from engram.memory.save import save_observation
from engram.memory.sessions import end_session, start_session
from engram.store.db import Store
from engram.testing import Sandbox

PROJECT = "workspace"
# Every line break a host (or Python's splitlines) may honour.
BREAKS = ["\n", "\r\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"]


def _hostile(tag: str) -> str:
    return "ok" + "".join(f"{brk}PLANTED {tag} {i}" for i, brk in enumerate(BREAKS))


def _hook(sandbox: Sandbox, payload: dict[str, Any]) -> str:
    body = {"session_id": "host-1", "cwd": str(sandbox.workspace), **payload}
    result = subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", "hook", "claude"],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


def _no_planted_line(text: str) -> None:
    assert "PLANTED" in text  # the values are shown, only never as lines of their own
    for line in text.splitlines():
        assert not line.lstrip(" -*#>[").startswith("PLANTED"), repr(line)


def _plant(sandbox: Sandbox) -> str:
    """Hostile values in every field the pack prints; returns the planted session id."""
    with Store.open(sandbox.data_dir) as store:
        start_session(store, "s-1", project=PROJECT)
        save_observation(
            store,
            title=_hostile("title"),
            content=_hostile("body"),
            project=PROJECT,
            type="bugfix",
            session_id="s-1",
        )
        save_prompt(store, _hostile("prompt"), project=PROJECT, session_id="s-1")
        end_session(store, "s-1", summary=_hostile("summary"))
    # Values an older version or another tool may have stored: written below every check.
    sid = "legacy" + _hostile("session-id")
    conn = sqlite3.connect(sandbox.data_dir / "engram.db")
    with conn:
        conn.execute(
            "INSERT INTO sessions (id, project, started_at, ended_at, summary)"
            " VALUES (?, ?, '2026-11-30 10:00:00', '2026-11-30 11:00:00', ?)",
            (sid, PROJECT, _hostile("legacy-summary")),
        )
        conn.execute(
            "UPDATE observations SET type = ? WHERE project = ?", (_hostile("type"), PROJECT)
        )
    conn.close()
    return sid


def test_session_start_pack_has_no_planted_line(sandbox: Sandbox) -> None:
    _plant(sandbox)
    _no_planted_line(_hook(sandbox, {"hook_event_name": "SessionStart", "source": "startup"}))


def test_prompt_delta_has_no_planted_line(sandbox: Sandbox) -> None:
    with Store.open(sandbox.data_dir) as store:
        save_observation(store, title="first", content="harmless", project=PROJECT)
    _hook(sandbox, {"hook_event_name": "SessionStart", "source": "startup"})
    _plant(sandbox)
    delta = _hook(sandbox, {"hook_event_name": "UserPromptSubmit", "prompt": "go on"})
    _no_planted_line(delta)


def test_compaction_context_has_no_planted_line(sandbox: Sandbox) -> None:
    sid = _plant(sandbox)
    with Store.open(sandbox.data_dir) as store:
        for session in ("s-1", sid):
            _no_planted_line(compaction_context(store, session).context)
    after = _hook(sandbox, {"hook_event_name": "SessionStart", "source": "compact"})
    _no_planted_line(after)
