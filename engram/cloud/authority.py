"""Session authorities and prompt-pair claims (``/sync/session-authorities``,
``/sync/prompt-pair-claims``).

A session is registered explicitly under its owner project (chunks never register one). A
prompt-pair claim is checked against both projects' access first, then the independently
registered session, whose owner must match ``owner_project``. Every "no usable authority"
outcome answers the same 404 (``session_authority_unavailable``), so a caller learns nothing
about sessions it may not see.
"""

from __future__ import annotations

from typing import Any

from engram.cloud.auth import Principal, project_access
from engram.cloud.problems import CloudProblem, invalid
from engram.cloud.settings import CloudSettings
from engram.cloud.store import claims
from engram.cloud.store.db import CloudStore

CLAIM_FIELDS = ("session_id", "source_inbox_id", "sync_id", "owner_project", "project")
UNAVAILABLE = CloudProblem(
    404, "policy", "session_authority_unavailable", "session authority unavailable"
)


def _fields(body: dict[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    unknown = sorted(set(body) - set(names))
    if unknown:
        raise invalid("unknown_fields", f"unknown fields: {', '.join(unknown)}")
    values: dict[str, str] = {}
    for name in names:
        value = body.get(name)
        if not isinstance(value, str) or not value.strip():
            raise invalid("invalid_request", f"{name} must be a non-empty string")
        values[name] = value.strip()
    return values


def register_session(
    store: CloudStore, principal: Principal, body: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    """``(status, body)``: 200 for a new or matching registration, 409 for another owner."""
    fields = _fields(body, ("session_id", "project"))
    with store.transaction() as conn:
        row = claims.register_session(conn, fields["session_id"], fields["project"], principal.id)
    if row["owner_project"] != fields["project"]:
        raise CloudProblem(
            409,
            "blocked",
            "session_owner_conflict",
            f"session {fields['session_id']!r} is registered under another project",
        )
    return 200, {"status": "ok", "session_id": row["session_id"], "project": row["owner_project"]}


def claim_prompt_pair(
    store: CloudStore, settings: CloudSettings, principal: Principal, body: dict[str, Any]
) -> dict[str, Any]:
    """Bind a prompt pair under dual authorization; 200 new/replay, 409 competing, 404."""
    claim = _fields(body, CLAIM_FIELDS)
    with store.transaction() as conn:
        for project in (claim["owner_project"], claim["project"]):
            denial = project_access(conn, settings, principal, project)
            if denial is not None:
                raise CloudProblem(denial.status, "policy", denial.code, denial.message)
        authority = claims.session_authority(conn, claim["session_id"])
        if authority is None or authority["owner_project"] != claim["owner_project"]:
            raise UNAVAILABLE
        bound = claims.claim_prompt_pair(conn, claim, principal.id)
    if not bound:
        raise CloudProblem(409, "blocked", "prompt_pair_conflict", "the pair is already bound")
    return {"status": "ok", **claim}
