"""Export and import: a versioned JSON backup of sessions, observations, prompts and relations.

Format ``0.2.0`` (what :func:`export_backup` writes)::

    {"version": "0.2.0", "exported_at": "...", "project": "acme" | null,
     "sessions": [...], "observations": [...], "prompts": [...], "relations": [...]}

Record fields are :mod:`engram.store.backup`'s field lists. Observations carry their pin
state; relations carry their judgment and supersession metadata. Import also accepts ``0.1.0``
backups, which have no pins and no relations, and every file the Go ``engram export`` writes
(``0.1.0`` from v0.1.x and 2.x, ``0.2.0``): a row whose project the Go tool left out arrives
unowned (project ``""``), as rows from the schema where the project was nullable are kept;
``ImportResult.unowned`` counts them.

Import is all or nothing: the whole file is validated first (JSON, version, every record's
required fields and types, references between records), then written in one transaction.
Any problem — including a relation whose endpoint observation exists neither in the file nor
in the store, unless the relation is an ``orphaned`` audit row — changes nothing and raises
one ``EngramError`` naming the first bad record.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from engram.errors import EngramError
from engram.memory import backup_schema

if TYPE_CHECKING:
    from engram.store.db import Store

FORMAT_VERSION = "0.2.0"
SUPPORTED_VERSIONS = ("0.1.0", "0.2.0")


@dataclass(frozen=True)
class ImportResult:
    """What an import wrote (``skipped`` counts rows already in the store)."""

    version: str
    sessions: int
    observations: int
    prompts: int
    relations: int
    skipped: int
    unowned: int = 0  # observations and prompts that arrived without a project

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)


def export_backup(store: Store, project: str | None) -> dict[str, Any]:
    """A ``0.2.0`` backup of one project (or every project for None), as a JSON-ready dict."""
    from engram.store.backup import read_rows

    with store.read() as conn:
        rows = read_rows(conn, project)
    return {
        "version": FORMAT_VERSION,
        "exported_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S"),
        "project": project,
        "sessions": rows.sessions,
        "observations": rows.observations,
        "prompts": rows.prompts,
        "relations": rows.relations,
    }


def import_backup(store: Store, text: str, *, source: str = "backup") -> ImportResult:
    """Validate a backup's text and write it in one transaction.

    Args:
        store: the destination store.
        text: the file's contents.
        source: how to name the file in error messages.

    Raises:
        EngramError: ``backup.not_json``, ``backup.unsupported_version``, ``backup.invalid``
            or ``backup.dangling_reference`` — and the store is unchanged.
    """
    version, rows = parse_backup(text, source=source)
    return import_rows(store, rows, version=version, source=source)


def import_rows(
    store: Store, rows: backup_schema.BackupRows, *, version: str, source: str
) -> ImportResult:
    """Write validated rows (:func:`validate_records`, :func:`parse_backup`) in one transaction;
    rows already in the store (same sync id / session id) are skipped.

    Raises:
        EngramError: ``backup.dangling_reference`` or ``backup.invalid`` — nothing written.
    """
    import sqlite3

    from engram.store.backup import insert_rows

    try:
        with store.write() as conn:
            backup_schema.check_references(conn, rows, source=source)
            counts = insert_rows(conn, rows)
    except sqlite3.IntegrityError as exc:
        raise EngramError(
            "backup.invalid",
            f"{source} cannot be imported: {exc}",
            "the file is inconsistent; export it again from the original store",
        ) from exc
    return ImportResult(
        version,
        counts.sessions,
        counts.observations,
        counts.prompts,
        counts.relations,
        counts.skipped,
        backup_schema.unowned_count(rows),
    )


def validate_records(
    records: dict[str, list[dict[str, Any]]], *, source: str
) -> backup_schema.BackupRows:
    """Check records of the backup format (``sessions``/``observations``/``prompts`` lists)
    the way an import of a ``0.2.0`` file does, defaults filled in.

    Raises:
        EngramError: ``backup.invalid`` naming the first bad record.
    """
    data = {"sessions": [], "observations": [], "prompts": [], **records}
    return backup_schema.validate(data, FORMAT_VERSION, source=source)


def parse_backup(text: str, *, source: str = "backup") -> tuple[str, backup_schema.BackupRows]:
    """Parse and validate a backup without touching any store: ``(version, rows)``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EngramError(
            "backup.not_json",
            f"{source} is not JSON ({exc.msg} at line {exc.lineno})",
            "pass a file written by `engram export`",
        ) from exc
    except ValueError:  # a number of 4,300+ digits (CPython's int parsing limit)
        raise EngramError(
            "backup.not_json",
            f"{source} is not a backup (it holds a number too long to read)",
            "pass a file written by `engram export`",
        ) from None
    except RecursionError:
        raise EngramError(
            "backup.not_json",
            f"{source} is not a backup (its JSON is nested too deeply to read)",
            "pass a file written by `engram export`",
        ) from None
    if not isinstance(data, dict):
        raise backup_schema.invalid(source, "the top level must be a JSON object")
    version = data.get("version")
    if version not in SUPPORTED_VERSIONS:
        raise EngramError(
            "backup.unsupported_version",
            f"{source} has backup version {version!r}; supported: {', '.join(SUPPORTED_VERSIONS)}",
            "export it again with this version of Engram",
        )
    return str(version), backup_schema.validate(data, str(version), source=source)
