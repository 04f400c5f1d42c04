"""The memory context an agent reads at session start: sessions, prompts, pinned and recent
observations, rendered as Markdown.

Per-section counts: ``0`` means the section's default, ``> 0`` caps it (at most 500), ``< 0``
leaves the section and its ``###`` header out. ``compact`` drops the content preview from
observation bullets (``- [type] **title** (#id)``). ``max_bytes > 0`` caps the whole text
(at most 64 KiB) without splitting a UTF-8 character and appends ``[truncated]`` when the
marker fits; ``max_bytes <= 0`` means no cap.

Memories whose cited code is gone or moved (:mod:`engram.memory.citations`) are never shown
as current: they leave their section for a last ``### Stale Observations`` list, each with
its reason, which is left out whole when it does not fit. A memory whose cited file merely
changed stays in place, marked ``changed since saved``.

This module is on the hook path: it imports only the store and the clock.
"""

from __future__ import annotations

from engram.store import observations, prompts, sessions
from engram.store.records import Observation, Prompt, Record, Session, record

TYPE_CHECKING = False  # typing and dataclasses cost the hook path more than its work
if TYPE_CHECKING:
    from engram.memory.citations.status import CodeStatus
    from engram.store.db import Store

DEFAULTS = {"sessions": 5, "prompts": 5, "pinned": 20, "observations": 10}
SECTION_CEILING = 500
MAX_BYTES_CEILING = 64 * 1024
TRUNCATION_MARKER = "\n[truncated]"
PREVIEW_CHARS = 200


@record
class ContextResult(Record):
    """The rendered context and what went into it."""

    text: str
    project: str | None
    truncated: bool
    sessions: int
    prompts: int
    pinned: int
    observations: int
    stale: int = 0


def section_size(requested: int | None, section: str) -> int:
    """How many rows a section shows: default for 0/None, capped at 500, -1 when omitted."""
    if requested is None or requested == 0:
        return DEFAULTS[section]
    return -1 if requested < 0 else min(requested, SECTION_CEILING)


def build_context(
    store: Store,
    *,
    project: str | None,
    scope: str | None = None,
    sessions_limit: int | None = 0,
    prompts_limit: int | None = 0,
    pinned_limit: int | None = 0,
    observations_limit: int | None = 0,
    compact: bool = False,
    max_bytes: int | None = 0,
    fenced: bool = False,
) -> ContextResult:
    """Render the context for ``project`` (every project when None); see module docstring.

    ``fenced`` (hooks): every title is cleaned and every body quoted as data
    (:mod:`engram.memory.fence`) before it reaches a host's context.
    """
    sizes = {
        "sessions": section_size(sessions_limit, "sessions"),
        "prompts": section_size(prompts_limit, "prompts"),
        "pinned": section_size(pinned_limit, "pinned"),
        "observations": section_size(observations_limit, "observations"),
    }
    with store.read() as conn:
        sections = _Sections(
            sessions.recent(conn, project=project, limit=sizes["sessions"])
            if sizes["sessions"] >= 0
            else None,
            prompts.recent(conn, project=project, limit=sizes["prompts"])
            if sizes["prompts"] >= 0
            else None,
            observations.pinned(conn, project=project, scope=scope, limit=sizes["pinned"])
            if sizes["pinned"] >= 0
            else None,
            observations.recent(
                conn,
                project=project,
                scope=scope,
                limit=sizes["observations"],
                exclude_pinned=sizes["pinned"] >= 0,
            )
            if sizes["observations"] >= 0
            else None,
        )
        served = [*(sections.pinned or ()), *(sections.recent or ())]
        cited = observations.any_cites_code(conn, [o.id for o in served])
    codes = _code_status(store, served) if cited else {}
    stale = [o for o in served if o.id in codes and codes[o.id].stale]
    if stale:
        sections = _without(sections, {o.id for o in stale})
    style = _Style(fenced, {i: c.label() for i, c in codes.items() if c.state == "changed"})
    text = sections.render(project, compact, style)
    text = _with_stale(text, stale, codes, style, max_bytes)
    text, truncated = fit_bytes(text, max_bytes)
    return ContextResult(
        text,
        project,
        truncated,
        len(sections.sessions or ()),
        len(sections.prompts or ()),
        len(sections.pinned or ()),
        len(sections.recent or ()),
        len(stale),
    )


