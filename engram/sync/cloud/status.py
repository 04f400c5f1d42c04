"""``engram cloud status``: config, remotes, enrolled projects, readiness, the local daemon.

Read-only: it never changes local state, and it probes the local ``engram serve`` daemon
(127.0.0.1, ``ENGRAM_PORT`` or 7437) so a silently dead autosync shows.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

from engram.store import sync_cloud
from engram.store.db import Store
from engram.sync.cloud.config import CloudConfig, Remote
from engram.sync.cloud.enrollment import remote_status

DAEMON_PORT = 7437


def daemon_state(env: dict[str, str] | None = None) -> str:
    """``running`` / ``not running`` / ``unreachable`` for the local daemon's TCP port."""
    raw = (env or dict(os.environ)).get("ENGRAM_PORT", "").strip()
    port = int(raw) if raw.isdigit() and 1 <= int(raw) <= 65535 else DAEMON_PORT
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return f"running (port {port})"
    except ConnectionRefusedError:
        return f"not running (port {port})"
    except OSError:
        return f"unreachable (port {port})"


def cloud_overview(store: Store, data_dir: Path) -> dict[str, Any]:
    """Everything ``cloud status`` prints, with the printed ``lines``."""
    config = CloudConfig.load(data_dir)
    remote = config.global_remote()
    with store.locked() as conn:
        projects = sync_cloud.enrolled(conn)
    lines: list[str] = []
    if remote is None:
        lines.append(
            "Cloud: not configured (cloud_config_error) — run engram cloud config --server URL"
        )
    else:
        auth = "token set" if remote.token else "no token (insecure servers only)"
        lines.append(f"Cloud: {remote.server_url} ({auth}, token {remote.masked_token()})")
    for name, entry in sorted(config.projects.items()):
        routed = Remote(entry.get("server_url", ""), entry.get("token", ""), routed=True)
        lines.append(
            f"Remote for {name}: {routed.server_url} token {routed.masked_token()}"
            f" id {routed.target_key}"
        )
    statuses = []
    for project in projects:
        target = config.remote_for(project)
        if target is None:
            lines.append(f"Project {project}: enrolled — cloud_config_error (no server)")
            continue
        state = remote_status(store, target, project)
        statuses.append(state)
        reason = state["reason_code"] or "ready"
        lines.append(
            f"Project {project}: enrolled, {state['pending_mutations']} pending to push,"
            f" {state['remote_pending'] if state['remote_pending'] is not None else '?'}"
            f" to pull — {reason}"
        )
    if not projects:
        lines.append("Projects: none enrolled — run engram cloud enroll <project>")
    daemon = daemon_state() if remote is not None or config.projects else "not checked"
    lines.append(f"Local daemon: {daemon}")
    return {
        "server_url": remote.server_url if remote else None,
        "token_set": bool(remote and remote.token),
        "remotes": {k: v.get("server_url") for k, v in config.projects.items()},
        "enrolled": projects,
        "projects": statuses,
        "local_daemon": daemon,
        "lines": lines,
    }
