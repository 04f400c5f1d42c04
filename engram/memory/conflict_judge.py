"""The semantic judge: ask an agent CLI, run headless, whether two memories conflict.

``ENGRAM_AGENT_CLI`` names the agent: ``claude`` runs ``claude -p PROMPT --output-format
json`` (one JSON object whose ``result`` holds the answer text); ``opencode`` runs ``opencode
run --format json PROMPT`` (JSON events, one per line; the answer is the ``text`` parts). The
answer must hold a JSON object ``{"relation", "confidence", "reasoning"}``. A missing agent, a
timeout, a failed run or an answer that is not such an object is a :class:`JudgeError`: the
scan counts it and goes on.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engram.errors import EngramError
from engram.memory.relations import VERDICTS
from engram.store.records import Observation

AGENTS = ("claude", "opencode")
MEMORY_CHARS = 1500
# Rough input size of one call, for the cost estimate shown before a semantic scan.
PROMPT_OVERHEAD_TOKENS = 350


class JudgeError(Exception):
    """One judgment that could not be had (missing agent, timeout, garbage answer)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The agent's verdict on a pair."""

    relation: str
    confidence: float | None
    reasoning: str


def agent_from_env(env: Mapping[str, str] | None = None) -> str:
    """The agent ``ENGRAM_AGENT_CLI`` names, or ``conflicts.agent_not_set``."""
    value = (env if env is not None else os.environ).get("ENGRAM_AGENT_CLI", "").strip()
    if value not in AGENTS:
        shown = f"is {value!r}" if value else "is not set"
        raise EngramError(
            "conflicts.agent_not_set",
            f"ENGRAM_AGENT_CLI {shown}; a semantic scan needs an agent CLI",
            "set ENGRAM_AGENT_CLI=claude or ENGRAM_AGENT_CLI=opencode",
        )
    return value


def prompt_for(first: Observation, second: Observation) -> str:
    """The instruction sent to the agent for one pair."""

    def memory(label: str, obs: Observation) -> str:
        body = obs.content[:MEMORY_CHARS]
        return f"Memory {label} (#{obs.id}, {obs.type}, {obs.created_at}):\n{obs.title}\n{body}"

    return (
        "You audit an AI coding agent's project memory for contradictions. Compare the two"
        " memories below. Memory A is newer than memory B.\n\n"
        f"{memory('A', first)}\n\n{memory('B', second)}\n\n"
        "Answer with one JSON object and nothing else:\n"
        '{"relation": "<one of: ' + " | ".join(VERDICTS) + '>", "confidence": <0.0-1.0>,'
        ' "reasoning": "<one short sentence>"}\n'
        "conflicts_with: both cannot be true now. supersedes: A replaces B. scoped: both hold"
        " in different contexts. compatible: A refines B. related: same subject, no tension."
        " not_conflict: unrelated."
    )


def estimate_tokens(pairs: list[tuple[Observation, Observation]]) -> int:
    """A rough input-token estimate for judging ``pairs`` (about four characters a token)."""
    return sum(len(prompt_for(a, b)) // 4 + PROMPT_OVERHEAD_TOKENS for a, b in pairs)


def _command(agent: str, prompt: str) -> list[str]:
    program = shutil.which(agent)
    if program is None:
        raise JudgeError(f"{agent} is not on PATH")
    if agent == "claude":
        return [program, "-p", prompt, "--output-format", "json"]
    return [program, "run", "--format", "json", prompt]


def _run(argv: list[str], timeout: int) -> str:
    # A new session so a timeout kills the agent and every child it started.
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise JudgeError(f"no answer within {timeout} s") from None
    if process.returncode != 0:
        tail = " ".join(err.split())[-200:]
        raise JudgeError(f"exited with status {process.returncode}: {tail}")
    return out


def _claude_text(out: str) -> str:
    try:
        data = json.loads(out)
    except json.JSONDecodeError:
        raise JudgeError("claude did not print JSON") from None
    if (
        not isinstance(data, dict)
        or data.get("is_error")
        or not isinstance(data.get("result"), str)
    ):
        raise JudgeError("claude reported an error or no result")
    return str(data["result"])


def _opencode_text(out: str) -> str:
    parts: list[str] = []
    for line in out.splitlines():
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            raise JudgeError("opencode printed a line that is not JSON") from None
        if not isinstance(event, dict):
            continue
        if event.get("type") == "error":
            raise JudgeError("opencode reported an error")
        part = event.get("part")
        if event.get("type") == "text" and isinstance(part, dict):
            parts.append(str(part.get("text", "")))
    if not parts:
        raise JudgeError("opencode gave no text answer")
    return "".join(parts)


def parse_verdict(text: str) -> Verdict:
    """The first JSON object in ``text`` read as a verdict, or :class:`JudgeError`."""
    decoder = json.JSONDecoder()
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            data, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "relation" in data:
            return _verdict(data)
    raise JudgeError("the answer holds no verdict object")


def _verdict(data: dict[str, Any]) -> Verdict:
    relation = data.get("relation")
    if relation not in VERDICTS:
        raise JudgeError(f"unknown relation {relation!r}")
    confidence = data.get("confidence")
    if confidence is not None:
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            raise JudgeError("confidence is not a number")
        if not 0.0 <= float(confidence) <= 1.0:
            raise JudgeError("confidence is outside 0.0-1.0")
        confidence = float(confidence)
    reasoning = " ".join(str(data.get("reasoning") or "").split())[:200]
    return Verdict(str(relation), confidence, reasoning or "judged by the agent")


class Judge:
    """Judges pairs with one agent CLI; callable from worker threads."""

    def __init__(self, agent: str) -> None:
        self.name = agent

    def __call__(self, first: Observation, second: Observation, timeout: int) -> Verdict:
        """The agent's verdict on ``first`` (newer) against ``second``."""
        out = _run(_command(self.name, prompt_for(first, second)), timeout)
        extract: Callable[[str], str] = _claude_text if self.name == "claude" else _opencode_text
        return parse_verdict(extract(out))
