"""A whole session through ``engram hook``: pack at start, deltas per prompt, compaction, end."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from engram.memory.prompts import recent_prompts
from engram.memory.save import save_observation
from engram.memory.sessions import recent_sessions
from engram.store.db import Store
from engram.testing import Sandbox

PROJECT = "workspace"  # the sandbox workspace folder's name


def hook(sandbox: Sandbox, host: str, payload: dict[str, Any], **env: str) -> str:
    body = {"session_id": "sess-1", "cwd": str(sandbox.workspace), **payload}
    result = subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", "hook", host],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=sandbox.env(**env),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0
    assert result.stderr == "", result.stderr
    return result.stdout


def context_of(answer: str) -> str:
    return str(json.loads(answer)["hookSpecificOutput"]["additionalContext"])


def remember(sandbox: Sandbox, title: str, content: str = "details") -> int:
    store = Store.open(sandbox.data_dir)
    try:
        result = save_observation(
            store, title=title, content=content, project=PROJECT, type="decision"
        )
        return result.observation.id
    finally:
        store.close()


def test_session_start_injects_the_project_pack(sandbox: Sandbox) -> None:
    remember(sandbox, "Chose SQLite FTS5 for search")
    answer = hook(sandbox, "claude", {"hook_event_name": "SessionStart", "source": "startup"})
    assert "Chose SQLite FTS5 for search" in context_of(answer)
    assert json.loads(answer)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_empty_memory_adds_nothing(sandbox: Sandbox) -> None:
    assert hook(sandbox, "claude", {"hook_event_name": "SessionStart", "source": "startup"}) == ""


def test_prompts_inject_only_what_changed_and_are_recorded(sandbox: Sandbox) -> None:
    remember(sandbox, "Old decision")
    hook(sandbox, "claude", {"hook_event_name": "SessionStart", "source": "startup"})
    quiet = hook(sandbox, "claude", {"hook_event_name": "UserPromptSubmit", "prompt": "go on"})
    assert quiet == ""
    remember(sandbox, "New discovery about caching")
    answer = hook(sandbox, "claude", {"hook_event_name": "UserPromptSubmit", "prompt": "next"})
    delta = context_of(answer)
    assert "New discovery about caching" in delta
    assert "Old decision" not in delta
    store = Store.open(sandbox.data_dir)
    try:
        assert [p.content for p in recent_prompts(store, project=PROJECT)] == ["next", "go on"]
    finally:
        store.close()


def test_after_compaction_the_pack_comes_back_with_the_steps(sandbox: Sandbox) -> None:
    remember(sandbox, "Pinned convention")
    hook(sandbox, "claude", {"hook_event_name": "SessionStart", "source": "startup"})
    hook(sandbox, "claude", {"hook_event_name": "PreCompact", "trigger": "auto"})
    answer = hook(sandbox, "claude", {"hook_event_name": "SessionStart", "source": "compact"})
    text = context_of(answer)
    assert "mem_session_summary" in text.splitlines()[0]
    assert "Pinned convention" in text


def test_gemini_gets_the_pack_on_the_prompt_after_compression(sandbox: Sandbox) -> None:
    remember(sandbox, "Gemini fact")
    hook(sandbox, "gemini", {"hook_event_name": "SessionStart", "source": "startup"})
    assert json.loads(hook(sandbox, "gemini", {"hook_event_name": "PreCompress"})) == {}
    answer = hook(sandbox, "gemini", {"hook_event_name": "BeforeAgent", "prompt": "continue"})
    text = context_of(answer)
    assert "compacted" in text and "Gemini fact" in text
    # the next prompt is back to deltas only
    assert (
        json.loads(hook(sandbox, "gemini", {"hook_event_name": "BeforeAgent", "prompt": "x"})) == {}
    )


def test_cursor_session_start_uses_its_schema(sandbox: Sandbox) -> None:
    remember(sandbox, "Cursor-visible memory")
    payload = {"hook_event_name": "sessionStart", "conversation_id": "c-1"}
    answer = json.loads(hook(sandbox, "cursor", payload))
    assert answer["continue"] is True
    assert "Cursor-visible memory" in answer["additional_context"]


def test_session_end_closes_the_session(sandbox: Sandbox) -> None:
    remember(sandbox, "Something")
    hook(sandbox, "claude", {"hook_event_name": "SessionStart", "source": "startup"})
    hook(sandbox, "claude", {"hook_event_name": "SessionEnd", "reason": "exit"})
    hook(sandbox, "claude", {"hook_event_name": "SessionEnd", "reason": "exit"})  # twice is fine
    store = Store.open(sandbox.data_dir)
    try:
        ended = {s.id: s.ended_at for s in recent_sessions(store, project=PROJECT, limit=10)}
    finally:
        store.close()
    assert ended["sess-1"] is not None


def test_pack_respects_its_byte_budget(sandbox: Sandbox) -> None:
    for n in range(60):
        remember(sandbox, f"Decision number {n}", "a fairly long explanation " * 20)
    answer = hook(
        sandbox,
        "claude",
        {"hook_event_name": "SessionStart", "source": "startup"},
        ENGRAM_HOOK_PACK_BYTES="2000",
    )
    assert len(context_of(answer).encode("utf-8")) <= 2000
