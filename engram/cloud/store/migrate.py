"""Numbered Postgres migrations for the cloud store.

Every ``migrations/NNNN_name.sql`` is one migration. ``migrate(conn)`` takes a transaction-level
advisory lock (so two ``engram cloud serve`` processes starting together migrate once), then
applies each file above the recorded version in that same transaction. Never edit an applied
file; add the next number.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import psycopg

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# An arbitrary constant naming "the engram cloud schema" for pg_advisory_xact_lock.
_MIGRATION_LOCK = 0x656E6772616D

_CREATE_LEDGER = """
    CREATE TABLE IF NOT EXISTS cloud_schema_migrations (
        version     INT PRIMARY KEY,
        name        TEXT NOT NULL,
        applied_at  TIMESTAMPTZ NOT NULL DEFAULT NOW()
    )
"""


def available_migrations() -> list[tuple[int, str, str]]:
    """``(version, file name, sql)`` of every shipped migration, in order."""
    found: dict[int, tuple[int, str, str]] = {}
    for entry in Path(__file__).with_name("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            version = int(match.group(1))
            if version in found:
                raise RuntimeError(f"two cloud migrations share number {version:04d}")
            found[version] = (version, entry.name, entry.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


def migrate(conn: psycopg.Connection[dict[str, Any]]) -> int:
    """Bring the schema up to date in one transaction; return the resulting version."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%(key)s)", {"key": _MIGRATION_LOCK})
        conn.execute(_CREATE_LEDGER)
        row = conn.execute("SELECT COALESCE(MAX(version), 0) AS v FROM cloud_schema_migrations")
        found = row.fetchone()
        current = int(found["v"]) if found else 0
        for version, name, sql in available_migrations():
            if version <= current:
                continue
            conn.execute(sql.encode("utf-8"))
            conn.execute(
                "INSERT INTO cloud_schema_migrations (version, name) VALUES (%(v)s, %(n)s)",
                {"v": version, "n": name},
            )
            current = version
    return current
