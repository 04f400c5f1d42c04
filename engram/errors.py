"""The one error type every layer raises for problems a user can meet.

Each error carries a stable ``code`` (``store.bad_data_dir``, ``edit.parse_error``...), a
one-line ``message`` and a ``remedy`` saying what to do next. The CLI prints it on one line and
exits 1; the MCP server turns it into a tool error; hooks swallow it and fail open.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the hook path imports this module: no typing at run time
if TYPE_CHECKING:
    from typing import Any


# The seed's wire names for codes it names (the MCP tools and the HTTP API answer with these;
# everything else keeps its dotted code).
SEED_CODES: dict[str, str] = {
    "project.unknown": "unknown_project",
    "memory.unknown_project": "unknown_project",
    "project.ambiguous": "ambiguous_project",
    "project.binding_unavailable": "repository_binding_unavailable",
    "project.name_collision": "project_name_collision",
    "memory.unknown_session": "unknown_session",
    "memory.session_already_ended": "session_already_ended",
    "memory.session_project_conflict": "session_project_conflict",
}


class EngramError(Exception):
    """A problem the user can act on.

    Args:
        code: stable dotted identifier, e.g. ``"memory.empty_title"``.
        message: one line saying what is wrong.
        remedy: one line saying what to do next ("" when there is nothing to do).
        details: extra structured data for JSON surfaces (``available_projects``...).
    """

    def __init__(self, code: str, message: str, remedy: str = "", **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.remedy = remedy
        self.details = details

    def one_line(self) -> str:
        """The message and remedy joined for a terminal: ``message — remedy``."""
        return f"{self.message} — {self.remedy}" if self.remedy else self.message

    @property
    def wire_code(self) -> str:
        """The code as the seed spells it where it names one (``ambiguous_project``), else
        ``code``."""
        return SEED_CODES.get(self.code, self.code)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: ``{code, message, remedy, **details}``."""
        return {"code": self.code, "message": self.message, "remedy": self.remedy, **self.details}
