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
from engram.sync.cloud.autosync import AutosyncManager, describe, start_for_process
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
        state = sync_cloud.outcome(conn, remote.target_key) or {}
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
    if live is not None:
        status.update(describe(live))
    return status


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
