"""``GET /sync/status`` on ``engram serve``: one project's cloud sync state (the git
transport's state, with ``cloud_not_configured``, when no cloud is configured).

Deterministic reasons (the Cloud Status Visibility Matrix): ``cloud_not_configured`` when no
cloud server is configured, ``blocked_unenrolled`` for a project not enrolled, then the last
outcome's ``auth_required`` / ``policy_forbidden`` / ``paused`` / ``transport_failed`` — live
from the autosync worker when one runs, else from the persisted ``sync_state``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engram.memory.sync_status import fallback_status, set_sync_status_provider
from engram.store import sync_cloud, sync_deferred
from engram.store.db import Store
from engram.sync.cloud.autosync import (
    PROJECT_REASONS,
    AutosyncManager,
    WorkerStatus,
    describe,
    start_for_process,
)
from engram.sync.cloud.config import CloudConfig
from engram.sync.status import runtime_status


def cloud_status(
    store: Store, project: str, data_dir: Path, manager: AutosyncManager | None
) -> dict[str, Any]:
    """The status fields of ``project``."""
    status = fallback_status()
    status.pop("message", None)
    with store.locked() as conn:
        deferred = sync_deferred.counts(conn)
        enrolled = sync_cloud.is_enrolled(conn, project)
        upgrade = sync_cloud.upgrade_state(conn, project) or {}
    status.update(deferred_count=deferred["deferred"], dead_count=deferred["dead"])
    status["upgrade"] = {
        "stage": upgrade.get("stage") or "",
        "reason_code": upgrade.get("repair_class") or "",
        "reason_message": upgrade.get("error") or "",
    }
    try:
        remote = CloudConfig.load(data_dir).remote_for(project)
    except Exception:
        remote = None
    if remote is None:
        local = runtime_status(store, project)  # the git transport's state, if any
        if not local["reason_code"]:
            local["reason_code"] = "cloud_not_configured"
            local["reason_message"] = "no cloud server is configured"
        return local
    if not enrolled:
        return {
            **status,
            "phase": "disabled",
            "reason_code": "blocked_unenrolled",
            "reason_message": f"project {project!r} is not enrolled for cloud sync",
        }
    with store.locked() as conn:
        state = _own_outcome(conn, remote.target_key, project)
    status.update(
        enabled=True,
        phase=str(state.get("lifecycle") or "idle"),
        last_error=state.get("last_error") or "",
        consecutive_failures=int(state.get("consecutive_failures") or 0),
        backoff_until=state.get("backoff_until"),
        last_sync_at=state.get("last_sync_at"),
        reason_code=state.get("reason_code") or "",
        reason_message=state.get("last_error") or "",
    )
    live = manager.status_for(remote) if manager is not None else None
    if live is not None and live.project in ("", project) and _about(live, project):
        status.update(describe(live))
    return status


def _own_outcome(conn: Any, target_key: str, project: str) -> dict[str, Any]:
    """``project``'s last outcome on the target: its own row, unless the newer target row
    failed for a reason every project shares (transport, auth). Another project's pause or
    refusal never shows here."""
    own = sync_cloud.outcome(conn, sync_cloud.project_target(target_key, project)) or {}
    shared = sync_cloud.outcome(conn, target_key) or {}
    remote_wide = shared.get("reason_code") and shared["reason_code"] not in PROJECT_REASONS
    if remote_wide and str(shared.get("updated_at") or "") >= str(own.get("updated_at") or ""):
        return {**shared, "last_sync_at": own.get("last_sync_at") or shared.get("last_sync_at")}
    return own


def _about(live: WorkerStatus, project: str) -> bool:
    """Whether the live worker status says something about ``project``: a remote-wide failure
    or a refusal of ``project`` itself (healthy and in-progress states concern every project)."""
    return (
        not live.reason_code or live.reason_code not in PROJECT_REASONS or live.project == project
    )


def install(data_dir: Path, manager: AutosyncManager | None) -> None:
    """Make ``/sync/status`` answer with :func:`cloud_status`."""

    def provider(store: Store, project: str) -> dict[str, Any]:
        return cloud_status(store, project, data_dir, manager)

    set_sync_status_provider(provider)


def attach(data_dir: Path) -> AutosyncManager | None:
    """For ``engram serve``: start autosync when requested and answer ``/sync/status``."""
    manager = start_for_process(data_dir)
    install(data_dir, manager)
    return manager
