"""Rescue ownership: give explicitly selected legacy rows that carry no project an owner.

The whole plan is decided before anything is written: which sessions, observations and prompts
move. Rows owned by any project are never reassigned. An unowned session that already parents a
record of another project stays where it is, and an unowned record whose session belongs to
another project stays too, so nothing is moved out from under anything. Every selected item that
is left behind is named in ``blocked`` with its reason. A blank project counts as no owner.

A rescued row's new owner reaches the sync journal through the store's journal triggers, in
the same transaction; a row left blank-owned never gets a mutation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from engram.errors import EngramError
from engram.memory.project import normalize_project_name
from engram.store import ownership
from engram.store.db import Store

MISSING = "missing"
OWNED = "owned_by_other_project"
SESSION_OWNED = "session_owned_by_other_project"
DEPENDENT_OWNED = "dependent_record_owned_by_other_project"


@dataclass(frozen=True, slots=True)
class Blocked:
    """A selected item left behind: ``kind`` session/observation/prompt and why."""

    kind: str
    id: str | int
    reason: str
    owned_by: str = ""


@dataclass
class RescueReport:
    """What a rescue moved and what it left behind."""

    target_project: str
    rescued_sessions: int = 0
    rescued_observations: int = 0
    rescued_prompts: int = 0
    skipped_records: int = 0
    blocked: list[Blocked] = field(default_factory=list)

    @property
    def rescued(self) -> int:
        """How many rows got the target project."""
        return self.rescued_sessions + self.rescued_observations + self.rescued_prompts

    @property
    def complete(self) -> bool:
        """Everything selected now belongs to the target project."""
        return not self.blocked

    def to_dict(self) -> dict[str, Any]:
        """The seed's response body."""
        return {
            "status": "rescued" if self.complete else "partially_rescued",
            "complete": self.complete,
            "blocked": [asdict(b) for b in self.blocked],
            "target_project": self.target_project,
            "rescued_observations": self.rescued_observations,
            "rescued_sessions": self.rescued_sessions,
            "rescued_prompts": self.rescued_prompts,
            "conflicting_records": sum(1 for b in self.blocked if b.reason != MISSING),
            "skipped_records": self.skipped_records,
            # The sync journal records every change of a row's project in the same transaction
            # (store triggers): a rescued row always has a pending local mutation.
            "journaled_local": self.rescued > 0,
            "reconciliation_status": "pending" if self.rescued > 0 else "nothing_to_reconcile",
        }


def rescue_ownership(
    store: Store,
    target_project: str,
    *,
    session_ids: Sequence[str] = (),
    observation_ids: Sequence[int] = (),
    prompt_ids: Sequence[int] = (),
) -> RescueReport:
    """Assign ``target_project`` to the selected unowned rows (see the module docstring).

    Raises:
        EngramError: ``project.invalid_name``; ``memory.rescue_nothing_selected`` when no
            positive id or non-blank session id is given.
    """
    target = normalize_project_name(target_project).name
    sids = list(dict.fromkeys(s.strip() for s in session_ids if s.strip()))
    oids = list(dict.fromkeys(i for i in observation_ids if i > 0))
    pids = list(dict.fromkeys(i for i in prompt_ids if i > 0))
    if not (sids or oids or pids):
        raise EngramError(
            "memory.rescue_nothing_selected",
            "select at least one session, observation or prompt to rescue",
            "pass --session / --observation / --prompt ids (positive ids, non-blank sessions)",
        )
    report = RescueReport(target)
    with store.write() as conn:
        moving_sessions = _plan_sessions(conn, sids, target, report)
        moving_obs = _plan_records(conn, "observation", oids, target, report)
        moving_prompts = _plan_records(conn, "prompt", pids, target, report)
        report.rescued_sessions = ownership.assign_sessions(conn, moving_sessions, target)
        report.rescued_observations = ownership.assign_observations(conn, moving_obs, target)
        report.rescued_prompts = ownership.assign_prompts(conn, moving_prompts, target)
    return report


def rescue_legacy_rows(store: Store, target_project: str) -> RescueReport:
    """Rescue every legacy row of ``target_project`` (``rescue-ownership --project P`` without
    ids): the unowned sessions whose directory is detected as that project, and the unowned
    observations and prompts of those sessions or of sessions the project already owns."""
    target = normalize_project_name(target_project).name
    with store.read() as conn:
        unowned = ownership.unowned_sessions(conn)
    sessions = [sid for sid, directory in unowned if _directory_project(directory) == target]
    with store.read() as conn:
        observation_ids, prompt_ids = ownership.unowned_records_of(conn, sessions, target)
    if not (sessions or observation_ids or prompt_ids):
        return RescueReport(target)
    return rescue_ownership(
        store,
        target,
        session_ids=sessions,
        observation_ids=observation_ids,
        prompt_ids=prompt_ids,
    )


def _directory_project(directory: str) -> str:
    """The project a session's directory stands for ("" when it names none)."""
    import os

    from engram.memory.project import detect_project

    if not directory.strip():
        return ""
    try:
        if os.path.isdir(directory):
            return detect_project(directory).project
        return normalize_project_name(os.path.basename(directory.rstrip("/\\"))).name
    except EngramError:
        return ""


def _plan_sessions(conn: Any, ids: list[str], target: str, report: RescueReport) -> list[str]:
    moving = []
    for sid in ids:
        owner = ownership.session_owner(conn, sid)
        if owner is None:
            report.blocked.append(Blocked("session", sid, MISSING))
        elif owner.project == target:
            report.skipped_records += 1
        elif owner.project:
            report.blocked.append(Blocked("session", sid, OWNED, owner.project))
        elif ownership.foreign_dependents(conn, sid, target):
            report.blocked.append(Blocked("session", sid, DEPENDENT_OWNED))
        else:
            moving.append(sid)
    return moving


def _plan_records(
    conn: Any, kind: str, ids: list[int], target: str, report: RescueReport
) -> list[int]:
    lookup = ownership.observation_owner if kind == "observation" else ownership.prompt_owner
    chosen = []
    for row_id in ids:
        owner = lookup(conn, row_id)
        if owner is None:
            report.blocked.append(Blocked(kind, row_id, MISSING))
            continue
        if owner.project == target:
            report.skipped_records += 1
            continue
        if owner.project:
            report.blocked.append(Blocked(kind, row_id, OWNED, owner.project))
            continue
        parent = ownership.session_owner(conn, owner.session_id) if owner.session_id else None
        if parent and parent.project and parent.project != target:
            report.blocked.append(Blocked(kind, row_id, SESSION_OWNED, parent.project))
            continue
        chosen.append(row_id)
    return chosen
