"""Each peer tool's store, written here from the tool's documented format.

None of the three writes its store offline on this machine: basic-memory needs Python 3.12+
(this one is 3.11), mcp-memory-service's sqlite_vec backend loads an embedding model from a
hub on first use, and claude-mem's npm package stores through its Bun worker. So the stores
are built from their schemas (claude-mem's ``sdk_sessions``/``observations``/
``session_summaries``/``user_prompts``; mcp-memory-service's ``memories``/``metadata``;
basic-memory's Markdown notes with YAML front matter and its ``config.json``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

CLAUDE_MEM_SCHEMA = """
CREATE TABLE sdk_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, {content} TEXT UNIQUE NOT NULL, {memory} TEXT UNIQUE,
  project TEXT NOT NULL, user_prompt TEXT, started_at TEXT NOT NULL,
  started_at_epoch INTEGER NOT NULL, completed_at TEXT, completed_at_epoch INTEGER,
  status TEXT NOT NULL DEFAULT 'active', worker_port INTEGER, prompt_counter INTEGER DEFAULT 1);
CREATE TABLE observations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, {memory} TEXT NOT NULL, project TEXT NOT NULL,
  text TEXT, type TEXT NOT NULL, title TEXT, subtitle TEXT, narrative TEXT, facts TEXT,
  concepts TEXT, files_read TEXT, files_modified TEXT, prompt_number INTEGER,
  discovery_tokens INTEGER DEFAULT 0, created_at TEXT NOT NULL,
  created_at_epoch INTEGER NOT NULL);
CREATE TABLE session_summaries (
  id INTEGER PRIMARY KEY AUTOINCREMENT, {memory} TEXT NOT NULL, project TEXT NOT NULL,
  request TEXT, investigated TEXT, learned TEXT, completed TEXT, next_steps TEXT,
  files_read TEXT, files_edited TEXT, notes TEXT, prompt_number INTEGER,
  discovery_tokens INTEGER DEFAULT 0, created_at TEXT NOT NULL,
  created_at_epoch INTEGER NOT NULL);
CREATE TABLE user_prompts (
  id INTEGER PRIMARY KEY AUTOINCREMENT, {content} TEXT NOT NULL, prompt_number INTEGER NOT NULL,
  prompt_text TEXT NOT NULL, created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL);
CREATE VIRTUAL TABLE observations_fts USING fts5(
  title, subtitle, narrative, text, facts, concepts, content='observations', content_rowid='id');
CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
"""


def claude_mem(path: Path, *, newer_names: bool = False) -> Path:
    """A claude-mem database: two sessions, three observations, a summary, two prompts.

    ``newer_names``: the renamed session columns (content_/memory_session_id)."""
    content, memory = (
        ("content_session_id", "memory_session_id")
        if newer_names
        else ("claude_session_id", "sdk_session_id")
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(CLAUDE_MEM_SCHEMA.format(content=content, memory=memory))
    day = 1735722000000  # 2025-01-01 09:00:00 UTC in ms
    conn.executemany(
        f"INSERT INTO sdk_sessions ({content}, {memory}, project, user_prompt, started_at,"
        " started_at_epoch, completed_at, completed_at_epoch, status) VALUES (?,?,?,?,?,?,?,?,?)",
        [
            ("cc-1", "sdk-1", "shop", "fix login", "2025-01-01T09:00:00.000Z", day,
             "2025-01-01T10:00:00.000Z", day + 3600000, "completed"),
            ("cc-2", "sdk-2", "blog", "add rss", "2025-01-02T09:00:00.000Z", day + 86400000,
             None, None, "active"),
        ],
    )  # fmt: skip
    conn.executemany(
        f"INSERT INTO observations ({memory}, project, text, type, title, subtitle, narrative,"
        " facts, concepts, files_read, files_modified, prompt_number, created_at,"
        " created_at_epoch) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            ("sdk-1", "shop", None, "bugfix", "Login retried twice", "Null token check",
             "The token validation missed a null check.", json.dumps(["tokens can be null"]),
             json.dumps(["auth"]), json.dumps(["src/auth.ts"]), json.dumps(["src/auth.ts"]), 1,
             "2025-01-01T09:10:00.000Z", day + 600000),
            ("sdk-1", "shop", None, "feature", "Remember me", "Cookie for 30 days", None, None,
             None, None, None, 2, "2025-01-01T09:20:00.000Z", day + 1200000),
            ("sdk-2", "blog", "raw legacy text", "discovery", None, None, None, None, None, None,
             None, 1, "2025-01-02T09:10:00.000Z", day + 86400000 + 600000),
        ],
    )  # fmt: skip
    conn.execute(
        f"INSERT INTO session_summaries ({memory}, project, request, investigated, learned,"
        " completed, next_steps, created_at, created_at_epoch) VALUES (?,?,?,?,?,?,?,?,?)",
        ("sdk-1", "shop", "fix login", "auth flow", "tokens can be null", "null check added",
         "add a test", "2025-01-01T09:59:00.000Z", day + 3540000),
    )  # fmt: skip
    conn.executemany(
        f"INSERT INTO user_prompts ({content}, prompt_number, prompt_text, created_at,"
        " created_at_epoch) VALUES (?,?,?,?,?)",
        [
            ("cc-1", 1, "fix the login", "2025-01-01T09:01:00.000Z", day + 60000),
            ("cc-2", 1, "add an rss feed", "2025-01-02T09:01:00.000Z", day + 86460000),
        ],
    )
    conn.commit()
    conn.close()
    return path


MEMORY_SERVICE_SCHEMA = """
CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE memories (
  id INTEGER PRIMARY KEY AUTOINCREMENT, content_hash TEXT UNIQUE NOT NULL,
  content TEXT NOT NULL, tags TEXT, memory_type TEXT, metadata TEXT, created_at REAL,
  updated_at REAL, created_at_iso TEXT, updated_at_iso TEXT, deleted_at REAL DEFAULT NULL);
