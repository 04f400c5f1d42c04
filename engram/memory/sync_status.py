"""The local node's sync status (``GET /sync/status``), through a replaceable provider.

The sync engine (``engram/sync``) installs its provider with :func:`set_sync_status_provider`;
until one is installed, every project answers :func:`fallback_status` — sync disabled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engram.store.db import Store

# provider(store, project) -> the status fields for that project.
SyncStatusProvider = Callable[[Store, str], dict[str, Any]]

_provider: SyncStatusProvider | None = None


def set_sync_status_provider(provider: SyncStatusProvider | None) -> None:
    """Install (or, with None, remove) the provider ``sync_status`` asks."""
    global _provider
    _provider = provider


def fallback_status() -> dict[str, Any]:
    """The answer when no sync provider is installed: sync is not enabled for this node."""
    return {
        "enabled": False,
        "message": "background sync is not configured",
        "phase": "disabled",
        "last_error": "",
        "consecutive_failures": 0,
        "backoff_until": None,
        "last_sync_at": None,
        "reason_code": "",
        "reason_message": "",
        "deferred_count": 0,
        "dead_count": 0,
        "upgrade": {"stage": "", "reason_code": "", "reason_message": ""},
    }


def sync_status(store: Store, project: str) -> dict[str, Any]:
    """The sync status of one resolved project (the fallback when no provider is installed)."""
    if _provider is None:
        return {"project": project, **fallback_status()}
    return {"project": project, **_provider(store, project)}
