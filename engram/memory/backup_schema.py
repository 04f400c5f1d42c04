"""The record shapes of a backup file and the checks an import runs before writing anything.

:func:`validate` checks every record's fields and types (filling documented defaults, e.g. a
``0.1.0`` observation has no ``pinned``) and references inside the file; :func:`check_references`
checks references that may point into the destination store (sessions, relation endpoints).
Errors name the first bad record, e.g. ``observations[3].title``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engram.errors import EngramError
from engram.store.backup import BackupRows, observation_sync_ids

__all__ = ["BackupRows", "check_references", "invalid", "validate"]


@dataclass(frozen=True)
class FieldSpec:
    """One field: its JSON kind, whether the file must have it, and the default otherwise."""

    kind: str  # text (non-empty str), str, int, bool, float; a trailing "?" allows null
    required: bool = False
    default: Any = None


SESSION = {
    "id": FieldSpec("text", True),
    "project": FieldSpec("str", default=""),
    "ownership_mode": FieldSpec("str", default="shared"),
    "directory": FieldSpec("str", default=""),
    "started_at": FieldSpec("text", True),
    "ended_at": FieldSpec("str?"),
    "summary": FieldSpec("str?"),
}
OBSERVATION = {
    "id": FieldSpec("int?"),
    "sync_id": FieldSpec("text", True),
    "session_id": FieldSpec("str?"),
    "type": FieldSpec("str", default="manual"),  # blank (a Go row) means manual
    "title": FieldSpec("str", True),  # blank (a Go row): taken from the content
    "content": FieldSpec("str", True),
    "tool_name": FieldSpec("str?"),
    # The Go tool omits a NULL project (rows from its nullable-project schema): kept unowned.
    "project": FieldSpec("str?", default=""),
    "scope": FieldSpec("str", default="project"),  # blank (a Go row) means project
    "topic_key": FieldSpec("str?"),
    "normalized_hash": FieldSpec("str?"),
    "revision_count": FieldSpec("int", default=1),
    "duplicate_count": FieldSpec("int", default=1),
    "last_seen_at": FieldSpec("str?"),
    "pinned": FieldSpec("bool", default=False),
    "review_after": FieldSpec("str?"),
    "expires_at": FieldSpec("str?"),
    "created_at": FieldSpec("text", True),
    "updated_at": FieldSpec("str?"),
    "deleted_at": FieldSpec("str?"),
}
PROMPT = {
    "id": FieldSpec("int?"),
    "sync_id": FieldSpec("text", True),
    "session_id": FieldSpec("str?"),
    "content": FieldSpec("str", True),
    "project": FieldSpec("str", default=""),
    "created_at": FieldSpec("text", True),
}
RELATION = {
    "id": FieldSpec("int?"),
    "sync_id": FieldSpec("text", True),
    "source_id": FieldSpec("text", True),
    "target_id": FieldSpec("text", True),
    "relation": FieldSpec("text", True),
    "judgment_status": FieldSpec("text", True),
    "reason": FieldSpec("str?"),
    "evidence": FieldSpec("str?"),
    "confidence": FieldSpec("float?"),
    "marked_by_kind": FieldSpec("str?"),
    "marked_by_actor": FieldSpec("str?"),
    "marked_by_model": FieldSpec("str?"),
    "session_id": FieldSpec("str?"),
    "superseded_at": FieldSpec("str?"),
    "superseded_by_id": FieldSpec("int?"),
    "created_at": FieldSpec("text", True),
    "updated_at": FieldSpec("str?"),
}

_KIND_CHECKS: dict[str, Callable[[Any], bool]] = {
    "text": lambda v: isinstance(v, str) and bool(v.strip()),
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool) or v in (0, 1),
    "float": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}
_KIND_NAMES = {
    "text": "a non-empty string",
    "str": "a string",
    "int": "an integer",
    "bool": "true or false",
    "float": "a number",
}


def invalid(source: str, why: str) -> EngramError:
    """The one error every validation failure becomes."""
    return EngramError(
        "backup.invalid",
        f"{source} is not a valid Engram backup: {why}",
        "nothing was imported; fix the file or export it again",
    )


# 0.1.0 files may predate sync ids: a missing one is derived from the row's content instead.
_LEGACY_SYNC_ID = FieldSpec("str?")


def validate(data: dict[str, Any], version: str, *, source: str) -> BackupRows:
    """Check a parsed backup's records and return them with defaults filled in."""
    legacy = version == "0.1.0"
    observation_spec = {**OBSERVATION, "sync_id": _LEGACY_SYNC_ID} if legacy else OBSERVATION
    prompt_spec = {**PROMPT, "sync_id": _LEGACY_SYNC_ID} if legacy else PROMPT
    rows = BackupRows(
        sessions=_records(data, "sessions", SESSION, source, required=True),
        observations=_records(data, "observations", observation_spec, source, required=True),
        prompts=_records(data, "prompts", prompt_spec, source, required=True),
        # 0.1.0 files of ours had no relations; a Go 2.x one may carry them: read when present.
        relations=_records(data, "relations", RELATION, source),
    )
    _keep_legacy_rows(rows)
    _redact_private(rows)
    from engram.memory.backup_checks import check_rows

    check_rows(rows, lambda why: invalid(source, why))
    for kind, records in (("obs", rows.observations), ("prompt", rows.prompts)):
        for record in records:
            if not record["sync_id"]:
                record["sync_id"] = _legacy_sync_id(kind, record)
    for observation in rows.observations:
        observation["pinned"] = bool(observation["pinned"])  # absent in 0.1.0: not pinned
        observation["updated_at"] = observation["updated_at"] or observation["created_at"]
        if not observation["normalized_hash"]:
            observation["normalized_hash"] = _content_hash(observation["content"])
    for relation in rows.relations:
        relation["updated_at"] = relation["updated_at"] or relation["created_at"]
    _unique(rows.sessions, "sessions", "id", source)
    for kind, records in (
        ("observations", rows.observations),
        ("prompts", rows.prompts),
        ("relations", rows.relations),
    ):
        _unique(records, kind, "sync_id", source)
        _unique([r for r in records if r["id"] is not None], kind, "id", source)
    _store_times(rows)
    relation_ids = {relation["id"] for relation in rows.relations}
    for index, relation in enumerate(rows.relations):
        target = relation["superseded_by_id"]
        if target is not None and target not in relation_ids:
            raise _dangling(
                source, f"relations[{index}].superseded_by_id {target} is not in the file"
            )
    return rows


