"""Go engram databases built from the Go tool's schema, as a Go user's ~/.engram holds them.

``V01_SCHEMA`` is the v0.1.x schema (no sync ids, topic keys or soft deletes); ``V2_SCHEMA``
the 2.x one the seed's "Database Schema" section lists (sessions with ownership mode and
runtime lease; observations with sync id, scope, topic key, revision/duplicate counters, pins,
review and expiry times, embeddings and soft deletes; prompts with tombstones; relations; the
target-scoped sync tables). Both carry the Go tool's FTS triggers, which index every row,
soft-deleted ones included. ``populate_*`` write rows the way the Go tool does.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

_GO_FTS_TRIGGERS = """
CREATE TRIGGER obs_fts_insert AFTER INSERT ON observations BEGIN
  INSERT INTO observations_fts(rowid, title, content, tool_name, type, project{topic})
  VALUES (new.id, new.title, new.content, new.tool_name, new.type, new.project{new_topic});
END;
CREATE TRIGGER obs_fts_delete AFTER DELETE ON observations BEGIN
  INSERT INTO observations_fts(observations_fts, rowid, title, content, tool_name, type, project{topic})
  VALUES ('delete', old.id, old.title, old.content, old.tool_name, old.type, old.project{old_topic});
END;
CREATE TRIGGER obs_fts_update AFTER UPDATE ON observations BEGIN
  INSERT INTO observations_fts(observations_fts, rowid, title, content, tool_name, type, project{topic})
  VALUES ('delete', old.id, old.title, old.content, old.tool_name, old.type, old.project{old_topic});
  INSERT INTO observations_fts(rowid, title, content, tool_name, type, project{topic})
  VALUES (new.id, new.title, new.content, new.tool_name, new.type, new.project{new_topic});
END;
CREATE TRIGGER prompt_fts_insert AFTER INSERT ON user_prompts BEGIN
  INSERT INTO prompts_fts(rowid, content, project) VALUES (new.id, new.content, new.project);
END;
CREATE TRIGGER prompt_fts_delete AFTER DELETE ON user_prompts BEGIN
  INSERT INTO prompts_fts(prompts_fts, rowid, content, project)
  VALUES ('delete', old.id, old.content, old.project);
END;
"""

V01_SCHEMA = """
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, project TEXT NOT NULL, directory TEXT NOT NULL,
  started_at TEXT NOT NULL DEFAULT (datetime('now')), ended_at TEXT, summary TEXT);
CREATE TABLE observations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, type TEXT NOT NULL,
  title TEXT NOT NULL, content TEXT NOT NULL, tool_name TEXT, project TEXT,
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  FOREIGN KEY (session_id) REFERENCES sessions(id));
CREATE INDEX idx_obs_session ON observations(session_id);
CREATE INDEX idx_obs_project ON observations(project);
CREATE VIRTUAL TABLE observations_fts USING fts5(
  title, content, tool_name, type, project, content='observations', content_rowid='id');
CREATE TABLE user_prompts (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, content TEXT NOT NULL,
  project TEXT, created_at TEXT NOT NULL DEFAULT (datetime('now')),
  FOREIGN KEY (session_id) REFERENCES sessions(id));
CREATE VIRTUAL TABLE prompts_fts USING fts5(
  content, project, content='user_prompts', content_rowid='id');
CREATE TABLE sync_chunks (
  chunk_id TEXT PRIMARY KEY, imported_at TEXT NOT NULL DEFAULT (datetime('now')));
""" + _GO_FTS_TRIGGERS.format(topic="", new_topic="", old_topic="")

V2_SCHEMA = """
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, project TEXT, ownership_mode TEXT NOT NULL DEFAULT 'shared',
  directory TEXT NOT NULL, started_at TEXT NOT NULL DEFAULT (datetime('now')),
  ended_at TEXT, summary TEXT, runtime_lease_expires_at TEXT);
