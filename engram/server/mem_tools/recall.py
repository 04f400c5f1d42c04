"""Recall: mem_search, mem_context and mem_timeline — read-only, one engram.memory call each."""

from __future__ import annotations

from typing import Any

from engram.errors import EngramError
from engram.memory import context, prompts, search, timeline
from engram.memory.fence import one_line
from engram.memory.project import ProjectDetection
from engram.server.envelope import ToolOutcome
from engram.server.mem_tools.context import STATE, answer, cwd, read_project
from engram.server.mem_tools.params import PROJECT_READ, SCOPE, TYPE, obs_id
from engram.server.registry import Param, ToolCall, ToolSpec, register

AGENT = frozenset({"agent"})
ADMIN = frozenset({"admin"})

CONTEXT_DEFAULT_BYTES = 16 * 1024
CONTEXT_MAX_BYTES = 64 * 1024
PREVIEW_CHARS = 300
PROMPT_MATCHES = 5


def _scoped_project(call: ToolCall) -> tuple[ProjectDetection, str | None]:
    """The detection to report and the project filter (None: every project)."""
    if call.get("all_projects"):
        return ProjectDetection("", "all_projects", cwd=str(cwd())), None
    if call.get("scope") == "personal" and call.get("project") is None:
        # Personal memories follow the person across projects.
        return ProjectDetection("", "personal_scope", cwd=str(cwd())), None
    detection = read_project(call.get("project"))
    return detection, detection.project


def _mode(call: ToolCall) -> str:
    """``mode``, or the Go tool's ``match_mode`` (the same values); both must agree."""
    mode, alias = call.get("mode"), call.get("match_mode")
    if mode is not None and alias is not None and mode != alias:
        raise EngramError(
            "server.bad_argument",
            f"mode {mode!r} and match_mode {alias!r} disagree",
            "pass one of them (match_mode is the Go tool's name for mode)",
            argument="match_mode",
        )
    return str(mode or alias or "all")


def run_search(call: ToolCall) -> ToolOutcome:
    """mem_search: ranked full-text search with type / project / scope filters."""
    detection, project = _scoped_project(call)
    hits = search.search(
        STATE.store(),
        call.get("query"),
        project=project,
        type=call.get("type"),
        scope=call.get("scope"),
        limit=call.get("limit"),
        mode=_mode(call),
    )
    if not hits:
        blocks = [f"No memories found for {call.get('query')!r}."]
    else:
        blocks = [f"Found {len(hits)} {'memory' if len(hits) == 1 else 'memories'}:"]
        for n, hit in enumerate(hits, 1):
            blocks.append(_hit_text(n, hit))
    asked = [_previewed(prompt.to_dict()) for prompt in _matching_prompts(call, project)]
    if asked:
        blocks.append(f"Prompts the user wrote that match ({len(asked)}; not memories):")
        blocks.extend(_prompt_text(prompt) for prompt in asked)
    outcome = answer(detection, "\n\n".join(blocks), [_previewed(hit.to_dict()) for hit in hits])
    outcome.data["prompts"] = asked
    return outcome


def _matching_prompts(call: ToolCall, project: str | None) -> list[Any]:
    """Recorded user prompts matching the query — only when no type or scope narrows the search
    (prompts have neither)."""
    if call.get("type") or call.get("scope") not in (None, "project"):
        return []
    return prompts.search_prompts(
        STATE.store(),
        call.get("query"),
        project=project,
        limit=PROMPT_MATCHES,
        mode=_mode(call),
    )


def _prompt_text(prompt: dict[str, Any]) -> str:
    """A matching prompt (its previewed data) for the text answer."""
    head = f"prompt #{prompt['id']} · project: {prompt['project']} · {prompt['created_at']}"
    return f"{head}\n{prompt['content']}"


def _previewed(data: dict[str, Any]) -> dict[str, Any]:
    """A hit's or a prompt's data with a content preview: the get tools return the full text."""
    content = data.get("content") or ""
    if len(content) > PREVIEW_CHARS:
        data["content"] = content[:PREVIEW_CHARS] + "…"
        data["content_truncated"] = True
    return data


def _hit_text(n: int, hit: Any) -> str:
    obs = hit.observation
    preview = (
        obs.content if len(obs.content) <= PREVIEW_CHARS else obs.content[:PREVIEW_CHARS] + "…"
    )
    lines = [f"[{n}] #{obs.id} ({obs.type}) {obs.title}", preview]
    lines.extend(hit.annotations)
    origin = f" · {one_line(obs.origin)}" if obs.origin else ""
    lines.append(f"project: {obs.project} · scope: {obs.scope} · {obs.created_at}{origin}")
    if hit.state in ("needs_review", "stale"):
        lines.append(f"state: {hit.state}")
    return "\n".join(lines)


