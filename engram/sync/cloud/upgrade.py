"""``engram cloud upgrade doctor|repair|bootstrap|status|rollback --project P``.

Bringing an existing local project's history into the cloud, in checkpointed stages kept in
``cloud_upgrade_state``: ``bootstrap_started`` (a snapshot of the project's local sync state is
taken) → ``bootstrap_enrolled`` → ``bootstrap_pushed`` → ``bootstrap_verified``. Each stage is
recorded when reached, so ``bootstrap --resume`` continues where a failure stopped. ``rollback``
restores the snapshot (enrollment and cursors) before ``bootstrap_verified`` and is refused
afterwards; it never deletes anything, locally or remotely. Sync and autosync never repair:
only ``repair --apply`` changes local data. While the stages run, the autosync of every other
process of the data dir (``engram serve``, ``engram-mcp``) is paused (see ``pause``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.errors import EngramError
from engram.memory.clock import stamp
from engram.store import sync_cloud, sync_journal
from engram.store.db import Store
from engram.sync.cloud.client import CloudClient, CloudSyncError
from engram.sync.cloud.config import CloudConfig, Remote
from engram.sync.cloud.enrollment import as_user_error
from engram.sync.cloud.journal_repair import apply_fixes, refused_rows
from engram.sync.cloud.pause import autosync_paused
from engram.sync.cloud.replicate import ReplicationReport, local_counts, pull_key, sync_once

VERIFIED = "bootstrap_verified"


@dataclass
class Diagnosis:
    """``ready`` or ``blocked``, with the class (``ready``/``repairable``/``blocked``) and a
    deterministic reason code."""

    project: str
    status: str
    repair_class: str
    reason_code: str
    message: str
    findings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def diagnose(store: Store, data_dir: Path, project: str) -> Diagnosis:
    """Read-only readiness of ``project`` for the cloud."""
    remote = CloudConfig.load(data_dir).remote_for(project)
    if remote is None:
        return Diagnosis(
            project, "blocked", "blocked", "cloud_config_error", "no cloud server is configured"
        )
    with store.locked() as conn:
        untitled = sync_cloud.untitled_observations(conn, project)
    refused = refused_rows(store, project, remote.target_key)
    findings = [f"observation {sync_id} has no title" for sync_id, _ in untitled]
    findings += [row.describe() for row in refused]
    if any(row.fix is None for row in refused):
        return Diagnosis(
            project,
            "blocked",
            "blocked",
            "invalid_journal_rows",
            f"{len(refused)} pending journal row(s) the cloud refuses, some with no safe fix",
            findings,
        )
    if untitled:
        return Diagnosis(
            project,
            "blocked",
            "repairable",
            "untitled_observations",
            f"{len(untitled)} observation(s) have no title (the cloud refuses them)",
            findings,
        )
    if refused:
        return Diagnosis(
            project,
            "blocked",
            "repairable",
            "invalid_journal_rows",
            f"{len(refused)} pending journal row(s) the cloud refuses (invalid_mutation)",
            findings,
        )
    try:
        CloudClient(remote, timeout=10).health()
    except CloudSyncError as exc:
        return Diagnosis(project, "blocked", "blocked", exc.reason_code, exc.message)
    return Diagnosis(project, "ready", "ready", "", "ready to bootstrap", findings)


def repair(store: Store, project: str, *, apply: bool, data_dir: Path | None = None) -> list[str]:
    """The local-safe repair actions for ``project`` (applied with ``apply``); no remote call.

    The project's remote in ``data_dir`` (when configured) bounds which journal rows are still
    pending for it; without one, every journal row of the project is checked.
    """
    remote = CloudConfig.load(data_dir).remote_for(project) if data_dir is not None else None
    target_key = remote.target_key if remote is not None else ""
    with store.locked() as conn:
        untitled = sync_cloud.untitled_observations(conn, project)
    refused = [r for r in refused_rows(store, project, target_key) if r.fix is not None]
    actions = [
        f"title observation {sync_id} {_title_from(content)!r}" for sync_id, content in untitled
    ]
    actions += [row.describe() for row in refused]
    if not apply or not actions:
        return actions
    with store.write() as conn:  # every fix and the recorded stage, or none of them
        apply_fixes(conn, project, refused)
        for sync_id, content in untitled:
            sync_cloud.set_title(conn, sync_id, _title_from(content))
        if untitled:
            sync_cloud.drop_untitled_journal_rows(conn, project, 0)
        sync_cloud.save_upgrade_state(
            conn,
            project,
            stamp(),
            stage="repaired",
            repair_class="ready",
            actions=json.dumps(actions),
        )
    return actions


def _title_from(content: str) -> str:
    first = next((line.strip() for line in content.splitlines() if line.strip()), "")
    return (first[:80] or "untitled").strip()


def _state(store: Store, project: str) -> dict[str, Any]:
    with store.locked() as conn:
        return sync_cloud.upgrade_state(conn, project) or {}


def _save(store: Store, project: str, **fields: str | None) -> None:
    with store.write() as conn:
        sync_cloud.save_upgrade_state(conn, project, stamp(), **fields)


def bootstrap(store: Store, data_dir: Path, project: str) -> dict[str, Any]:
    """Run (or resume) the checkpointed enroll → push → verify flow; returns the final state.

    Raises:
        EngramError: the doctor's blocking reason, or the cloud failure of a stage (its
            checkpoint is kept for ``--resume``).
    """
    stage = _state(store, project).get("stage") or ""
    if stage == VERIFIED:
        return _state(store, project)
    diagnosis = diagnose(store, data_dir, project)
    if diagnosis.status != "ready":
        _save(
            store,
            project,
            stage=stage or "blocked",
            repair_class=diagnosis.repair_class,
            error=f"{diagnosis.reason_code}: {diagnosis.message}",
        )
        raise EngramError(
            f"cloud.{diagnosis.reason_code}",
            f"{diagnosis.reason_code}: {diagnosis.message}",
            f"run engram cloud upgrade repair --project {project} --apply"
            if diagnosis.repair_class == "repairable"
            else "see engram cloud upgrade doctor",
        )
    remote = CloudConfig.load(data_dir).remote_for(project)
    assert remote is not None
    with autosync_paused(store, remote):
        _run_stages(store, remote, project, stage)
    if local_counts(store, remote, project)["pending_mutations"]:
        raise EngramError(
            "cloud.transport_failed",
            "transport_failed: verification found mutations still pending",
            f"engram cloud upgrade bootstrap --project {project} --resume",
        )
    _save(store, project, stage=VERIFIED, repair_class="ready", error=None)
    return _state(store, project)


def _run_stages(store: Store, remote: Remote, project: str, stage: str) -> None:
    """Snapshot, enroll, push, pull — while every autosync of this data dir is paused."""
    if stage in ("", "blocked", "repaired"):
        _save(store, project, stage="bootstrap_started", snapshot=_snapshot(store, remote, project))
    with store.write() as conn:
        sync_cloud.enroll(conn, project, stamp())
        sync_cloud.save_upgrade_state(conn, project, stamp(), stage="bootstrap_enrolled")
    try:
        sync_once(store, remote, project, pull_after=False)
        _save(store, project, stage="bootstrap_pushed")
        sync_once(store, remote, project, push_first=False)
    except CloudSyncError as exc:
        _save(store, project, error=f"{exc.reason_code}: {exc.message}")
        raise as_user_error(exc, project) from None


def _snapshot(store: Store, remote: Remote, project: str) -> str:
    with store.locked() as conn:
        return json.dumps(
            {
                "enrolled": sync_cloud.is_enrolled(conn, project),
                "target": remote.target_key,
                "push_cursor": sync_journal.cursor(conn, remote.target_key, project),
                "pull_cursor": sync_journal.cursor(conn, pull_key(remote.target_key), project),
            }
        )


def rollback(store: Store, project: str) -> str:
    """Restore the pre-upgrade snapshot; refused once ``bootstrap_verified`` was reached."""
    state = _state(store, project)
    stage = state.get("stage") or ""
    if stage == VERIFIED:
        raise EngramError(
            "cloud.rollback_blocked",
            f"rollback is blocked: project {project!r} reached bootstrap_verified",
            f"to stop replicating, run engram cloud unenroll {project}",
        )
    if not state.get("snapshot"):
        raise EngramError(
            "cloud.rollback_blocked",
            f"no upgrade snapshot for project {project!r}",
            "nothing to roll back",
        )
    snapshot = json.loads(str(state["snapshot"]))
    target = str(snapshot["target"])
    with store.write() as conn:
        if not snapshot["enrolled"]:
            sync_cloud.unenroll(conn, project)
        sync_cloud.reset_cursor(conn, target, project, int(snapshot["push_cursor"]))
        sync_cloud.reset_cursor(conn, pull_key(target), project, int(snapshot["pull_cursor"]))
        sync_cloud.clear_upgrade_state(conn, project)
    return stage


def upgrade_status(store: Store, project: str) -> dict[str, Any]:
    """The recorded stage, class and reason (``not_started`` when there is none)."""
    state = _state(store, project)
    error = str(state.get("error") or "")
    return {
        "project": project,
        "stage": state.get("stage") or "not_started",
        "repair_class": state.get("repair_class") or "",
        "reason_code": error.split(":", 1)[0] if error else "",
        "reason_message": error,
        "updated_at": state.get("updated_at"),
    }


def remirror(store: Store, data_dir: Path, project: str) -> ReplicationReport:
    """Send every journal row of ``project`` again (the server keeps one copy of each)."""
    from engram.sync.cloud.config import require_remote
    from engram.sync.cloud.replicate import require_enrolled

    remote = require_remote(CloudConfig.load(data_dir), project)
    require_enrolled(store, project)
    with store.write() as conn:
        sync_cloud.reset_cursor(conn, remote.target_key, project, 0)
    try:
        return sync_once(store, remote, project, pull_after=False)
    except CloudSyncError as exc:
        raise as_user_error(exc, project) from None