CREATE TABLE observations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, sync_id TEXT, session_id TEXT NOT NULL,
  type TEXT NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL, tool_name TEXT, project TEXT,
  scope TEXT NOT NULL DEFAULT 'project', topic_key TEXT, normalized_hash TEXT,
  revision_count INTEGER NOT NULL DEFAULT 1, duplicate_count INTEGER NOT NULL DEFAULT 1,
  last_seen_at TEXT, pinned INTEGER NOT NULL DEFAULT 0, review_after TEXT, expires_at TEXT,
  embedding BLOB, embedding_model TEXT, embedding_created_at TEXT,
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')), deleted_at TEXT,
  FOREIGN KEY (session_id) REFERENCES sessions(id));
CREATE INDEX idx_obs_sync_id ON observations(sync_id);
CREATE INDEX idx_obs_topic ON observations(topic_key, project, scope, updated_at DESC);
CREATE VIRTUAL TABLE observations_fts USING fts5(
  title, content, tool_name, type, project, topic_key,
  content='observations', content_rowid='id');
CREATE TABLE user_prompts (
  id INTEGER PRIMARY KEY AUTOINCREMENT, sync_id TEXT, session_id TEXT NOT NULL,
  content TEXT NOT NULL, project TEXT, created_at TEXT NOT NULL DEFAULT (datetime('now')),
  FOREIGN KEY (session_id) REFERENCES sessions(id));
CREATE VIRTUAL TABLE prompts_fts USING fts5(
  content, project, content='user_prompts', content_rowid='id');
CREATE TABLE prompt_tombstones (
  sync_id TEXT PRIMARY KEY, session_id TEXT, project TEXT, deleted_at TEXT NOT NULL);
CREATE TABLE sync_chunks (
  target_key TEXT NOT NULL DEFAULT 'local', chunk_id TEXT NOT NULL,
  imported_at TEXT NOT NULL DEFAULT (datetime('now')), PRIMARY KEY (target_key, chunk_id));