CREATE INDEX idx_content_hash ON memories(content_hash);
CREATE VIRTUAL TABLE memory_content_fts USING fts5(
  content, content='memories', content_rowid='id', tokenize='trigram');
INSERT INTO metadata VALUES ('distance_metric', 'cosine');
"""


def memory_service(path: Path, *, extra: int = 0) -> Path:
    """An mcp-memory-service database: four memories (one soft-deleted), plus ``extra``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(MEMORY_SERVICE_SCHEMA)
    t = 1735722000.0
    rows = [
        ("h-1", "Deploys go through the staging cluster first", "deploy,ops", "decision",
         json.dumps({"project": "infra"}), t, t + 60, None),
        ("h-2", "Grafana dashboards live in the ops repo", "project:infra,dashboards",
         "reference", "{}", t + 100, t + 100, None),
        ("h-3", "Prefer small pull requests", '["style", "review"]', "note", None, t + 200,
         t + 200, None),
        ("h-4", "Old rule we dropped", "", "note", "{}", t + 300, t + 400, t + 400),
    ]  # fmt: skip
    rows += [
        (f"x-{n}", f"Bulk memory number {n}", "bulk", "note", "{}", t + 1000 + n, t + 1000 + n,
         None)
        for n in range(extra)
    ]  # fmt: skip
    conn.executemany(
        "INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at,"
        " updated_at, deleted_at, created_at_iso) VALUES (?,?,?,?,?,?,?,?,"
        " strftime('%Y-%m-%dT%H:%M:%SZ', ?, 'unixepoch'))",
        [(*row, row[5]) for row in rows],
    )
    conn.commit()
    conn.close()
    return path


def basic_memory(folder: Path, home: Path) -> Path:
    """A basic-memory project folder (registered as ``research`` in its config): three notes."""
    (folder / "decisions").mkdir(parents=True, exist_ok=True)
    (folder / "decisions" / "use-postgres.md").write_text(
        "---\ntitle: Use Postgres\ntype: decision\npermalink: decisions/use-postgres\n"
        "tags:\n- database\n- architecture\ncreated: 2025-02-01T10:00:00\n---\n\n"
        "# Use Postgres\n\nWe store orders in Postgres.\n\n## Observations\n"
        "- [decision] Postgres for orders #database\n- [reason] JSON columns help\n\n"
        "## Relations\n- relates_to [[Order Service]]\n",
        encoding="utf-8",
    )
    (folder / "order-service.md").write_text(
        "---\ntitle: Order Service\ntype: note\npermalink: order-service\n---\n\n"
        "The order service owns checkout.\n\n## Relations\n- uses [[Use Postgres]]\n",
        encoding="utf-8",
    )
    (folder / "scratch.md").write_text("Loose thoughts without front matter\n", encoding="utf-8")
    (folder / ".basic-memory").mkdir(exist_ok=True)
    config = home / ".basic-memory" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"projects": {"research": str(folder)}}), encoding="utf-8")
    return folder
