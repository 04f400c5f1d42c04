"""Convert a Go ``engram`` database into an Engram store, inside the caller's transaction.

The Go tables are renamed aside (``go_<name>``), brought up to the full column set the Go
schema ever had (the way the Go tool's own migration adds columns), our schema is created by
running every migration, and each record is copied by one ``INSERT ... SELECT``: sessions,
observations (ids, topic keys, revision and duplicate counts, pins, review and expiry times,
scope, soft deletes, timestamps), prompts, prompt tombstones, relations, imported-chunk
records, enrolled projects and delete tombstones. Counts are compared before the copied Go
tables are dropped. Go tables with no counterpart here (its cloud mutation queue and cursors,
deferred pulls, upgrade state, anything newer) are kept verbatim under their ``go_`` name.

The FTS indexes are derived data: Go's are dropped (they also index soft-deleted rows) and
ours are filled by our triggers as rows arrive; every row also enters the sync journal once,
like the rows of a store that predates the journal (migration 0006).
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass, field

from engram.store.legacy.detect import columns, tables
from engram.store.migrate import create_schema

# The full column set of each Go table we copy, with the default for a column an older Go
# schema lacks (what the Go migration itself adds).
GO_COLUMNS: dict[str, dict[str, str]] = {
    "sessions": {
        "project": "TEXT",
        "ownership_mode": "TEXT",
        "directory": "TEXT",
        "ended_at": "TEXT",
        "summary": "TEXT",
    },
    "observations": {
        "sync_id": "TEXT",
        "tool_name": "TEXT",
        "project": "TEXT",
        "scope": "TEXT",
        "topic_key": "TEXT",
        "revision_count": "INTEGER",
        "duplicate_count": "INTEGER",
        "last_seen_at": "TEXT",
        "pinned": "INTEGER",
        "review_after": "TEXT",
        "expires_at": "TEXT",
        "updated_at": "TEXT",
        "deleted_at": "TEXT",
    },
    "user_prompts": {"sync_id": "TEXT", "project": "TEXT"},
    "prompt_tombstones": {"session_id": "TEXT", "project": "TEXT", "deleted_at": "TEXT"},
    "memory_relations": {
        "relation": "TEXT",
        "judgment_status": "TEXT",
        "reason": "TEXT",
        "evidence": "TEXT",
        "confidence": "REAL",
        "marked_by_kind": "TEXT",
        "marked_by_actor": "TEXT",
        "marked_by_model": "TEXT",
        "session_id": "TEXT",
        "superseded_at": "TEXT",
        "superseded_by_id": "INTEGER",
        "created_at": "TEXT",
        "updated_at": "TEXT",
    },
    "sync_chunks": {"target_key": "TEXT", "imported_at": "TEXT"},
    "sync_enrolled_projects": {"enrolled_at": "TEXT"},
    "sync_delete_tombstones": {
        "session_id": "TEXT",
        "project": "TEXT",
        "deleted_at": "TEXT",
        "hard_delete": "INTEGER",
        "active": "INTEGER",
        "last_remote_mutation_seq": "INTEGER",
    },
}

_NOW = "strftime('%Y-%m-%d %H:%M:%S', 'now')"
# A sync_id the Go row lacks (v0.1.x had none) or shares with an earlier row gets a stable one.
_SYNC_ID = (
    "CASE WHEN row_number() OVER (PARTITION BY {key} ORDER BY id) = 1 THEN {key}"
    " ELSE {key} || '-dup-' || id END"
)
_OBS_KEY = (
    "coalesce(nullif(trim(sync_id), ''),"
    " legacy_sync_id('obs', coalesce(project, ''), nullif(session_id, ''), created_at, title,"
    " content))"
)
_PROMPT_KEY = (
    "coalesce(nullif(trim(sync_id), ''),"
    " legacy_sync_id('prompt', coalesce(project, ''), nullif(session_id, ''), created_at, NULL,"
    " content))"
)

# (our table, its columns, the SELECT that fills them from the go_ table), parents first.
COPIES: tuple[tuple[str, str, str], ...] = (
    (
        "sessions",
        "id, project, ownership_mode, directory, started_at, ended_at, summary",
        "SELECT id, coalesce(project, ''), coalesce(nullif(ownership_mode, ''), 'shared'),"
        f" coalesce(directory, ''), coalesce(engram_time(started_at), {_NOW}),"
        " engram_time(ended_at), summary"
        " FROM go_sessions ORDER BY started_at, rowid",
    ),
    (
        "observations",
        "id, sync_id, session_id, type, title, content, tool_name, project, scope, topic_key,"
        " normalized_hash, revision_count, duplicate_count, last_seen_at, pinned, review_after,"
        " expires_at, created_at, updated_at, deleted_at",
        "SELECT id, " + _SYNC_ID.format(key=_OBS_KEY) + ", nullif(session_id, ''),"
        " coalesce(nullif(type, ''), 'manual'), engram_title(title, content),"
        " coalesce(content, ''),"
        " tool_name, coalesce(project, ''),"
        " CASE WHEN lower(trim(scope)) IN ('personal', 'global') THEN lower(trim(scope))"
        " ELSE 'project' END,"
        " nullif(topic_key, ''), engram_content_hash(coalesce(content, '')),"
        " max(coalesce(revision_count, 1), 1), max(coalesce(duplicate_count, 1), 1),"
        " engram_time(last_seen_at), CASE WHEN pinned THEN 1 ELSE 0 END,"
        " engram_time(review_after), engram_time(expires_at),"
        f" coalesce(engram_time(created_at), {_NOW}),"
        f" coalesce(engram_time(nullif(updated_at, '')), engram_time(created_at), {_NOW}),"
        " engram_time(nullif(deleted_at, ''))"
        " FROM go_observations ORDER BY id",
    ),
    (
        "user_prompts",
        "id, sync_id, session_id, content, project, created_at",
        "SELECT id, " + _SYNC_ID.format(key=_PROMPT_KEY) + ", nullif(session_id, ''),"
        f" coalesce(content, ''), coalesce(project, ''), coalesce(engram_time(created_at), {_NOW})"
        " FROM go_user_prompts ORDER BY id",
    ),
    (
        "prompt_tombstones",
        "sync_id, session_id, project, deleted_at",
        "SELECT sync_id, session_id, coalesce(project, ''),"
        f" coalesce(engram_time(deleted_at), {_NOW})"
        " FROM go_prompt_tombstones WHERE coalesce(sync_id, '') <> ''",
    ),
    (
        "memory_relations",
        "id, sync_id, source_id, target_id, relation, judgment_status, reason, evidence,"
        " confidence, marked_by_kind, marked_by_actor, marked_by_model, session_id,"
        " superseded_at, superseded_by_id, created_at, updated_at",
        "SELECT id, coalesce(nullif(trim(sync_id), ''), 'rel-legacy-' || id), source_id,"
        " target_id, coalesce(nullif(relation, ''), 'pending'),"
        " coalesce(nullif(judgment_status, ''), 'pending'), reason, evidence, confidence,"
        " marked_by_kind, marked_by_actor, marked_by_model, session_id,"
        f" engram_time(superseded_at), superseded_by_id, coalesce(engram_time(created_at), {_NOW}),"
        f" coalesce(engram_time(nullif(updated_at, '')), engram_time(created_at), {_NOW})"
        " FROM go_memory_relations ORDER BY id",
    ),
    (
        "sync_chunks",
        "target_key, chunk_id, imported_at",
        # The Go tool's local (git) chunk records, keyed by target or not at all, are ours.
        "SELECT CASE WHEN coalesce(target_key, '') IN ('', 'local', 'git') THEN 'git'"
        f" ELSE target_key END, chunk_id, coalesce(imported_at, {_NOW}) FROM go_sync_chunks",
    ),
    (
        "sync_enrolled_projects",
        "project, enrolled_at",
        f"SELECT project, coalesce(enrolled_at, {_NOW}) FROM go_sync_enrolled_projects",
    ),
    (
        "sync_delete_tombstones",
        "entity, entity_key, session_id, project, deleted_at, hard_delete, active,"
        " last_remote_mutation_seq",
        "SELECT entity, entity_key, session_id, coalesce(project, ''),"
        f" coalesce(deleted_at, {_NOW}), coalesce(hard_delete, 1), coalesce(active, 1),"
        " last_remote_mutation_seq FROM go_sync_delete_tombstones",
    ),
)
# Rows that must arrive one for one (the sync bookkeeping tables may merge duplicates).
COUNTED = ("observations", "user_prompts", "memory_relations")

# An old Go binary pointed at the converted store installs its own FTS triggers unless a
# trigger of this name exists; these do nothing, so our index stays exact.
_GUARD_TRIGGERS = (
    "CREATE TRIGGER obs_fts_insert AFTER INSERT ON observations WHEN 0 BEGIN SELECT 1; END",
    "CREATE TRIGGER prompt_fts_insert AFTER INSERT ON user_prompts WHEN 0 BEGIN SELECT 1; END",
)


@dataclass
class ConversionReport:
    """What a conversion copied: rows per table, placeholder sessions, tables kept aside."""

    flavour: str
    copied: dict[str, int] = field(default_factory=dict)
    placeholder_sessions: int = 0
    kept_tables: list[str] = field(default_factory=list)


class ConversionError(Exception):
    """The converted rows do not add up; the caller rolls the transaction back."""


def engram_time(value: str | int | float | bytes | None) -> str | int | float | bytes | None:
    """A timestamp in the store's form (UTC ``YYYY-MM-DD HH:MM:SS``) when it is an ISO date-time
    (``2025-03-01T09:10:00Z``, with offset or fraction); anything else is kept as it is."""
    if not isinstance(value, str) or len(value) < 16 or value[10] not in "T ":
        return value
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def engram_title(title: str | None, content: str | None) -> str:
    """A blank title (the Go tool allowed one) taken from the content's first line, as an
    import of the Go export's row does."""
    if title and title.strip():
        return title
    first = next((ln.strip() for ln in (content or "").splitlines() if ln.strip()), "")
    return first[:80] or "(untitled)"


