"""What a host's hook payload means, in Engram's words.

Each host names its events differently (Claude Code ``UserPromptSubmit``, Gemini CLI
``BeforeAgent``, Cursor ``beforeSubmitPrompt``, Windsurf ``pre_user_prompt``, Cline
``hookName: TaskStart``) and puts the
session id, working folder and prompt under different keys. :func:`read_event` turns one stdin
payload into a :class:`HookEvent` whose :class:`Moment` says what Engram should do.
"""

from __future__ import annotations

import os

from engram.errors import EngramError
from engram.store.records import record

TYPE_CHECKING = False  # typing costs the hook more than its work
if TYPE_CHECKING:
    from typing import Any, ClassVar


class Moment(str):
    """The point in a session a hook fires at, as far as memory is concerned: one of the six
    constants below, compared with ``is``. A ``str`` (its value), not an ``enum.StrEnum``:
    ``enum`` costs the hook process more than its answer."""

    __slots__ = ()
    START: ClassVar[Moment]  # a fresh context: inject the memory pack
    PROMPT: ClassVar[Moment]  # a user prompt: record it, inject only what changed
    COMPACTING: ClassVar[Moment]  # the host is about to compact (or just did, with no channel)
    AFTER_COMPACT: ClassVar[Moment]  # a compacted context that can take the pack again
    END: ClassVar[Moment]  # the session is over
    OTHER: ClassVar[Moment]  # an event Engram answers with the empty answer

    def __repr__(self) -> str:
        return f"Moment.{self.upper()}"


Moment.START = Moment("start")
Moment.PROMPT = Moment("prompt")
Moment.COMPACTING = Moment("compacting")
Moment.AFTER_COMPACT = Moment("after_compact")
Moment.END = Moment("end")
Moment.OTHER = Moment("other")


# Claude Code's event names, which Factory Droid, Kimi Code CLI and Qwen Code reuse.
_CLAUDE_MOMENTS: dict[str, Moment] = {
    "SessionStart": Moment.START,
    "UserPromptSubmit": Moment.PROMPT,
    "PreCompact": Moment.COMPACTING,
    "SessionEnd": Moment.END,
}

# host -> {host event name -> moment}. SessionStart with source "compact" is AFTER_COMPACT.
EVENT_MOMENTS: dict[str, dict[str, Moment]] = {
    "claude": _CLAUDE_MOMENTS,
    "codex": {
        "SessionStart": Moment.START,
        "UserPromptSubmit": Moment.PROMPT,
        "PreCompact": Moment.COMPACTING,
        "PostCompact": Moment.COMPACTING,
    },
    "gemini": {
        "SessionStart": Moment.START,
        "BeforeAgent": Moment.PROMPT,
        "PreCompress": Moment.COMPACTING,
        "SessionEnd": Moment.END,
    },
    "cursor": {
        "sessionStart": Moment.START,
        "beforeSubmitPrompt": Moment.PROMPT,
        "preCompact": Moment.COMPACTING,
        "sessionEnd": Moment.END,
    },
    "windsurf": {"pre_user_prompt": Moment.PROMPT},
    "droid": _CLAUDE_MOMENTS,
    "kimi": _CLAUDE_MOMENTS,
    "qwen": _CLAUDE_MOMENTS,
    # Cline: one executable per hook, named for it; the payload nests its data per hook.
    "cline": {
        "TaskStart": Moment.START,
        "TaskResume": Moment.START,
        "UserPromptSubmit": Moment.PROMPT,
        "PreCompact": Moment.COMPACTING,
        "TaskComplete": Moment.END,
        "TaskCancel": Moment.END,
    },
    # Goose hooks observe only (no context channel): open the session, record prompts, close.
    "goose": {
        "SessionStart": Moment.START,
        "UserPromptSubmit": Moment.PROMPT,
        "SessionEnd": Moment.END,
    },
    "opencode": {
        "session.created": Moment.START,
        "chat.message": Moment.PROMPT,
        "session.compacting": Moment.AFTER_COMPACT,
        "session.deleted": Moment.END,
    },
}

HOSTS: tuple[str, ...] = tuple(EVENT_MOMENTS)
HOST_ALIASES: dict[str, str] = {
    "claude-code": "claude",
    "codex-cli": "codex",
    "gemini-cli": "gemini",
    "cascade": "windsurf",
    "factory": "droid",
    "factory-droid": "droid",
    "qwen-code": "qwen",
}


@record
class HookEvent:
    """One hook call, normalised (a :func:`~engram.store.records.record`: the hook path pays
    for every class definition on each call, and a dataclass costs the most).

    Args:
        host: canonical host name (``"claude"``).
        name: the host's own event name (echoed back in answers that need it).
        moment: what the event means for memory.
        session_id: the host's session / conversation / trajectory id ("" when absent).
        cwd: the folder the agent works in.
        prompt: the user's prompt for :attr:`Moment.PROMPT` events, else "".
    """

    host: str
    name: str
    moment: Moment
    session_id: str
    cwd: str
    prompt: str = ""


def canonical_host(name: str) -> str:
    """The canonical host name for ``name`` (aliases allowed); EngramError when unknown."""
    host = HOST_ALIASES.get(name.lower(), name.lower())
    if host not in EVENT_MOMENTS:
        raise EngramError(
            "hook.unknown_host",
            f"no hook runtime for host {name!r}",
            f"use one of: {', '.join(HOSTS)}",
        )
    return host


def _text(payload: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _cwd(payload: dict[str, Any], default: str | None) -> str:
    cwd = _text(payload, "cwd", "directory", "working_dir")
    if cwd:
        return cwd
    roots = payload.get("workspace_roots") or payload.get("workspaceRoots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    return default or os.getcwd()


def _prompt(payload: dict[str, Any]) -> str:
    prompt = _text(payload, "prompt", "user_prompt", "message")  # Goose: message
    if prompt:
        return prompt
    for nest in ("tool_info", "userPromptSubmit"):  # Windsurf and Cline nest the prompt
        inner = payload.get(nest)
        if isinstance(inner, dict):
            return _text(inner, "user_prompt", "prompt")
    return ""


def read_event(host: str, payload: dict[str, Any], cwd: str | None = None) -> HookEvent:
    """Normalise one hook payload from ``host`` (already canonical) into a :class:`HookEvent`.

    ``cwd``: the hook process's folder, for payloads that name none (default: this process's).
    """
    name = _text(payload, "hook_event_name", "agent_action_name", "event", "hookName")
    moment = EVENT_MOMENTS[host].get(name, Moment.OTHER)
    source = _text(payload, "source", "trigger")
    if moment is Moment.START and source == "compact":
        moment = Moment.AFTER_COMPACT
    session_id = _text(
        payload, "session_id", "conversation_id", "trajectory_id", "sessionID", "taskId"
    )
    return HookEvent(
        host=host,
        name=name,
        moment=moment,
        session_id=session_id,
        cwd=_cwd(payload, cwd),
        prompt=_prompt(payload) if moment is Moment.PROMPT else "",
    )
