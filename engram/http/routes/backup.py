"""Export and import of versioned JSON backups (guarded by ENGRAM_HTTP_TOKEN when it is set)."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.http.exchange import Call, endpoint
from engram.http.selection import read_scope

# A backup of a large store is big; it is parsed in memory, so it is still bounded.
IMPORT_LIMIT = 256 * 1024 * 1024


@endpoint(token="when_set")
def export(call: Call) -> Any:
    """GET /export — the current project's backup (``project=`` / ``all_projects=true``)."""
    from engram.memory import backup

    return backup.export_backup(call.store, read_scope(call))


@endpoint(body=True, parse=False, limit=IMPORT_LIMIT, token="when_set")
def import_(call: Call) -> Any:
    """POST /import — import one JSON backup atomically (all or nothing)."""
    from engram.memory import backup

    result = backup.import_backup(call.store, call.body or "", source="request body")
    return {**result.to_dict(), "status": "imported"}


ROUTES: list[BaseRoute] = [
    Route("/export", export, methods=["GET"]),
    Route("/import", import_, methods=["POST"]),
]
