"""Parameters several ``mem_*`` tools share, so each is described once."""

from __future__ import annotations

from engram.identifiers import MAX_INTEGER
from engram.server.registry import Param

MAX_ID = MAX_INTEGER

TYPE = Param(
    "type",
    "string",
    "decision | architecture | bugfix | pattern | config | discovery | learning | preference",
    max_length=64,
)
SCOPE = Param(
    "scope",
    "string",
    "project (default) | personal | global",
    enum=("project", "personal", "global"),
)
PROJECT_READ = Param(
    "project", "string", "Known project to use instead of the detected one", max_length=128
)
PROJECT_WRITE = Param(
    "project",
    "string",
    "Project to write to; must be backed by stored memories, the session or .engram/config.json",
    max_length=128,
)
SESSION_ID = Param("session_id", "string", "Session id this belongs to", max_length=256)
CHOICE_REASON = Param(
    "project_choice_reason",
    "string",
    "user_selected_after_ambiguous_project when retrying after an ambiguous_project error",
    enum=("user_selected_after_ambiguous_project",),
)
RECOVERY_TOKEN = Param(
    "recovery_token", "string", "The recovery_token from the ambiguous_project error"
)
LIMIT = Param("limit", "integer", "Maximum results", minimum=1, maximum=100, clamp=True)


def expected_project(tool: str) -> Param:
    """The owner assertion mem_update and mem_delete require (seed: never filled in for you)."""
    return Param(
        "expected_project",
        "string",
        "Project you believe owns the observation (required; checked, never looked up)",
        required=True,
        max_length=128,
        missing=f'pass the project you believe owns the observation, e.g. {{"id": 42, '
        f'"expected_project": "my-project"}} — {tool} never reads the observation to fill it in '
        "(mem_current_project names the current project)",
    )


def obs_id(description: str, name: str = "id", required: bool = True) -> Param:
    """An observation id argument."""
    return Param(name, "integer", description, required=required, minimum=1, maximum=MAX_ID)