def content_hash(content: str) -> str:
    """Our dedup hash (the formula of :func:`engram.memory.save.normalized_hash`)."""
    return hashlib.sha256(" ".join(content.split()).casefold().encode("utf-8")).hexdigest()


def legacy_sync_id(
    kind: str,
    project: str | None,
    session_id: str | None,
    created_at: str | None,
    title: str | None,
    content: str | None,
) -> str:
    """A stable sync id for a row that has none: the one ``engram import`` derives for the same
    row of a Go export, so a store and its export never arrive as two copies."""
    parts = [str(value) for value in (project, session_id, created_at, title, content)]
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"{kind}-legacy-{digest}"


def convert(conn: sqlite3.Connection, flavour: str) -> ConversionReport:
    """Convert the Go database on ``conn`` (inside the caller's write transaction, foreign keys
    off). Raises :class:`ConversionError` when a count does not match."""
    conn.create_function("engram_content_hash", 1, content_hash, deterministic=True)
    conn.create_function("engram_time", 1, engram_time, deterministic=True)
    conn.create_function("engram_title", 2, engram_title, deterministic=True)
    conn.create_function("legacy_sync_id", 6, legacy_sync_id, deterministic=True)
    report = ConversionReport(flavour)
    go_tables, foreign = _set_aside(conn)
    for table, extra in GO_COLUMNS.items():
        if table in go_tables:
            _add_missing_columns(conn, f"go_{table}", extra)
    create_schema(conn)
    report.placeholder_sessions = _placeholder_sessions(conn, go_tables)
    for table, cols, select in COPIES:
        if table not in go_tables:
            continue
        verb = "INSERT" if table in COUNTED or table == "sessions" else "INSERT OR IGNORE"
        conn.execute(f"{verb} INTO {table} ({cols}) {select}")
        report.copied[table] = _count(conn, table)
    _check_counts(conn, go_tables, report)
    for table in reversed([copy[0] for copy in COPIES]):
        if table in go_tables:
            conn.execute(f"DROP TABLE go_{table}")
    report.kept_tables = sorted(f"go_{t}" for t in go_tables if t not in GO_COLUMNS) + foreign
    for statement in _GUARD_TRIGGERS:
        conn.execute(statement)
    return report


