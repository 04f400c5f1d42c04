"""Journal writes: mem_save, mem_update, mem_save_prompt, mem_capture_passive, plus
mem_get_observation and mem_suggest_topic_key. Each is one call into engram.memory."""

from __future__ import annotations

from engram.errors import EngramError
from engram.memory import observation as obs_ops
from engram.memory import passive, prompts, save, sessions, topic
from engram.memory.fence import one_line
from engram.memory.project import ProjectDetection, normalize_project_name
from engram.server.envelope import ToolOutcome
from engram.server.mem_tools.context import (
    STATE,
    USER_SELECTED,
    answer,
    cwd,
    read_project,
    require_bound,
    session_or_live,
    with_similar_warning,
    write_project,
)
from engram.server.mem_tools.params import (
    CHOICE_REASON,
    MAX_ID,
    PROJECT_READ,
    PROJECT_WRITE,
    RECOVERY_TOKEN,
    SCOPE,
    SESSION_ID,
    TYPE,
    expected_project,
    obs_id,
)
from engram.server.registry import Param, ToolCall, ToolSpec, register

AGENT = frozenset({"agent"})


def _write_target(call: ToolCall) -> tuple[ProjectDetection, str | None]:
    """The project and session a journal write goes to (registering a recovered session)."""
    session_id = call.get("session_id")
    detection = write_project(
        call.get("project"),
        session_id,
        call.get("project_choice_reason"),
        call.get("recovery_token"),
    )
    recovering = call.get("project_choice_reason") == USER_SELECTED and call.get("project")
    # Ambiguity recovery may register an unknown session for the chosen project.
    if recovering and session_id and sessions.get_session(STATE.store(), session_id) is None:
        sessions.start_session(STATE.store(), session_id, project=detection.project)
    return detection, session_or_live(session_id, detection)


def run_save(call: ToolCall) -> ToolOutcome:
    """mem_save: one observation (dedup window, topic upsert, redaction, size limit)."""
    content = call.get("content", call.get("observation"))
    detection, session_id = _write_target(call)
    project = detection.project
    result = save.save_observation(
        STATE.store(),
        title=call.get("title"),
        content=content,
        project=project,
        type=call.get("type"),
        scope=call.get("scope"),
        topic_key=call.get("topic_key"),
        session_id=session_id,
    )
    data = result.to_dict()
    if call.get("capture_prompt", True):
        prompt_id = STATE.prompts.get((project, session_id or ""))
        if prompt_id is not None:
            data["prompt_id"] = prompt_id
    saved = result.observation
    text = f"Memory #{saved.id} {result.action}: {saved.title} [{saved.type}, {saved.scope}]"
    if result.state == "needs_review":
        text += "\nstate: needs_review"
    if result.candidates:
        text += "\nSimilar memories to judge with mem_judge (judgment_required: true):"
        for c in result.candidates:
            text += f"\n- #{c.id} {c.title} [{c.type}] judgment_id={c.judgment_id}"
    return answer(detection, text, data, result.warnings)


def run_update(call: ToolCall) -> ToolOutcome:
    """mem_update: fields or find/replace, asserting the caller's expected_project.

    The assertion never widens what the call may touch: the current project (process override,
    else the working directory) must be the asserted one too.
    """
    expected = normalize_project_name(call.get("expected_project")).name
    current = write_project(None)
    if current.project != expected:
        raise EngramError(
            "project.not_current",
            f"mem_update changes memories of the current project {current.project!r}, "
            f"not {expected!r}; nothing was changed",
            "run the agent in that project's folder (or engram-mcp --project), then retry",
            current_project=current.project,
            expected_project=expected,
        )
    result = obs_ops.update_observation(
        STATE.store(),
        call.get("id"),
        expected_project=call.get("expected_project"),
        title=call.get("title"),
        content=call.get("content"),
        type=call.get("type"),
        scope=call.get("scope"),
        topic_key=call.get("topic_key"),
        find=call.get("find"),
        replace=call.get("replace"),
    )
    verb = "updated" if result.changed else "unchanged"
    text = f"Memory #{result.observation.id} {verb}: {result.observation.title}"
    warnings = ["content was truncated to the size limit"] if result.truncated else []
    return answer(None, text, result.to_dict(), warnings)


