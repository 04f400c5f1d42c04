"""What ``engram hook <host>`` prints: each host's exact output schema.

- Claude Code: ``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`` for
  SessionStart / UserPromptSubmit; nothing otherwise.
- Codex: the same keys and nothing else (its schema rejects extra keys); nothing otherwise.
- Gemini CLI: JSON only on stdout, always; ``{}`` when there is nothing to add.
- Cursor: ``{"additional_context", "continue": true}`` for sessionStart, ``{"continue": true}``
  for beforeSubmitPrompt, ``{}`` otherwise.
- Windsurf: nothing (it reads the exit code only and would show any output to the user).
- Factory Droid and Qwen Code: Claude Code's answers (they read the same schema).
- Cline: ``{"cancel": false, "contextModification": "..."}`` for TaskStart, TaskResume and
  UserPromptSubmit; ``{"cancel": false}`` otherwise (anything else would block the task).
- Goose: nothing (its hooks observe only; stdout is read as a block decision).
- OpenCode (our own plugin): ``{"context": "..."}`` or ``{}``.

The *empty answer* is what a host gets when Engram has nothing to say or failed.
"""

from __future__ import annotations

from engram import lean_json

# Events whose answer can carry model context, per host.
CONTEXT_EVENTS: dict[str, frozenset[str]] = {
    "claude": frozenset({"SessionStart", "UserPromptSubmit"}),
    "codex": frozenset({"SessionStart", "UserPromptSubmit"}),
    "gemini": frozenset({"SessionStart", "BeforeAgent"}),
    "cursor": frozenset({"sessionStart"}),
    "windsurf": frozenset(),
    "droid": frozenset({"SessionStart", "UserPromptSubmit"}),
    "qwen": frozenset({"SessionStart", "UserPromptSubmit"}),
    "kimi": frozenset(),  # Kimi passes nothing a hook prints to the model
    "cline": frozenset({"TaskStart", "TaskResume", "UserPromptSubmit"}),
    "goose": frozenset(),  # its hooks observe; stdout is read only as a block decision
    "opencode": frozenset({"session.created", "chat.message", "session.compacting"}),
}


def can_inject(host: str, event_name: str) -> bool:
    """Whether ``host`` takes model context in its answer to ``event_name``."""
    return event_name in CONTEXT_EVENTS.get(host, frozenset())


def _dump(value: object) -> str:
    return lean_json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def empty_answer(host: str, event_name: str) -> str:
    """The answer that changes nothing for ``host`` (also the fail-open answer)."""
    if host in ("gemini", "opencode"):
        return "{}"
    if host == "cursor":
        return _dump({"continue": True}) if event_name == "beforeSubmitPrompt" else "{}"
    if host == "cline":  # invalid JSON or a non-zero exit would block Cline's action
        return _dump({"cancel": False})
    return ""


def context_answer(host: str, event_name: str, context: str) -> str:
    """The answer that gives ``context`` to the model, or the empty answer when it can't."""
    if not context or not can_inject(host, event_name):
        return empty_answer(host, event_name)
    if host in ("claude", "codex", "gemini", "droid", "qwen"):
        return _dump(
            {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}}
        )
    if host == "cursor":
        return _dump({"additional_context": context, "continue": True})
    if host == "cline":
        return _dump({"cancel": False, "contextModification": context})
    return _dump({"context": context})  # opencode