def _keep_legacy_rows(rows: BackupRows) -> None:
    """What the Go tool's exports hold and ours never do, made the shape the store keeps.

    A NULL project (omitted by the Go tool) becomes ``""``, an unowned row, as the store keeps
    rows of the schema where the project was nullable (``engram projects rescue-ownership``
    assigns one); an empty session id (the Go tool's NOT NULL string) means no session; an
    empty title is taken from the content's first line, an empty type is ``manual``, an empty
    scope ``project``, and a revision or duplicate count of 0 is 1 (the Go tool's floor).
    """
    for kind in (rows.observations, rows.prompts):
        for record in kind:
            if record.get("project") is None:
                record["project"] = ""
            if record.get("session_id") == "":
                record["session_id"] = None
    for observation in rows.observations:
        observation["type"] = observation["type"].strip() or "manual"
        observation["scope"] = observation["scope"].strip() or "project"
        for counter in ("revision_count", "duplicate_count"):  # the Go tool's floor is 1
            # 0 is an old Go row's unset count; a negative one is refused by the checks.
            if isinstance(observation[counter], int) and observation[counter] == 0:
                observation[counter] = 1
        if not observation["title"].strip():
            first = next(
                (ln.strip() for ln in observation["content"].splitlines() if ln.strip()), ""
            )
            observation["title"] = first[:80] or "(untitled)"


def _store_times(rows: BackupRows) -> None:
    """ISO date-times (``2025-03-01T09:10:00Z``, the Go tool's and others') in the store's form,
    UTC ``YYYY-MM-DD HH:MM:SS``, so they sort with every other row; ours pass unchanged."""
    from datetime import datetime

    from engram.memory.backup_checks import TIME_FIELDS
    from engram.memory.clock import stamp

    for kind, names in TIME_FIELDS.items():
        for record in getattr(rows, kind):
            for name in names:
                value = record.get(name)
                if isinstance(value, str) and len(value) > 16 and value[10] == "T":
                    record[name] = stamp(datetime.fromisoformat(value.replace("Z", "+00:00")))


def unowned_count(rows: BackupRows) -> int:
    """How many observations and prompts of a validated backup belong to no project."""
    return sum(1 for kind in (rows.observations, rows.prompts) for r in kind if not r["project"])


# A backup is input like any other: a hand-edited file must not store a <private> span.
_REDACTED_KINDS = ("sessions", "observations", "prompts", "relations")


