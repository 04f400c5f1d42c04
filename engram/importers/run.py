"""Run one importer: read its records, check each the way a backup import does, write them in
batches (each one transaction), report progress and a summary.

A batch that fails stops the import with the one-line error naming the source record; the
batches before it stay, and running the import again adds only what is missing (every id is
derived from its source record).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engram.errors import EngramError
from engram.importers import TOOLS
from engram.importers.records import Options, Source
from engram.memory.backup import import_rows, validate_records
from engram.store.backup import BackupRows
from engram.store.db import Store

BATCH = 500
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ImportSummary:
    """What an ``engram import --from`` read and wrote (``skipped``: already here)."""

    tool: str
    path: str
    read: int
    sessions: int
    observations: int
    prompts: int
    skipped: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)


def open_tool(tool: str, path: Path, options: Options) -> Source:
    """The ``tool`` store at ``path``.

    Raises:
        EngramError: ``import.unknown_tool``, ``import.unrecognised``.
    """
    if tool not in TOOLS:
        raise EngramError(
            "import.unknown_tool",
            f"cannot import from {tool!r}",
            f"use one of: {', '.join(TOOLS)}",
        )
    module = importlib.import_module(TOOLS[tool])
    source: Source = module.open_source(path, options)
    return source


def import_from(
    store: Store,
    tool: str,
    path: Path,
    *,
    project: str | None = None,
    default_project: str = "",
    progress: Progress | None = None,
) -> ImportSummary:
    """Import the ``tool`` store at ``path`` into ``store``.

    Args:
        project: ``--project``: every record goes to it (None: each record's own project).
        default_project: the project of records whose source names none.
        progress: called with ``(records read, total)`` after each batch.
    """
    from engram.memory.redaction import content_limit

    home = Path(os.environ.get("HOME") or Path.home())
    options = Options(content_limit(), project, project or default_project, home)
    source = open_tool(tool, path, options)
    totals = {"read": 0, "sessions": 0, "observations": 0, "prompts": 0, "skipped": 0}
    batch = BackupRows()
    try:
        for kind, record in source.records():
            if project is not None and "project" in record:
                record["project"] = project
            totals["read"] += 1
            where = f"{path} ({kind.rstrip('s')} {totals['read']})"
            checked = validate_records({kind: [record]}, source=where)
            getattr(batch, kind).extend(getattr(checked, kind))
            if totals["read"] % BATCH == 0:
                _flush(store, batch, totals, str(path))
                batch = BackupRows()
                if progress is not None:
                    progress(totals["read"], source.total)
        _flush(store, batch, totals, str(path))
    finally:
        source.close()
    if progress is not None:
        progress(totals["read"], source.total)
    return ImportSummary(tool, str(path), **totals)


def _flush(store: Store, batch: BackupRows, totals: dict[str, int], path: str) -> None:
    if not (batch.sessions or batch.observations or batch.prompts):
        return
    result = import_rows(store, batch, version="import", source=path)
    for name in ("sessions", "observations", "prompts", "skipped"):
        totals[name] += getattr(result, name)
