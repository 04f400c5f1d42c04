"""What Engram does at each moment of a host session, and the context it hands back.

- START: open the session, build the memory pack for the project (within a byte budget),
  remember the newest observation shown.
- AFTER_COMPACT: the pack again, headed by the after-compaction steps.
- PROMPT: record the prompt; inject the pack when the host compacted since (hosts without an
  after-compaction channel), else only observations saved since the last injection.
- COMPACTING: mark the session so the next chance to inject carries the pack again.
- END: close the session and forget its state.

Budgets (bytes of UTF-8): ``ENGRAM_HOOK_PACK_BYTES`` (default 6000: under Claude Code's
10,000-character spill limit with room for the header) and ``ENGRAM_HOOK_DELTA_BYTES``
(default 1500).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from engram.hooks.answers import can_inject, context_answer, empty_answer
from engram.hooks.events import HookEvent, Moment
from engram.hooks.recall import Memory, open_memory
from engram.hooks.state import (
    SessionState,
    forget_state,
    load_state,
    save_state,
    state_path,
    sweep_stale,
)

DEFAULT_PACK_BYTES = 6000
OBJECTIVE_ENV = "ENGRAM_SESSION_OBJECTIVE"  # as engram_load reads it
DEFAULT_DELTA_BYTES = 1500

AFTER_COMPACTION = (
    "The conversation was just compacted. Before continuing: 1) call mem_session_summary with "
    "the compacted summary, 2) call mem_context, 3) then go on with the task."
)


def _budget(env: Mapping[str, str], key: str, default: int) -> int:
    raw = env.get(key, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else default


def respond(
    event: HookEvent,
    env: Mapping[str, str],
    *,
    close_store: bool = True,
    memory: Memory | None = None,
) -> str:
    """Do what ``event`` calls for and return the host's answer text ("" for no output).

    ``close_store=False``: the caller's process ends right after (see :func:`open_memory`).
    ``memory``: a store already open (``engram serve``), used instead of opening one."""
    if event.moment is Moment.OTHER:
        return empty_answer(event.host, event.name)
    if memory is not None:
        return _respond(memory, event, env)
    with open_memory(env, close=close_store) as opened:
        return _respond(opened, event, env)


def _respond(memory: Memory, event: HookEvent, env: Mapping[str, str]) -> str:
    """One event against an open store."""
    project = memory.project_for(event.cwd, env)
    path = state_path(memory.data_dir, event.host, event.session_id or "no-session")
    state = load_state(path)
    if event.moment is Moment.END:
        memory.end_session(event.session_id)
        forget_state(path)
        return empty_answer(event.host, event.name)
    if event.moment is Moment.COMPACTING:
        state.compacted = True
        save_state(path, state)
        return empty_answer(event.host, event.name)
    context = _context(memory, event, project, state, env)
    state.project = project
    save_state(path, state)
    return context_answer(event.host, event.name, context)


def _context(
    memory: Memory,
    event: HookEvent,
    project: str,
    state: SessionState,
    env: Mapping[str, str],
) -> str:
    """Record what the moment records, and build the context it injects ("" for none)."""
    if event.moment is Moment.START:
        sweep_stale(os.path.dirname(state_path(memory.data_dir, event.host, "x")))
    context = _injection(memory, event, project, state, env)
    # Bookkeeping after the pack, so the pack does not list the session that just started.
    if event.moment is not Moment.PROMPT or event.prompt.strip():
        memory.start_session(event.session_id, project, event.cwd)
    if event.moment is Moment.PROMPT and event.prompt.strip():
        memory.record_prompt(event.session_id, project, event.prompt)
    return context


def _injection(
    memory: Memory,
    event: HookEvent,
    project: str,
    state: SessionState,
    env: Mapping[str, str],
) -> str:
    """The pack (start, after compaction) or only what changed (prompt); "" for none."""
    if not can_inject(event.host, event.name):
        return ""
    full = event.moment is not Moment.PROMPT or state.compacted or state.project != project
    if full:
        pack, newest = memory.pack(
            project,
            _budget(env, "ENGRAM_HOOK_PACK_BYTES", DEFAULT_PACK_BYTES),
            event.cwd,
            env.get(OBJECTIVE_ENV, ""),
        )
        state.shown_upto = max(state.shown_upto, newest)
        compacted = event.moment is Moment.AFTER_COMPACT or state.compacted
        state.compacted = False
        return f"{AFTER_COMPACTION}\n\n{pack}" if compacted and pack else pack
    budget = _budget(env, "ENGRAM_HOOK_DELTA_BYTES", DEFAULT_DELTA_BYTES)
    delta, newest = memory.changes_since(project, state.shown_upto, budget)
    state.shown_upto = max(state.shown_upto, newest)
    return delta