def _code_status(store: Store, served: list[Observation]) -> dict[int, CodeStatus]:
    """The code status of the served memories, when one of them cites code."""
    from engram.memory.citations.checking import code_status

    return code_status(store, [o.id for o in served])


def _without(sections: _Sections, gone: set[int]) -> _Sections:
    keep = [o for o in sections.pinned or () if o.id not in gone]
    recent = [o for o in sections.recent or () if o.id not in gone]
    return _Sections(
        sections.sessions,
        sections.prompts,
        keep if sections.pinned is not None else None,
        recent if sections.recent is not None else None,
    )


def _with_stale(
    text: str,
    stale: list[Observation],
    codes: dict[int, CodeStatus],
    style: _Style,
    max_bytes: int | None,
) -> str:
    """``text`` and the stale list after it — only when all of it fits ``max_bytes``."""
    if not stale:
        return text
    lines = ["", "### Stale Observations (the code they cite moved or is gone)"]
    lines += [
        f"{_observation_line(o, True, style)} — {style.label(codes[o.id].label())}" for o in stale
    ]
    full = text + "\n".join(lines) + "\n"
    if max_bytes is not None and max_bytes > 0 and len(full.encode("utf-8")) > max_bytes:
        return text
    return full


@record
class _Sections:
    """The rows of each section (None: the section is omitted)."""

    sessions: list[Session] | None
    prompts: list[Prompt] | None
    pinned: list[Observation] | None
    recent: list[Observation] | None

    def render(self, project: str | None, compact: bool, style: _Style) -> str:
        head = f"## Memory context — project: {style.label(project)}" if project else None
        lines = [head or "## Memory context"]
        if self.sessions is not None:
            lines += ["", "### Recent Sessions"]
            lines += [_session_line(s, style) for s in self.sessions] or ["- (none)"]
        if self.prompts is not None:
            lines += ["", "### Recent Prompts"]
            lines += [
                f"- {style.label(p.created_at)}: {style.body(_preview(p.content, 160))}"
                for p in self.prompts
            ] or ["- (none)"]
        if self.pinned is not None:
            lines += ["", "### Pinned Observations"]
            lines += [_observation_line(o, compact, style) for o in self.pinned] or ["- (none)"]
        if self.recent is not None:
            lines += ["", "### Recent Observations"]
            lines += [_observation_line(o, compact, style) for o in self.recent] or ["- (none)"]
        return "\n".join(lines) + "\n"


def _preview(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


@record
class _Style:
    """Plain Markdown, or (``fenced``) labels cleaned and bodies quoted as data."""

    fenced: bool = False
    changed: dict[int, str] | None = None  # observation id -> "<path> changed since saved"

    def label(self, text: str) -> str:
        if not self.fenced:
            return text
        from engram.memory.fence import one_line

        return one_line(text)

    def body(self, text: str) -> str:
        if not self.fenced:
            return text
        from engram.memory.fence import quoted

        return quoted(text)


def _session_line(session: Session, style: _Style) -> str:
    status = "ended" if session.ended_at else "active"
    line = f"- {style.label(session.started_at)} · {style.label(session.id)} ({status})"
    return f"{line}: {style.body(_preview(session.summary, 160))}" if session.summary else line


def _observation_line(observation: Observation, compact: bool, style: _Style) -> str:
    title = style.label(observation.title)
    head = f"- [{style.label(observation.type)}] **{title}** (#{observation.id})"
    note = (style.changed or {}).get(observation.id)
    if note:
        head += f" ({style.label(note)})"
    if observation.origin:
        head += f" ({style.label(observation.origin)})"
    if compact:
        return head
    return f"{head}: {style.body(_preview(observation.content, PREVIEW_CHARS))}"


def fit_bytes(text: str, max_bytes: int | None) -> tuple[str, bool]:
    """Cap ``text`` at ``max_bytes`` UTF-8 bytes (at most 64 KiB; <= 0 means no cap), appending
    ``[truncated]`` when the marker fits. Returns the text and whether it was cut."""
    if max_bytes is None or max_bytes <= 0:
        return text, False
    budget = min(max_bytes, MAX_BYTES_CEILING)
    encoded = text.encode("utf-8")
    if len(encoded) <= budget:
        return text, False
    marker = TRUNCATION_MARKER.encode("utf-8")
    room = budget - len(marker) if len(marker) <= budget else budget
    kept = encoded[:room].decode("utf-8", errors="ignore")
    return (kept + TRUNCATION_MARKER if len(marker) <= budget else kept), True
