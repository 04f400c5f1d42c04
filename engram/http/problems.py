"""HTTP errors: an :class:`HttpProblem` raised by a route, and the status of each EngramError.

Every error body is JSON: ``{"error": <one line>, "code": <stable code>, ...details}``; errors
from engram/memory add their ``remedy``. Codes the seed names (``ambiguous_project``,
``unknown_project``, ``session_project_conflict``...) are used as the seed spells them.
"""

from __future__ import annotations

from typing import Any

from engram.errors import SEED_CODES, EngramError

# EngramError codes that are not a plain 400.
STATUS_BY_CODE: dict[str, int] = {
    "memory.not_found": 404,
    "memory.unknown_session": 404,
    "memory.no_live_session": 404,
    "memory.runtime_scope_conflict": 409,
    "memory.prompt_not_found": 404,
    "memory.unknown_judgment": 404,
    "conflicts.not_found": 404,
    "sync.deferred_not_found": 404,
    "project.unknown": 404,
    "project.ambiguous": 409,
    "project.ownership_ambiguous": 409,
    "project.name_collision": 409,
    "memory.project_mismatch": 409,
    "memory.session_not_empty": 409,
    "memory.session_project_mismatch": 409,
    "memory.session_already_ended": 409,
    "memory.session_project_conflict": 409,
    "memory.project_immutable": 409,
    "project.bad_config": 400,
    "project.unconfirmed": 409,
    "project.binding_unavailable": 500,
    "store.value_out_of_range": 400,
    "store.busy": 503,
}


class HttpProblem(Exception):
    """A refused request: an HTTP status and the JSON body to answer with.

    Args:
        status: the HTTP status code.
        code: a stable error code (``http.bad_json``...).
        error: one line saying what is wrong.
        details: extra fields for the body.
    """

    def __init__(self, status: int, code: str, error: str, **details: Any) -> None:
        super().__init__(error)
        self.status = status
        self.body: dict[str, Any] = {"error": error, "code": code, **details}


def bad_request(code: str, error: str, **details: Any) -> HttpProblem:
    """A 400 for input the route cannot use."""
    return HttpProblem(400, code, error, **details)


def from_engram_error(exc: EngramError) -> HttpProblem:
    """The HTTP answer for an error raised by engram/memory."""
    status = STATUS_BY_CODE.get(exc.code)
    if status is None:
        status = 500 if exc.code.startswith("store.") else 400
    code = SEED_CODES.get(exc.code, exc.code)
    if status == 500:
        return HttpProblem(500, code, "the local store failed to answer")
    if exc.code in SEED_CODES:  # the seed's envelope, exactly: {error, code, ...its fields}
        return HttpProblem(status, code, exc.message, **exc.details)
    return HttpProblem(status, code, exc.message, remedy=exc.remedy, **exc.details)