CREATE TABLE sync_state (
  target_key TEXT PRIMARY KEY, lifecycle TEXT NOT NULL DEFAULT 'idle',
  last_enqueued_seq INTEGER NOT NULL DEFAULT 0, last_acked_seq INTEGER NOT NULL DEFAULT 0,
  last_pulled_seq INTEGER NOT NULL DEFAULT 0, consecutive_failures INTEGER NOT NULL DEFAULT 0,
  backoff_until TEXT, lease_owner TEXT, lease_until TEXT, last_error TEXT,
  updated_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE sync_mutations (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, target_key TEXT NOT NULL, entity TEXT NOT NULL,
  entity_key TEXT NOT NULL, op TEXT NOT NULL, payload TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 'local', project TEXT NOT NULL DEFAULT '',
  occurred_at TEXT NOT NULL DEFAULT (datetime('now')), acked_at TEXT, disposition TEXT,
  FOREIGN KEY (target_key) REFERENCES sync_state(target_key));
CREATE TABLE sync_delete_tombstones (
  entity TEXT NOT NULL, entity_key TEXT NOT NULL, session_id TEXT, project TEXT,
  deleted_at TEXT NOT NULL, hard_delete INTEGER NOT NULL DEFAULT 1,
  active INTEGER NOT NULL DEFAULT 1, last_mutation_seq INTEGER,
  last_remote_mutation_seq INTEGER, PRIMARY KEY (entity, entity_key));
CREATE TABLE sync_delete_tombstone_remote_floors (
  target_key TEXT NOT NULL, entity TEXT NOT NULL, entity_key TEXT NOT NULL,
  last_mutation_seq INTEGER NOT NULL, PRIMARY KEY (target_key, entity, entity_key));
CREATE TABLE sync_enrolled_projects (
  project TEXT PRIMARY KEY, enrolled_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE cloud_upgrade_state (
  project TEXT PRIMARY KEY, stage TEXT NOT NULL, repair_class TEXT, snapshot TEXT,
  findings TEXT, actions TEXT, error TEXT, updated_at TEXT NOT NULL);
CREATE TABLE memory_relations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, sync_id TEXT UNIQUE, source_id TEXT NOT NULL,
  target_id TEXT NOT NULL, relation TEXT NOT NULL DEFAULT 'pending',
  judgment_status TEXT NOT NULL DEFAULT 'pending', reason TEXT, evidence TEXT,
  confidence REAL, marked_by_actor TEXT, marked_by_kind TEXT, marked_by_model TEXT,
  session_id TEXT, superseded_at TEXT, superseded_by_id INTEGER,
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE sync_apply_deferred (
  id INTEGER PRIMARY KEY AUTOINCREMENT, target_key TEXT NOT NULL, remote_seq INTEGER NOT NULL,
  entity TEXT NOT NULL, op TEXT NOT NULL, project TEXT, scope TEXT, payload TEXT NOT NULL,
  retry_count INTEGER NOT NULL DEFAULT 0, apply_status TEXT NOT NULL DEFAULT 'deferred',
  last_error TEXT, first_seen_at TEXT NOT NULL DEFAULT (datetime('now')));
""" + _GO_FTS_TRIGGERS.format(
    topic=", topic_key", new_topic=", new.topic_key", old_topic=", old.topic_key"
)


def connect(path: Path, schema: str) -> sqlite3.Connection:
    """A fresh Go database at ``path`` (WAL, like the Go tool), with ``schema`` created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(schema)
    return conn


def populate_v01(conn: sqlite3.Connection) -> None:
    """Two sessions, three observations (one without a project), two prompts, a chunk."""
    conn.executescript(
        """
INSERT INTO sessions VALUES ('s-acme', 'acme', '/w/acme', '2025-01-02 09:00:00',
  '2025-01-02 10:00:00', 'Wired the cache');
INSERT INTO sessions VALUES ('s-beta', 'beta', '/w/beta', '2025-01-03 09:00:00', NULL, NULL);
INSERT INTO observations (session_id, type, title, content, tool_name, project, created_at)
VALUES ('s-acme', 'decision', 'Redis for the cache', 'We cache sessions in redis',
  'Edit', 'acme', '2025-01-02 09:10:00');
INSERT INTO observations (session_id, type, title, content, tool_name, project, created_at)
VALUES ('s-acme', 'bugfix', 'Fixed the flaky login', 'The login retried twice', NULL,
  NULL, '2025-01-02 09:20:00');
INSERT INTO observations (session_id, type, title, content, tool_name, project, created_at)
VALUES ('s-beta', 'pattern', 'Use table tests', 'Table driven tests everywhere', NULL,
  'beta', '2025-01-03 09:05:00');
INSERT INTO user_prompts (session_id, content, project, created_at)
VALUES ('s-acme', 'make the cache faster', 'acme', '2025-01-02 09:01:00');
INSERT INTO user_prompts (session_id, content, project, created_at)
VALUES ('s-beta', 'add tests', NULL, '2025-01-03 09:01:00');
INSERT INTO sync_chunks VALUES ('a3f8c1d2', '2025-01-04 00:00:00');
"""
    )


def populate_v2(conn: sqlite3.Connection) -> None:
    """Every kind of 2.x record: revisions, duplicates, pins, scopes, soft deletes, prompts,
    prompt and delete tombstones, a relation, chunks, sync queue rows, an unowned session."""
    conn.executescript(
        """
INSERT INTO sessions (id, project, ownership_mode, directory, started_at, ended_at, summary,
  runtime_lease_expires_at)
VALUES ('s-acme', 'acme', 'project_owned', '/w/acme', '2025-03-01 09:00:00',
  '2025-03-01 11:00:00', 'Cache work', '2025-03-01 11:30:00');
INSERT INTO sessions (id, project, directory, started_at)
VALUES ('s-legacy', NULL, '/w/old', '2025-02-01 08:00:00');
INSERT INTO observations (sync_id, session_id, type, title, content, tool_name, project, scope,
  topic_key, normalized_hash, revision_count, duplicate_count, last_seen_at, pinned,
  review_after, expires_at, embedding, embedding_model, created_at, updated_at, deleted_at)
VALUES
 ('obs-1111', 's-acme', 'architecture', 'Cache layer', 'Redis in front of postgres', 'Edit',
  'acme', 'project', 'architecture/cache-layer', 'gohash1', 3, 1, '2025-03-01 10:00:00', 1,
  '2025-06-01', NULL, x'0102', 'nomic', '2025-03-01 09:10:00', '2025-03-01 10:40:00', NULL),
 ('obs-2222', 's-acme', 'preference', 'Tabs not spaces', 'I like tabs', NULL, 'acme',
  'personal', NULL, 'gohash2', 1, 4, '2025-03-01 10:50:00', 0, NULL, '2026-01-01', NULL, NULL,
  '2025-03-01 09:20:00', '2025-03-01 09:20:00', NULL),
 ('obs-3333', 's-acme', 'bugfix', 'Removed flaky retry', 'The retry was wrong', NULL, 'acme',
  'project', NULL, 'gohash3', 1, 1, NULL, 0, NULL, NULL, NULL, NULL,
  '2025-03-01 09:30:00', '2025-03-01 09:45:00', '2025-03-01 09:45:00'),
 ('obs-4444', 's-legacy', 'discovery', 'Old unowned note', 'Written before projects', NULL,
  NULL, 'project', '', NULL, 1, 1, NULL, 0, NULL, NULL, NULL, NULL,
  '2025-02-01 08:05:00', '', NULL),
 ('obs-4444', 's-legacy', 'discovery', 'Same sync id twice', 'A copy the Go tool tolerated',
  NULL, NULL, 'project', NULL, NULL, 1, 1, NULL, 0, NULL, NULL, NULL, NULL,
  '2025-02-01 08:06:00', '2025-02-01 08:06:00', NULL);
INSERT INTO user_prompts (sync_id, session_id, content, project, created_at)
VALUES ('prompt-aaaa', 's-acme', 'speed up the cache', 'acme', '2025-03-01 09:01:00'),
       (NULL, 's-legacy', 'what is this repo', NULL, '2025-02-01 08:01:00');
INSERT INTO prompt_tombstones VALUES ('prompt-gone', 's-acme', 'acme', '2025-03-01 09:50:00');
INSERT INTO memory_relations (sync_id, source_id, target_id, relation, judgment_status, reason,
  confidence, marked_by_kind, marked_by_actor, created_at, updated_at)
VALUES ('rel-1', 'obs-1111', 'obs-3333', 'supersedes', 'judged', 'newer decision', 0.9,
  'agent', 'claude', '2025-03-01 10:00:00', '2025-03-01 10:01:00');
INSERT INTO sync_chunks (target_key, chunk_id, imported_at)
VALUES ('local', 'a3f8c1d2', '2025-03-02 00:00:00'), ('cloud', 'c0ffee00', '2025-03-02 00:00:00');
INSERT INTO sync_state (target_key, lifecycle, last_acked_seq) VALUES ('cloud', 'healthy', 7);
INSERT INTO sync_mutations (target_key, entity, entity_key, op, payload, project)
VALUES ('cloud', 'observation', 'obs-1111', 'upsert', '{"sync_id":"obs-1111"}', 'acme');
INSERT INTO sync_delete_tombstones (entity, entity_key, session_id, project, deleted_at,
  last_mutation_seq, last_remote_mutation_seq)
VALUES ('observation', 'obs-9999', 's-acme', 'acme', '2025-03-01 09:55:00', 5, 12);
INSERT INTO sync_enrolled_projects VALUES ('acme', '2025-03-01 08:00:00');
"""
    )


def build_v01(data_dir: Path) -> Path:
    """A populated v0.1.x Go store at ``data_dir/engram.db``."""
    path = data_dir / "engram.db"
    conn = connect(path, V01_SCHEMA)
    populate_v01(conn)
    conn.close()
    return path


def build_v2(data_dir: Path) -> Path:
    """A populated 2.x Go store at ``data_dir/engram.db``."""
    path = data_dir / "engram.db"
    conn = connect(path, V2_SCHEMA)
    populate_v2(conn)
    conn.close()
    return path
