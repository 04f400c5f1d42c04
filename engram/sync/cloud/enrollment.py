"""Enrolling projects, routing them to remotes, and the read-only cloud status."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.errors import EngramError
from engram.memory.clock import stamp
from engram.store import sync_cloud, sync_journal
from engram.store.db import Store
from engram.sync.cloud.client import CloudClient, CloudSyncError
from engram.sync.cloud.config import CloudConfig, Remote, normalize_url
from engram.sync.cloud.replicate import (
    ReplicationReport,
    local_counts,
    pull_key,
    sync_once,
)


def as_user_error(exc: CloudSyncError, project: str) -> EngramError:
    """A failed cloud request as the CLI's one-line error, its reason code first."""
    return EngramError(
        f"cloud.{exc.reason_code}",
        f"{exc.reason_code}: cloud sync of {project!r} failed: {exc.message}",
        exc.remedy().replace(" P", f" {project}"),
        reason_code=exc.reason_code,
    )


def enroll(store: Store, project: str) -> bool:
    """Enroll a project for cloud replication; False when it already was.

    Raises:
        EngramError: ``project.invalid_name`` (empty, a path, not UTF-8...): nothing enrolled.
    """
    from engram.memory.project import normalize_project_name

    name = normalize_project_name(project).name
    with store.write() as conn:
        return sync_cloud.enroll(conn, name, stamp())


def unenroll(store: Store, project: str) -> bool:
    """Stop replicating a project (nothing local or remote is deleted)."""
    with store.write() as conn:
        return sync_cloud.unenroll(conn, project)


@dataclass(frozen=True)
class RouteChange:
    """What ``cloud config --project`` did, and the catch-up pull it attempted."""

    project: str
    remote: Remote | None
    caught_up: ReplicationReport | None
    catch_up_error: str | None


def route_project(
    store: Store,
    data_dir: Path,
    project: str,
    *,
    server: str | None,
    token: str | None,
    clear: bool,
) -> RouteChange:
    """Route one project to its own remote (or back to the global one with ``clear``).

    An enrolled project's local state is re-queued for the new remote (its cursors there start
    from zero) and a catch-up pull imports what other devices already wrote; a failed catch-up
    keeps the routing and is reported, not raised. A new token for the same server counts as a
    new remote too (it may belong to another principal, or to a server rebuilt behind the same
    URL): the project's cursors there go back to zero, so its history is re-queued in full (the
    server drops what it already holds as idempotent replays).
    """
    config = CloudConfig.load(data_dir)
    before = config.remote_for(project)
    if clear:
        config.projects.pop(project, None)
    else:
        if not server:
            raise EngramError(
                "cloud.cloud_config_error",
                "cloud_config_error: --project needs --server",
                "pass --server URL (and --token), or --clear",
            )
        config.projects[project] = {"server_url": normalize_url(server), "token": token or ""}
    config.save(data_dir)
    remote = config.remote_for(project)
    with store.locked() as conn:
        enrolled = sync_cloud.is_enrolled(conn, project)
    if not enrolled or remote is None or (not remote.token and remote.routed):
        return RouteChange(project, remote, None, None)
    if _token_rotated(before, remote):
        _requeue(store, remote, project)
    try:
        report = sync_once(store, remote, project)
    except CloudSyncError as exc:
        return RouteChange(project, remote, None, f"{exc.reason_code}: {exc.message}")
    return RouteChange(project, remote, report, None)


def _token_rotated(before: Remote | None, after: Remote) -> bool:
    return (
        before is not None and before.server_url == after.server_url and before.token != after.token
    )


def _requeue(store: Store, remote: Remote, project: str) -> None:
    """Send the project's whole history to ``remote`` again and pull all of it back."""
    with store.write() as conn:
        sync_cloud.reset_cursor(conn, remote.target_key, project, 0)
        sync_cloud.reset_cursor(conn, pull_key(remote.target_key), project, 0)


def remote_status(store: Store, remote: Remote, project: str) -> dict[str, Any]:
    """Read-only status of one project against its remote: local counts, remote chunk count
    and sequence, and the reason code when the remote cannot be read."""
    status: dict[str, Any] = {"project": project, "server": remote.server_url}
    with store.locked() as conn:
        status["enrolled"] = sync_cloud.is_enrolled(conn, project)
        state = sync_cloud.outcome(conn, remote.target_key) or {}
    status.update(local_counts(store, remote, project))
    status["last_sync_at"] = state.get("last_sync_at")
    status["last_reason_code"] = state.get("reason_code") or ""
    try:
        client = CloudClient(remote, timeout=10)
        manifest = client.manifest(project)
        status["remote_chunks"] = len(manifest.get("chunks", []))
        with store.read() as conn:
            origin = sync_journal.device_id(conn)
        status["remote_seq"], status["remote_pending"] = _pending_from_others(
            client, project, status["pulled_seq"], origin
        )
        status["reason_code"] = ""
    except CloudSyncError as exc:
        status.update(remote_chunks=None, remote_seq=None, remote_pending=None)
        status["reason_code"] = exc.reason_code
        status["reason_message"] = exc.message
    return status


STATUS_PAGES = 10  # at most this many pages (of 500) are read to count what is left to pull


def _pending_from_others(
    client: CloudClient, project: str, since: int, origin: str
) -> tuple[int, int]:
    """The remote's last sequence and how many mutations after ``since`` came from another
    replica (this replica's own pushes are never "to pull"); read-only."""
    last, pending = since, 0
    for _ in range(STATUS_PAGES):
        page = client.pull_mutations(project, since, 500)
        entries = page.get("mutations") or []
        last = max(last, int(page.get("last_seq", since) or since))
        pending += sum(1 for e in entries if isinstance(e, dict) and e.get("origin") != origin)
        since = int(page.get("next_since", since) or since)
        if not page.get("has_more") or not entries:
            return last, pending
    return last, pending + max(0, last - since)  # beyond what was read: counted as others'
