-- Core journal schema: sessions, observations, prompts, relations and their FTS5 indexes.
-- Timestamps are UTC text 'YYYY-MM-DD HH:MM:SS' so they sort and compare as strings.

CREATE TABLE sessions (
    id             TEXT PRIMARY KEY,
    project        TEXT NOT NULL DEFAULT '',
    ownership_mode TEXT NOT NULL DEFAULT 'shared',
    directory      TEXT NOT NULL DEFAULT '',
    started_at     TEXT NOT NULL,
    ended_at       TEXT,
    summary        TEXT
);
CREATE INDEX sessions_project_started ON sessions (project, started_at);
CREATE INDEX sessions_started ON sessions (started_at);

CREATE TABLE observations (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    sync_id         TEXT NOT NULL UNIQUE,
    session_id      TEXT REFERENCES sessions (id),
    type            TEXT NOT NULL DEFAULT 'manual',
    title           TEXT NOT NULL,
    content         TEXT NOT NULL,
    tool_name       TEXT,
    project         TEXT NOT NULL DEFAULT '',
    scope           TEXT NOT NULL DEFAULT 'project',
    topic_key       TEXT,
    normalized_hash TEXT NOT NULL,
    revision_count  INTEGER NOT NULL DEFAULT 1,
    duplicate_count INTEGER NOT NULL DEFAULT 1,
    last_seen_at    TEXT,
    pinned          INTEGER NOT NULL DEFAULT 0,
    review_after    TEXT,
    expires_at      TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    deleted_at      TEXT
);
CREATE INDEX observations_project_created ON observations (project, created_at);
CREATE INDEX observations_created ON observations (created_at);
CREATE INDEX observations_session ON observations (session_id, id);
CREATE INDEX observations_dedup ON observations (normalized_hash, project, scope, type, title);
CREATE INDEX observations_topic ON observations (project, scope, topic_key)
    WHERE topic_key IS NOT NULL;
CREATE INDEX observations_pinned ON observations (project, pinned) WHERE pinned = 1;
CREATE INDEX observations_review ON observations (review_after) WHERE review_after IS NOT NULL;

CREATE TABLE user_prompts (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    sync_id    TEXT NOT NULL UNIQUE,
    session_id TEXT REFERENCES sessions (id),
    content    TEXT NOT NULL,
    project    TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE INDEX user_prompts_project_created ON user_prompts (project, created_at);
CREATE INDEX user_prompts_created ON user_prompts (created_at);
CREATE INDEX user_prompts_session ON user_prompts (session_id);

CREATE TABLE prompt_tombstones (
    sync_id    TEXT PRIMARY KEY,
    session_id TEXT,
    project    TEXT NOT NULL DEFAULT '',
    deleted_at TEXT NOT NULL
);

-- Verdicts between two observations, keyed by their sync_ids so they survive export/import.
-- No project column: the project is derived from the joined observations.
CREATE TABLE memory_relations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    sync_id          TEXT NOT NULL UNIQUE,
    source_id        TEXT NOT NULL,
    target_id        TEXT NOT NULL,
    relation         TEXT NOT NULL DEFAULT 'pending',
    judgment_status  TEXT NOT NULL DEFAULT 'pending',
    reason           TEXT,
    evidence         TEXT,
    confidence       REAL,
    marked_by_kind   TEXT,
    marked_by_actor  TEXT,
    marked_by_model  TEXT,
    session_id       TEXT,
    superseded_at    TEXT,
    superseded_by_id INTEGER,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);
CREATE INDEX memory_relations_source ON memory_relations (source_id);
CREATE INDEX memory_relations_target ON memory_relations (target_id);

-- External-content FTS5 indexes. Soft-deleted observations are kept out of the index, so
-- search never finds them; the triggers below keep both indexes in step with their tables.
CREATE VIRTUAL TABLE observations_fts USING fts5 (
    title, content, tool_name, type, project, topic_key,
    content = 'observations', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER observations_fts_insert AFTER INSERT ON observations
WHEN new.deleted_at IS NULL BEGIN
    INSERT INTO observations_fts (rowid, title, content, tool_name, type, project, topic_key)
    VALUES (new.id, new.title, new.content, new.tool_name, new.type, new.project, new.topic_key);
END;

CREATE TRIGGER observations_fts_delete AFTER DELETE ON observations
WHEN old.deleted_at IS NULL BEGIN
    INSERT INTO observations_fts
        (observations_fts, rowid, title, content, tool_name, type, project, topic_key)
    VALUES ('delete', old.id, old.title, old.content, old.tool_name, old.type, old.project,
            old.topic_key);
END;

-- Only the indexed columns (and deleted_at) matter: pin, review and dedup counters don't
-- touch the index. One trigger, so the old row is always removed before the new one is added.
CREATE TRIGGER observations_fts_update
AFTER UPDATE OF title, content, tool_name, type, project, topic_key, deleted_at ON observations
BEGIN
    INSERT INTO observations_fts
        (observations_fts, rowid, title, content, tool_name, type, project, topic_key)
    SELECT 'delete', old.id, old.title, old.content, old.tool_name, old.type, old.project,
           old.topic_key
    WHERE old.deleted_at IS NULL;
    INSERT INTO observations_fts (rowid, title, content, tool_name, type, project, topic_key)
    SELECT new.id, new.title, new.content, new.tool_name, new.type, new.project, new.topic_key
    WHERE new.deleted_at IS NULL;
END;

CREATE VIRTUAL TABLE prompts_fts USING fts5 (
    content, project,
    content = 'user_prompts', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER prompts_fts_insert AFTER INSERT ON user_prompts BEGIN
    INSERT INTO prompts_fts (rowid, content, project) VALUES (new.id, new.content, new.project);
END;

CREATE TRIGGER prompts_fts_delete AFTER DELETE ON user_prompts BEGIN
    INSERT INTO prompts_fts (prompts_fts, rowid, content, project)
    VALUES ('delete', old.id, old.content, old.project);
END;

CREATE TRIGGER prompts_fts_update AFTER UPDATE OF content, project ON user_prompts BEGIN
    INSERT INTO prompts_fts (prompts_fts, rowid, content, project)
    VALUES ('delete', old.id, old.content, old.project);
    INSERT INTO prompts_fts (rowid, content, project) VALUES (new.id, new.content, new.project);
END;
