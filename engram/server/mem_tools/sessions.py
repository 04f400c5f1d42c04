"""Sessions: mem_session_start, mem_session_end and mem_session_summary."""

from __future__ import annotations

from pathlib import Path

from engram.errors import EngramError
from engram.memory import project as projects_id
from engram.memory import sessions
from engram.memory.project import ProjectDetection
from engram.server.envelope import ToolOutcome
from engram.server.mem_tools.context import (
    STATE,
    answer,
    cwd,
    require_bound,
    session_or_live,
    with_similar_warning,
    write_project,
)
from engram.server.mem_tools.params import (
    CHOICE_REASON,
    PROJECT_WRITE,
    RECOVERY_TOKEN,
    SESSION_ID,
)
from engram.server.options import current_options
from engram.server.registry import Param, ToolCall, ToolSpec, register

AGENT = frozenset({"agent"})

SUMMARY_FORMAT = """## Goal
## Instructions
## Discoveries
## Accomplished
## Next Steps
## Relevant Files"""


def _start_detection(directory: str | None) -> ProjectDetection:
    if directory:
        folder = Path(directory).expanduser()
        if not folder.is_absolute() or not folder.is_dir():
            raise EngramError(
                "server.bad_directory",
                f"directory {directory!r} is not an existing absolute folder",
                "pass the absolute path of the project folder, or leave directory out",
            )
        detection = projects_id.detect_project(folder)
    elif current_options().project:
        detection = projects_id.resolve_project(
            None, cwd(), process_override=current_options().project
        )
    else:
        detection = projects_id.detect_project(cwd())
    projects_id.require_single(detection)
    # An unconfirmed repository records no session; a new project warns of lookalikes.
    return with_similar_warning(require_bound(detection))


def run_start(call: ToolCall) -> ToolOutcome:
    """mem_session_start: register a live session (an ended one is never reopened)."""
    detection = _start_detection(call.get("directory"))
    result = sessions.start_session(
        STATE.store(),
        call.get("id"),
        project=detection.project,
        directory=detection.path or detection.cwd,
    )
    verb = "started" if result.changed else "already active"
    text = f"Session {result.session.id} {verb} for project {result.session.project}"
    return answer(detection, text, result.to_dict())


def run_end(call: ToolCall) -> ToolOutcome:
    """mem_session_end: mark a session ended, with an optional summary."""
    result = sessions.end_session(STATE.store(), call.get("id"), summary=call.get("summary"))
    verb = "ended" if result.changed else "was already ended"
    text = f"Session {result.session.id} {verb}"
    return answer(None, text, result.to_dict())


def run_summary(call: ToolCall) -> ToolOutcome:
    """mem_session_summary: save the end-of-session summary as an observation."""
    detection = write_project(
        call.get("project"),
        call.get("session_id"),
        call.get("project_choice_reason"),
        call.get("recovery_token"),
    )
    session_id = session_or_live(call.get("session_id"), detection)
    result = sessions.save_session_summary(
        STATE.store(), call.get("content"), project=detection.project, session_id=session_id
    )
    text = f"Session summary saved as memory #{result.observation.id} ({result.action})"
    return answer(detection, text, result.to_dict(), result.warnings)


register(
    ToolSpec(
        name="mem_session_summary",
        title="Save session summary",
        description="Save the end-of-session summary. Mandatory before ending a session or "
        "saying done, and right after a compaction. Structure the content as:\n" + SUMMARY_FORMAT,
        params=(
            Param("content", "string", "The summary, in the sections above", required=True),
            PROJECT_WRITE,
            SESSION_ID,
            CHOICE_REASON,
            RECOVERY_TOKEN,
        ),
        run=run_summary,
        family="mem",
        profiles=AGENT,
        read_only=False,
    )
)

register(
    ToolSpec(
        name="mem_session_start",
        title="Start session",
        description="Register the start of a coding session. The project comes from directory "
        "when given, else from the working directory. An ended session id cannot be reused.",
        params=(
            Param("id", "string", "Unique session id", required=True, max_length=256),
            Param("project", "string", "Ignored: the project comes from directory or cwd"),
            Param("directory", "string", "Absolute path of the project folder"),
        ),
        run=run_start,
        family="mem",
        profiles=AGENT,
        read_only=False,
        idempotent=True,
    )
)

register(
    ToolSpec(
        name="mem_session_end",
        title="End session",
        description="Mark a session as completed, with an optional summary.",
        params=(
            Param("id", "string", "Session id to end", required=True, max_length=256),
            Param("summary", "string", "Short summary of the session"),
        ),
        run=run_end,
        family="mem",
        profiles=AGENT,
        read_only=False,
        idempotent=True,
    )
)