def run_context(call: ToolCall) -> ToolOutcome:
    """mem_context: recent sessions, prompts, pinned and recent observations (16 KiB budget)."""
    detection, project = _scoped_project(call)
    max_bytes = call.get("max_bytes")
    if not isinstance(max_bytes, int) or max_bytes <= 0:
        max_bytes = CONTEXT_DEFAULT_BYTES
    result = context.build_context(
        STATE.store(),
        project=project,
        scope=call.get("scope"),
        observations_limit=call.get("limit", 0),
        compact=bool(call.get("compact", False)),
        max_bytes=min(max_bytes, CONTEXT_MAX_BYTES),
    )
    return answer(detection, result.text, result.to_dict())


def run_timeline(call: ToolCall) -> ToolOutcome:
    """mem_timeline: what was saved just before and after one observation, in its session."""
    detection = read_project(call.get("project"))
    found = timeline.timeline(
        STATE.store(),
        call.get("observation_id"),
        before=call.get("before"),
        after=call.get("after"),
        project=detection.project,
    )
    lines = [f"Timeline around #{found.focus.id} ({found.focus.title}):"]
    lines += [f"  before #{o.id} [{o.type}] {o.title}" for o in found.before]
    lines.append(f"→ #{found.focus.id} [{found.focus.type}] {found.focus.title}")
    lines += [f"  after  #{o.id} [{o.type}] {o.title}" for o in found.after]
    return answer(detection, "\n".join(lines), found.to_dict())


register(
    ToolSpec(
        name="mem_search",
        title="Search memory",
        description="Search persistent memory across sessions (full-text, ranked). Use it when "
        "the user asks to recall past work or before starting something that may have been done "
        "before. Filters: type, project, scope (project | personal | global), limit (max 20). "
        "all_projects: true searches every project. Then mem_get_observation for full content. "
        "Prompts the user wrote that match are listed after the memories (never mixed in).",
        params=(
            Param("query", "string", "Words to search for", required=True, max_length=2000),
            TYPE,
            PROJECT_READ,
            SCOPE,
            Param(
                "limit",
                "integer",
                "Maximum results (default 10; above 20 means 20)",
                minimum=1,
                maximum=20,
                clamp=True,
            ),
            Param("all_projects", "boolean", "Search every project instead of the current one"),
            Param(
                "mode",
                "string",
                "all (default): rows holding every word first, best partial matches after them when"
                " too few; any: best match by score alone",
                enum=("all", "any"),
            ),
            Param("match_mode", "string", "The Go tool's name for mode", enum=("all", "any")),
        ),
        run=run_search,
        family="mem",
        profiles=AGENT,
        read_only=True,
    )
)

register(
    ToolSpec(
        name="mem_context",
        title="Memory context",
        description="Recent memory context for the current project: recent sessions, prompts, "
        "pinned and recent observations. Call it first when the user asks to recall something "
        "or after a compaction. scope: personal without project spans every project.",
        params=(
            PROJECT_READ,
            SCOPE,
            Param(
                "limit",
                "integer",
                "Recent observations to show",
                minimum=1,
                maximum=500,
                clamp=True,
            ),
            Param("compact", "boolean", "Titles only, without content previews"),
            Param(
                "max_bytes",
                "integer",
                "Byte budget for the whole result (default 16384, at most 65536)",
                minimum=1,
                lenient=True,
            ),
        ),
        run=run_context,
        family="mem",
        profiles=AGENT,
        read_only=True,
    )
)

register(
    ToolSpec(
        name="mem_timeline",
        title="Memory timeline",
        description="Progressive disclosure: after a search, show the observations saved just "
        "before and after one observation in the same session.",
        params=(
            obs_id("Observation to centre the timeline on", name="observation_id"),
            Param(
                "before",
                "integer",
                "How many before (default 5)",
                minimum=0,
                maximum=50,
                clamp=True,
            ),
            Param(
                "after", "integer", "How many after (default 5)", minimum=0, maximum=50, clamp=True
            ),
            PROJECT_READ,
        ),
        run=run_timeline,
        family="mem",
        profiles=ADMIN,
        read_only=True,
    )
)