def _redact_private(rows: BackupRows) -> None:
    """Every text field of every row, not only the obvious ones: a file is untrusted input.

    Redaction is deterministic, so an id redacted here matches the same id redacted in the
    rows that point at it.
    """
    from engram.memory.redaction import redact

    for kind in _REDACTED_KINDS:
        for record in getattr(rows, kind):
            for name, value in list(record.items()):
                if isinstance(value, str) and redact(value) != value:
                    record[name] = redact(value)
                    if name == "content" and kind == "observations":
                        record["normalized_hash"] = None  # recomputed from the redacted text


def _legacy_sync_id(kind: str, record: dict[str, Any]) -> str:
    """A stable id from what the row says, so importing the same old file twice adds nothing."""
    import hashlib

    parts = [str(record.get(key)) for key in ("project", "session_id", "created_at", "title")]
    parts.append(str(record["content"]))
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"{kind}-legacy-{digest}"


def _content_hash(content: str) -> str:
    from engram.memory.save import normalized_hash

    return normalized_hash(content)


def _records(
    data: dict[str, Any],
    key: str,
    spec: dict[str, FieldSpec],
    source: str,
    *,
    required: bool = False,
) -> list[dict[str, Any]]:
    raw = data.get(key)
    if raw is None and not required:
        return []
    if not isinstance(raw, list):
        raise invalid(source, f"`{key}` must be a list")
    return [_record(item, spec, f"{key}[{index}]", source) for index, item in enumerate(raw)]


_LABEL_KEYS = ("id", "sync_id", "title")


def row_name(item: Any) -> str:
    """`` (id 7, sync_id 'obs-1', "Deploy rules")``: what a person finds the row by in the file,
    for the end of an error about it; shortened, on one line, control characters dropped (the
    file may be anyone's). Empty when the row carries none of them."""
    if not isinstance(item, dict):
        return ""
    shown = []
    for key in _LABEL_KEYS:
        value = item.get(key)
        if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
            continue
        text = "".join(c for c in str(value) if c.isprintable())[:60]
        shown.append(f'"{text}"' if key == "title" else f"{key} {text!r}")
    return f" ({', '.join(shown)})" if shown else ""


def _record(item: Any, spec: dict[str, FieldSpec], where: str, source: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise invalid(source, f"{where} must be an object")
    record: dict[str, Any] = {}
    for name, field_spec in spec.items():
        if name not in item or (item[name] is None and not field_spec.kind.endswith("?")):
            if field_spec.required:
                raise invalid(source, f"{where} is missing `{name}`{row_name(item)}")
            record[name] = field_spec.default
            continue
        value = item[name]
        kind = field_spec.kind.rstrip("?")
        if value is not None and not _KIND_CHECKS[kind](value):
            raise invalid(source, f"{where}.{name} must be {_KIND_NAMES[kind]}{row_name(item)}")
        record[name] = value
    return record


def _unique(records: list[dict[str, Any]], kind: str, key: str, source: str) -> None:
    seen: set[Any] = set()
    for index, record in enumerate(records):
        if record[key] in seen:
            raise invalid(
                source, f"{kind}[{index}].{key} {record[key]!r} appears twice{row_name(record)}"
            )
        seen.add(record[key])


def _dangling(source: str, why: str) -> EngramError:
    return EngramError(
        "backup.dangling_reference",
        f"{source} cannot be imported: {why}",
        "nothing was imported; export the complete project (or --all) and import that file",
    )


def check_references(conn: sqlite3.Connection, rows: BackupRows, *, source: str) -> None:
    """References that may point into the store: sessions of rows, relation endpoints."""
    session_ids = {session["id"] for session in rows.sessions}
    for kind, records in (("observations", rows.observations), ("prompts", rows.prompts)):
        for index, record in enumerate(records):
            session_id = record["session_id"]
            if session_id is None or session_id in session_ids:
                continue
            if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
                session_ids.add(session_id)
                continue
            raise _dangling(
                source,
                f"{kind}[{index}]{row_name(record)} names session {session_id!r}, which is missing",
            )
    in_file = {observation["sync_id"] for observation in rows.observations}
    wanted = sorted(
        {r[end] for r in rows.relations for end in ("source_id", "target_id")} - in_file
    )
    known = in_file | observation_sync_ids(conn, wanted)
    for index, relation in enumerate(rows.relations):
        if relation["judgment_status"] == "orphaned":
            continue  # audit rows may outlive their observations
        for end in ("source_id", "target_id"):
            if relation[end] not in known:
                raise _dangling(
                    source,
                    f"relations[{index}].{end} {relation[end]!r} names no observation"
                    f"{row_name(relation)}",
                )