def _set_aside(conn: sqlite3.Connection) -> tuple[set[str], list[str]]:
    """Drop Go's derived objects (triggers, views, indexes, external-content FTS5 indexes);
    rename its tables (a self-contained FTS5 table holds data: it is renamed too).

    Returns the renamed tables and the virtual tables of other modules, left as they are
    (with their shadow tables): their module may not even be loadable here."""
    for kind in ("trigger", "view"):
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = ?", (kind,)
        ).fetchall():
            conn.execute(f'DROP {kind.upper()} "{name}"')
    virtual = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'"
    ).fetchall()
    foreign, kept_virtual = [], []
    for name, sql in virtual:
        text = " ".join(str(sql).lower().split())
        if "using fts5" not in text:
            foreign.append(str(name))
        elif "content=" in text.replace(" =", "=").replace("= ", "="):
            conn.execute(f'DROP TABLE "{name}"')  # an index over a table: rebuilt by ours
        else:
            kept_virtual.append(str(name))
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    ).fetchall():
        conn.execute(f'DROP INDEX "{name}"')
    shadows = foreign + kept_virtual
    found = {
        name
        for name in tables(conn)
        if not name.startswith("sqlite_")
        and name not in foreign
        and not any(name.startswith(f"{v}_") for v in shadows)
    }
    for name in sorted(found):
        conn.execute(f'ALTER TABLE "{name}" RENAME TO "go_{name}"')
    return found, sorted(foreign)