def run_get(call: ToolCall) -> ToolOutcome:
    """mem_get_observation: the full content by id alone (seed: the project only selects the
    envelope); with ``include_history`` (or a ``history_cursor``) a page of its earlier
    versions too."""
    fetched = obs_ops.fetch_for_agent(STATE.store(), call.get("id"))
    found = fetched.observation
    detection = _envelope_project(call.get("project"), found.project)
    text = f"#{found.id} [{found.type}] {found.title}\n\n{found.content}"
    if found.origin:  # a teammate's memory says so, and whose
        text = f"#{found.id} [{found.type}] {found.title}\n({one_line(found.origin)})\n\n{found.content}"
    if fetched.code is not None and fetched.code.state != "current":
        text += f"\n\nstate: {fetched.state}\n{fetched.code.label()}"
    outcome = answer(detection, text, fetched.to_dict())
    if call.get("include_history") or call.get("history_cursor"):
        from engram.memory.revisions import history_page

        page = history_page(STATE.store(), found.id, cursor=call.get("history_cursor"))
        outcome.data.update(page.to_dict())
        if page.entries:
            outcome.text = f"{outcome.text}\n\n{page.render()}"
    return outcome


def _envelope_project(explicit: str | None, owner: str) -> ProjectDetection:
    """The read project for the envelope; where the cwd names none (ambiguous), the stored
    owner's (the seed's read-only fallback). An unknown explicit name is still an error."""
    try:
        return read_project(explicit)
    except EngramError as exc:
        if explicit is not None or exc.code != "project.ambiguous":
            raise
        return ProjectDetection(owner, "stored_owner")


def run_suggest_topic_key(call: ToolCall) -> ToolOutcome:
    """mem_suggest_topic_key: a stable family/slug key from type + title (or content)."""
    key = topic.suggest_topic_key(call.get("type"), call.get("title"), call.get("content"))
    return answer(None, key, {"topic_key": key})


def run_save_prompt(call: ToolCall) -> ToolOutcome:
    """mem_save_prompt: record what the user asked (and remember it for capture_prompt).

    ``project`` counts only during ambiguity recovery (with project_choice_reason and the
    recovery_token): a prompt belongs to the session's or the directory's project.
    """
    ignored = []
    recovering = call.get("project_choice_reason") == USER_SELECTED and call.get("recovery_token")
    if call.get("project") is not None and not recovering:
        call.arguments = {k: v for k, v in call.arguments.items() if k != "project"}
        ignored.append(
            "project was ignored: a prompt is saved to the session's or the directory's project "
            "(project counts only during ambiguity recovery)"
        )
    detection, session_id = _write_target(call)
    project = detection.project
    result = prompts.save_prompt(
        STATE.store(), call.get("content"), project=project, session_id=session_id
    )
    STATE.prompts[(project, session_id or "")] = result.prompt.id
    text = f"Prompt #{result.prompt.id} saved for {project}"
    return answer(detection, text, result.to_dict(), [*ignored, *result.warnings])


def run_capture_passive(call: ToolCall) -> ToolOutcome:
    """mem_capture_passive: save each ``## Key Learnings:`` item (cwd project only)."""
    from engram.memory.project import detect_project, require_single

    detection = detect_project(cwd())
    require_single(detection)
    detection = with_similar_warning(require_bound(detection))
    project = detection.project
    session_id = session_or_live(call.get("session_id"), detection)
    result = passive.capture_passive(
        STATE.store(), call.get("content"), project=project, session_id=session_id
    )
    text = (
        f"Found {result.found} learnings: saved {len(result.saved_ids)}, "
        f"skipped {result.skipped} duplicates"
    )
    return answer(detection, text, result.to_dict())


SAVE_DESCRIPTION = """Save an observation to persistent memory. Call it right after a bug fix, \
a design decision, a non-obvious discovery, a config change, an established pattern or a \
learned user preference.
title: short and searchable, verb + what (e.g. "Fixed N+1 query in UserList").
type: decision | architecture | bugfix | pattern | config | discovery | learning | preference.
scope: project (default) | personal | global.
topic_key: optional stable key (e.g. architecture/auth-model); saving the same key again \
updates that memory instead of adding one (see mem_suggest_topic_key).
content: **What** / **Why** / **Where** / **Learned**.
Exact duplicates within 15 minutes are counted, not stored twice. <private>...</private> is \
redacted before storage."""

