"""Each host gets its exact answer schema from ``engram hook <host>``, even when things fail."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engram.hooks.answers import context_answer, empty_answer
from engram.hooks.events import Moment, read_event
from engram.testing import Sandbox

CODEX_TOP_KEYS = {
    "continue",
    "stopReason",
    "systemMessage",
    "suppressOutput",
    "decision",
    "reason",
    "hookSpecificOutput",
}


def run_hook(
    sandbox: Sandbox, host: str, stdin: str | bytes, **env: str
) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", "hook", host],
        input=data,
        capture_output=True,
        env=sandbox.env(**env),
        cwd=sandbox.workspace,
        timeout=60,
    )


def test_claude_context_answer_is_hook_specific_output() -> None:
    answer = json.loads(context_answer("claude", "SessionStart", "pack"))
    assert answer == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "pack"}
    }


def test_codex_answer_uses_only_keys_its_schema_allows() -> None:
    for event in ("SessionStart", "UserPromptSubmit"):
        answer = json.loads(context_answer("codex", event, "pack"))
        assert set(answer) <= CODEX_TOP_KEYS
        assert set(answer["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    # PostCompact has no context channel: nothing at all rather than an unknown shape
    assert context_answer("codex", "PostCompact", "pack") == ""


def test_cursor_uses_snake_case_context_and_continue() -> None:
    assert json.loads(context_answer("cursor", "sessionStart", "pack")) == {
        "additional_context": "pack",
        "continue": True,
    }
    assert json.loads(empty_answer("cursor", "beforeSubmitPrompt")) == {"continue": True}


def test_gemini_always_answers_json() -> None:
    assert json.loads(empty_answer("gemini", "SessionEnd")) == {}
    assert json.loads(empty_answer("gemini", "")) == {}
    ctx = json.loads(context_answer("gemini", "BeforeAgent", "delta"))
    assert ctx["hookSpecificOutput"]["additionalContext"] == "delta"


def test_windsurf_prints_nothing_it_would_show_the_user() -> None:
    assert context_answer("windsurf", "pre_user_prompt", "x") == ""


@pytest.mark.parametrize(
    ("host", "payload", "moment"),
    [
        ("claude", {"hook_event_name": "SessionStart", "source": "compact"}, Moment.AFTER_COMPACT),
        ("claude", {"hook_event_name": "SessionStart", "source": "resume"}, Moment.START),
        ("codex", {"hook_event_name": "PostCompact"}, Moment.COMPACTING),
        ("gemini", {"hook_event_name": "BeforeAgent", "prompt": "hi"}, Moment.PROMPT),
        ("cursor", {"hook_event_name": "sessionEnd"}, Moment.END),
        ("windsurf", {"agent_action_name": "pre_user_prompt"}, Moment.PROMPT),
        ("opencode", {"hook_event_name": "session.compacting"}, Moment.AFTER_COMPACT),
        ("claude", {"hook_event_name": "Stop"}, Moment.OTHER),
    ],
)
def test_events_map_to_moments(host: str, payload: dict[str, str], moment: Moment) -> None:
    assert read_event(host, payload).moment is moment


def test_hosts_name_session_cwd_and_prompt_differently() -> None:
    cursor = read_event(
        "cursor",
        {
            "hook_event_name": "beforeSubmitPrompt",
            "conversation_id": "c1",
            "workspace_roots": ["/w"],
            "prompt": "fix it",
        },
    )
    assert (cursor.session_id, cursor.cwd, cursor.prompt) == ("c1", "/w", "fix it")
    windsurf = read_event(
        "windsurf",
        {
            "agent_action_name": "pre_user_prompt",
            "trajectory_id": "t1",
            "tool_info": {"user_prompt": "hello"},
        },
    )
    assert (windsurf.session_id, windsurf.prompt) == ("t1", "hello")


@pytest.mark.parametrize(
    ("host", "expected"),
    [("claude", b""), ("codex", b""), ("gemini", b"{}\n"), ("cursor", b"{}\n")],
)
def test_malformed_input_fails_open(sandbox: Sandbox, host: str, expected: bytes) -> None:
    result = run_hook(sandbox, host, "{not json")
    assert result.returncode == 0
    assert result.stdout == expected
    assert len(result.stderr.decode().strip().splitlines()) == 1
    assert result.stderr.startswith(f"engram hook {host}:".encode())


def test_a_byte_order_mark_before_the_event_is_read_past_once(sandbox: Sandbox) -> None:
    from engram.memory.save import save_observation
    from engram.store.db import Store

    with Store.open(sandbox.data_dir) as store:
        save_observation(store, title="Chose FTS5", content="why", project="shop")
    event = json.dumps({"hook_event_name": "SessionStart", "session_id": "s"}).encode()
    answered = run_hook(sandbox, "claude", b"\xef\xbb\xbf" + event, ENGRAM_PROJECT="shop")
    assert answered.returncode == 0 and answered.stderr == b""
    answer = json.loads(answered.stdout)["hookSpecificOutput"]
    assert (
        answer["hookEventName"] == "SessionStart" and "project: shop" in answer["additionalContext"]
    )
    twice = run_hook(sandbox, "claude", b"\xef\xbb\xbf" * 2 + event, ENGRAM_PROJECT="shop")
    assert twice.returncode == 0 and twice.stdout == b""  # a second mark is bad input
    assert b"BOM" in twice.stderr


def test_an_unreadable_data_dir_fails_open_with_one_line(sandbox: Sandbox) -> None:
    payload = json.dumps(
        {"hook_event_name": "SessionStart", "session_id": "s", "cwd": str(sandbox.workspace)}
    )
    result = run_hook(sandbox, "gemini", payload, ENGRAM_DATA_DIR="relative/dir")
    assert result.returncode == 0
    assert json.loads(result.stdout) == {}
    assert len(result.stderr.decode().strip().splitlines()) == 1


def test_unknown_host_is_a_usage_error(sandbox: Sandbox) -> None:
    result = run_hook(sandbox, "notepad", "{}")
    assert result.returncode == 2
    assert b"claude" in result.stderr


def test_help_lists_and_explains_the_hook_command(sandbox: Sandbox) -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", "--help"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=60,
    )
    assert "hook" in listed.stdout
    explained = subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", "hook", "--help"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=60,
    )
    assert explained.returncode == 0 and "stdin" in explained.stdout