def _add_missing_columns(conn: sqlite3.Connection, table: str, wanted: dict[str, str]) -> None:
    present = columns(conn, table)
    for name, kind in wanted.items():
        if name not in present:
            conn.execute(f'ALTER TABLE "{table}" ADD COLUMN {name} {kind}')


def _placeholder_sessions(conn: sqlite3.Connection, go_tables: set[str]) -> int:
    """A session for every session id a Go row names but no Go session row has (kept links)."""
    children = [t for t in ("observations", "user_prompts") if t in go_tables]
    if not children:
        return 0
    union = " UNION ALL ".join(
        f"SELECT session_id, project, created_at FROM go_{t}"
        " WHERE coalesce(session_id, '') <> ''"
        " AND session_id NOT IN (SELECT id FROM go_sessions)"
        for t in children
    )
    cursor = conn.execute(
        "INSERT INTO sessions (id, project, directory, started_at)"
        f" SELECT session_id, coalesce(min(project), ''), '', min(created_at) FROM ({union})"
        " GROUP BY session_id"
    )
    return max(cursor.rowcount, 0)


def _count(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _check_counts(conn: sqlite3.Connection, go_tables: set[str], report: ConversionReport) -> None:
    for table in COUNTED:
        if table in go_tables and report.copied[table] != _count(conn, f"go_{table}"):
            raise ConversionError(
                f"{table}: {report.copied[table]} rows converted of {_count(conn, f'go_{table}')}"
            )
    if "sessions" in go_tables:
        expected = _count(conn, "go_sessions") + report.placeholder_sessions
        if report.copied["sessions"] != expected:
            raise ConversionError(f"sessions: {report.copied['sessions']} of {expected}")