register(
    ToolSpec(
        name="mem_save",
        title="Save memory",
        description=SAVE_DESCRIPTION,
        params=(
            Param("title", "string", "Short, searchable title", required=True),
            Param("content", "string", "What / Why / Where / Learned"),
            Param("observation", "string", "Legacy alias of content (prefer content)"),
            TYPE,
            SCOPE,
            Param("topic_key", "string", "Stable topic key to upsert an evolving memory"),
            PROJECT_WRITE,
            SESSION_ID,
            CHOICE_REASON,
            RECOVERY_TOKEN,
            Param(
                "capture_prompt",
                "boolean",
                "Report this process's current prompt with the save (default true; "
                "automated saves pass false)",
            ),
        ),
        run=run_save,
        family="mem",
        profiles=AGENT,
        read_only=False,
    )
)

register(
    ToolSpec(
        name="mem_update",
        title="Update memory",
        description="Update an observation by id. expected_project (the project you believe "
        "owns it) is required. Change title, content, type, scope or topic_key, or replace "
        "literal text with find + replace (case-sensitive, every occurrence; not with content).",
        params=(
            obs_id("Observation id to update"),
            expected_project("mem_update"),
            Param("title", "string", "New title"),
            Param("content", "string", "New content (replaces it all)"),
            Param("find", "string", "Literal text to replace (needs replace)"),
            Param("replace", "string", "Replacement for every occurrence of find"),
            TYPE,
            SCOPE,
            Param("topic_key", "string", "New topic key"),
        ),
        run=run_update,
        family="mem",
        profiles=AGENT,
        read_only=False,
    )
)

register(
    ToolSpec(
        name="mem_get_observation",
        title="Get memory",
        description="Get the full, untruncated content of one observation by id (after "
        "mem_search or mem_context showed a preview).",
        params=(
            obs_id("Observation id to retrieve"),
            PROJECT_READ,
            Param(
                "include_history",
                "boolean",
                "Also return its earlier versions (newest 50, oldest first)",
            ),
            Param(
                "history_cursor",
                "integer",
                "The history_cursor of a previous answer: the next older page of versions",
                minimum=0,
                maximum=MAX_ID,
            ),
        ),
        run=run_get,
        family="mem",
        profiles=AGENT,
        read_only=True,
    )
)

register(
    ToolSpec(
        name="mem_suggest_topic_key",
        title="Suggest topic key",
        description="Suggest a stable topic_key (family/slug, e.g. architecture/auth-model) "
        "from type + title (or content). Use it before mem_save for evolving topics.",
        params=(
            TYPE,
            Param("title", "string", "Title of the memory"),
            Param("content", "string", "Content, used when there is no title"),
        ),
        run=run_suggest_topic_key,
        family="mem",
        profiles=AGENT,
        read_only=True,
    )
)

register(
    ToolSpec(
        name="mem_capture_passive",
        title="Capture learnings",
        description="Extract the items of a '## Key Learnings:' section from text and save "
        "each as a learning observation; duplicates are skipped. The project comes from the "
        "working directory.",
        params=(
            Param("content", "string", "Text containing a ## Key Learnings: section", True),
            SESSION_ID,
            Param("source", "string", "Where the text came from (informational)"),
        ),
        run=run_capture_passive,
        family="mem",
        profiles=AGENT,
        read_only=False,
    )
)

register(
    ToolSpec(
        name="mem_save_prompt",
        title="Save prompt",
        description="Save the user's prompt so later sessions know what the user asked. "
        "Redacted and size-limited like mem_save.",
        params=(
            Param("content", "string", "The user's prompt", required=True),
            SESSION_ID,
            PROJECT_WRITE,
            CHOICE_REASON,
            RECOVERY_TOKEN,
        ),
        run=run_save_prompt,
        family="mem",
        profiles=AGENT,
        read_only=False,
    )
)
