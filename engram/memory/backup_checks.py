"""What an import checks beyond shapes: the same rules a save applies, row by row.

A backup is input like any other, so each row must pass what ``engram save`` / ``mem_save``
would enforce — a known scope, a valid project name (normalized the same way), ids and counts
SQLite can hold, real timestamps, text within the size limit, known relation verdicts. The
first row that fails stops the import with one line naming it (``observations[3].created_at``)
before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from engram import identifiers
from engram.errors import EngramError
from engram.memory.backup_schema import row_name
from engram.memory.checks import SCOPES
from engram.memory.project import normalize_project_name
from engram.memory.redaction import content_limit
from engram.store.backup import BackupRows

MAX_SQLITE_INT = identifiers.MAX_INTEGER
MAX_ID_CHARS = identifiers.MAX_ID_CHARS
VERDICTS: tuple[str, ...] = ("pending", "related", "compatible", "scoped", "conflicts_with")
VERDICTS += ("supersedes", "not_conflict")
JUDGMENT_STATUSES = ("pending", "judged", "orphaned", "ignored")

TIME_FIELDS = {
    "sessions": ("started_at", "ended_at"),
    "observations": (
        "created_at",
        "updated_at",
        "last_seen_at",
        "review_after",
        "expires_at",
        "deleted_at",
    ),
    "prompts": ("created_at",),
    "relations": ("created_at", "updated_at", "superseded_at"),
}
_INTS = {
    "observations": ("id", "revision_count", "duplicate_count"),
    "prompts": ("id",),
    "relations": ("id", "superseded_by_id"),
}
_IDS = {
    "sessions": ("id",),
    "observations": ("sync_id", "session_id"),
    "prompts": ("sync_id", "session_id"),
    "relations": ("sync_id", "source_id", "target_id", "session_id"),
}
_TEXTS = {
    "sessions": ("summary",),
    "observations": ("title", "content", "topic_key", "type"),
    "prompts": ("content",),
    "relations": ("reason", "evidence"),
}


def check_rows(rows: BackupRows, invalid: Callable[[str], EngramError]) -> None:
    """Apply save's rules to every row (normalizing project names in place).

    Args:
        rows: validated record shapes.
        invalid: builds the one-line error from "<row>.<field> <why>".
    """
    limit = content_limit()
    for kind in ("sessions", "observations", "prompts", "relations"):
        for index, record in enumerate(getattr(rows, kind)):
            where = f"{kind}[{index}]"
            named = row_name(record)

            def said(why: str, named: str = named) -> EngramError:
                return invalid(why + named)

            _check_record(kind, record, where, limit, said)


def _check_record(
    kind: str,
    record: dict[str, Any],
    where: str,
    limit: int,
    invalid: Callable[[str], EngramError],
) -> None:
    problem = (
        _project_problem(record)
        or _first(record, TIME_FIELDS.get(kind, ()), _time_problem)
        or _first(record, _INTS.get(kind, ()), _int_problem)
        or _first(record, _IDS.get(kind, ()), _id_problem)
        or _first(record, _TEXTS.get(kind, ()), lambda v: _size_problem(v, limit))
        or _kind_problem(kind, record)
    )
    if problem:
        raise invalid(f"{where}.{problem}")


def _first(
    record: dict[str, Any], names: tuple[str, ...], check: Callable[[Any], str | None]
) -> str | None:
    for name in names:
        value = record.get(name)
        why = None if value is None else check(value)
        if why:
            return f"{name} {why}"
    return None


def _project_problem(record: dict[str, Any]) -> str | None:
    raw = record.get("project")
    if not isinstance(raw, str) or raw == "":
        return None  # a legacy row without a project (old files, the Go tool's): unowned
    try:
        record["project"] = normalize_project_name(raw).name
    except EngramError as exc:
        return f"project {exc.message}"
    return None


def _time_problem(value: Any) -> str | None:
    if not isinstance(value, str):
        return "must be a timestamp string"
    try:
        datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return f"{_shown(value)} is not a timestamp (use YYYY-MM-DD HH:MM:SS)"
    return None


def _int_problem(value: Any) -> str | None:
    if isinstance(value, int) and not 0 < value <= MAX_SQLITE_INT:
        return f"{_shown(value)} is out of range (1 to {MAX_SQLITE_INT})"
    return None


def _id_problem(value: Any) -> str | None:
    return identifiers.id_problem(value) if isinstance(value, str) else None


def _size_problem(value: Any, limit: int) -> str | None:
    if isinstance(value, str) and len(value.encode("utf-8")) > limit:
        return f"is over the {limit}-byte limit a save enforces"
    return None


def _kind_problem(kind: str, record: dict[str, Any]) -> str | None:
    if kind == "observations" and record["scope"] not in SCOPES:
        return f"scope {_shown(record['scope'])} is not one of {', '.join(SCOPES)}"
    if kind != "relations":
        return None
    if record["relation"] not in VERDICTS:
        return f"relation {_shown(record['relation'])} is not one of {', '.join(VERDICTS)}"
    if record["judgment_status"] not in JUDGMENT_STATUSES:
        status = _shown(record["judgment_status"])
        return f"judgment_status {status} is not one of {', '.join(JUDGMENT_STATUSES)}"
    confidence = record.get("confidence")
    if confidence is not None and not 0.0 <= float(confidence) <= 1.0:
        return f"confidence {confidence} is not between 0.0 and 1.0"
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
