"""Background replication for ``engram serve`` and ``engram-mcp`` (``ENGRAM_CLOUD_AUTOSYNC=1``).

One worker thread per distinct remote: the global worker skips routed projects, each routed
remote syncs only its own projects, with its own cursors and lease. A worker opens its own
SQLite connection (no Python lock is shared with local writes) and holds a lease in
``sync_state`` so only one process per data dir syncs a remote at a time.

Phases: ``idle`` → ``pushing`` → ``pulling`` → ``healthy``; ``push_failed`` / ``pull_failed``
with a reason code; ``backoff`` after repeated failures; ``disabled`` while an upgrade runs.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from engram.memory.clock import stamp, stamp_after, utc_now
from engram.store import sync_cloud
from engram.store.db import Store
from engram.sync.cloud.client import CloudClient, CloudSyncError
from engram.sync.cloud.config import CloudConfig, Remote
from engram.sync.cloud.pause import LEASE_S, pause_key
from engram.sync.cloud.replicate import ReplicationReport, pull, push, record_outcomes

log = logging.getLogger("engram.autosync")
DEFAULT_INTERVAL_S = 30.0
BACKOFF_AFTER = 3
MAX_BACKOFF_S = 300.0


def autosync_requested(env: Mapping[str, str] | None = None) -> bool:
    """True when ``ENGRAM_CLOUD_AUTOSYNC`` is exactly ``1``."""
    env = os.environ if env is None else env
    return env.get("ENGRAM_CLOUD_AUTOSYNC", "") == "1"


@dataclass
class WorkerStatus:
    """What a worker last did (read by ``/sync/status``)."""

    phase: str = "idle"
    reason_code: str = ""
    reason_message: str = ""
    consecutive_failures: int = 0
    backoff_until: str | None = None
    last_sync_at: str | None = None
    # The project whose refusal (pause, policy) the failure is; "" when it concerns the remote.
    project: str = ""


@dataclass
class Worker:
    """Replicates the projects of one remote in a loop until stopped."""

    remote: Remote
    data_dir: Path
    config: CloudConfig
    interval: float
    owner: str
    status: WorkerStatus = field(default_factory=WorkerStatus)
    stop_event: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(
            target=self._loop, name=f"autosync {self.remote.server_url}", daemon=True
        )
        self.thread.start()

    def _projects(self, store: Store) -> list[str]:
        with store.locked() as conn:
            enrolled = sync_cloud.enrolled(conn)
        return [p for p in enrolled if self.config.remote_for(p) == self.remote]

    def _loop(self) -> None:
        store = Store.open(self.data_dir)
        try:
            while not self.stop_event.is_set():
                self.stop_event.wait(self._cycle(store))
        finally:
            with store.write() as conn:
                sync_cloud.release_lease(conn, self.remote.target_key, self.owner)
            store.close()

    def _cycle(self, store: Store) -> float:
        now = utc_now()
        until = stamp_after(now, timedelta(seconds=LEASE_S))
        with store.write() as conn:
            paused = self._yield_to_upgrade(conn, stamp(now))
            held = not paused and sync_cloud.take_lease(
                conn, self.remote.target_key, self.owner, stamp(now), until
            )
        if paused:
            return self._paused_for_upgrade()
        if not held:
            return self.interval  # another process of this data dir syncs this remote
        try:
            self._sync_all(store)
        except CloudSyncError as exc:
            return self._finish(store, self._failed(exc), error=exc.message)
        except Exception as exc:  # a bug must not kill the loop: report and keep going
            log.exception("[autosync] internal error")
            return self._finish(
                store, self._failed(CloudSyncError("internal_error", str(exc))), error=str(exc)
            )
        self.status = WorkerStatus(phase="healthy", last_sync_at=stamp())
        return self._finish(store, self.interval)

    def _yield_to_upgrade(self, conn: Any, now: str) -> bool:
        """True (and the sync lease given back) while a bootstrap asks autosync to pause."""
        if sync_cloud.lease_holder(conn, pause_key(self.remote), now) is None:
            return False
        sync_cloud.release_lease(conn, self.remote.target_key, self.owner)
        return True

    def _finish(self, store: Store, wait: float, *, error: str | None = None) -> float:
        """Record how the cycle ended (``self.status``) and, in the same write, let a bootstrap
        that asked while it ran go ahead at once."""
        with store.write() as conn:
            now = stamp()
            sync_cloud.record_outcome(
                conn,
                self.remote.target_key,
                phase=self.status.phase,
                now=now,
                reason_code=self.status.reason_code or None,
                error=error,
                backoff_until=self.status.backoff_until,
            )
            yielded = self._yield_to_upgrade(conn, now)
        return self._paused_for_upgrade() if yielded else wait

    def _paused_for_upgrade(self) -> float:
        if self.status.phase != "disabled":
            log.info(
                "[autosync] %s: upgrade_paused (a cloud upgrade bootstrap is running)",
                self.remote.server_url,
            )
        self.status = WorkerStatus(
            phase="disabled",
            reason_code="upgrade_paused",
            reason_message="a cloud upgrade bootstrap is running; autosync resumes after it",
            last_sync_at=self.status.last_sync_at,
        )
        return self.interval

    def _sync_all(self, store: Store) -> None:
        """Sync every project of the remote; a project the server refuses (paused, forbidden)
        is recorded as its own outcome and the others still sync. The first failure is raised
        afterwards; a failure of the remote itself (transport, auth) stops the cycle at once."""
        client = CloudClient(self.remote)
        refused: tuple[str, str, CloudSyncError] | None = None
        for project in self._projects(store):
            report = ReplicationReport()
            key = sync_cloud.project_target(self.remote.target_key, project)
            try:
                self.status.phase = "pushing"
                push(store, client, project, report, check_access=False)  # the pull asks
                self.status.phase = "pulling"
                pull(store, client, project, report)
            except CloudSyncError as exc:
                record_outcomes(store, [key], exc)
                if exc.reason_code not in PROJECT_REASONS:
                    raise
                refused = refused or (project, self.status.phase, exc)
                continue
            record_outcomes(store, [key], None)
        if refused is not None:
            self.status.phase = refused[1]
            self.status.project = refused[0]
            raise refused[2]

    def _failed(self, exc: CloudSyncError) -> float:
        """Set the failure status (backing off after a few in a row); the wait before the next
        cycle."""
        phase = "pull_failed" if self.status.phase == "pulling" else "push_failed"
        failures = self.status.consecutive_failures + 1
        wait = self.interval
        backoff_until = None
        if failures >= BACKOFF_AFTER:
            wait = min(self.interval * 2 ** (failures - BACKOFF_AFTER + 1), MAX_BACKOFF_S)
            backoff_until = stamp_after(utc_now(), timedelta(seconds=wait))
            phase = "backoff"
        log.error("[autosync] %s: %s (%s)", self.remote.server_url, exc.reason_code, exc.message)
        reason = exc.reason_code if exc.reason_code in _REASONS else "transport_failed"
        self.status = WorkerStatus(
            phase=phase,
            reason_code=reason,
            reason_message=exc.message,
            consecutive_failures=failures,
            backoff_until=backoff_until,
            last_sync_at=self.status.last_sync_at,
            project=self.status.project if reason in PROJECT_REASONS else "",
        )
        return wait


_REASONS = {"transport_failed", "auth_required", "policy_forbidden", "paused", "internal_error"}
# Refusals that concern one project, not the remote: the other projects still sync.
PROJECT_REASONS = frozenset({"paused", "policy_forbidden"})


@dataclass
class AutosyncManager:
    """The workers of one process."""

    workers: list[Worker]

    def status_for(self, remote: Remote) -> WorkerStatus | None:
        for worker in self.workers:
            if worker.remote == remote:
                return worker.status
        return None

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop_event.set()
        for worker in self.workers:
            if worker.thread is not None:
                worker.thread.join(timeout=10)


def start_autosync(data_dir: Path, env: Mapping[str, str] | None = None) -> AutosyncManager | None:
    """Start the workers when ``ENGRAM_CLOUD_AUTOSYNC=1`` and the settings are complete.

    Missing settings log one ``[autosync] ERROR`` line and return None: the caller keeps
    running without autosync.
    """
    env = os.environ if env is None else env
    if not autosync_requested(env):
        return None
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    for name in ("ENGRAM_CLOUD_SERVER", "ENGRAM_CLOUD_TOKEN"):
        if not env.get(name, "").strip():
            log.error("[autosync] ERROR: %s is not set; autosync disabled", name)
            return None
    try:
        config = CloudConfig.load(data_dir)
    except Exception as exc:  # a broken cloud.json must not stop the server
        log.error("[autosync] ERROR: %s; autosync disabled", exc)
        return None
    interval = _interval(env)
    owner = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    remotes = _remotes(config, env)
    workers = [Worker(r, data_dir, config, interval, owner) for r in remotes]
    for worker in workers:
        worker.start()
    log.info("[autosync] started %d worker(s)", len(workers))
    return AutosyncManager(workers)


def _interval(env: Mapping[str, str]) -> float:
    raw = env.get("ENGRAM_CLOUD_AUTOSYNC_INTERVAL", "").strip()
    try:
        value = float(raw) if raw else DEFAULT_INTERVAL_S
    except ValueError:
        value = DEFAULT_INTERVAL_S
    return value if value > 0 else DEFAULT_INTERVAL_S


def _remotes(config: CloudConfig, env: Mapping[str, str]) -> list[Remote]:
    found: list[Remote] = []
    glob = config.global_remote(env)
    if glob is not None:
        found.append(glob)
    for name, entry in sorted(config.projects.items()):
        remote = config.remote_for(name, env)
        if remote is None or remote in found:
            continue
        if not entry.get("token"):
            log.warning("[autosync] project %s is routed without a token; skipped", name)
            continue
        found.append(remote)
    return found


_manager: AutosyncManager | None = None


def current_manager() -> AutosyncManager | None:
    """The process's running manager (None when autosync is off)."""
    return _manager


def start_for_process(data_dir: Path) -> AutosyncManager | None:
    """Start autosync once for this process (engram serve / engram-mcp)."""
    global _manager
    if _manager is None:
        _manager = start_autosync(data_dir)
    return _manager


def describe(status: WorkerStatus) -> dict[str, Any]:
    """A worker status as ``/sync/status`` fields."""
    return {
        "phase": status.phase,
        "reason_code": status.reason_code,
        "reason_message": status.reason_message,
        "consecutive_failures": status.consecutive_failures,
        "backoff_until": status.backoff_until,
        "last_sync_at": status.last_sync_at,
    }
