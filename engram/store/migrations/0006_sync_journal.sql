-- The sync journal: every change to a shared memory (session, observation, prompt, relation)
-- is recorded by a trigger in the same transaction as the change, so no write path can
-- forget it. Local-only state (pins, review clock, duplicate counters) fires no trigger.
-- The format of the payloads is described in docs/sync.md; engram/sync reads it.

-- This replica's identity: the "origin" of every mutation it writes.
CREATE TABLE sync_device (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    device_id  TEXT NOT NULL,
    created_at TEXT NOT NULL
);
INSERT INTO sync_device (singleton, device_id, created_at)
VALUES (1, lower(hex(randomblob(8))), strftime('%Y-%m-%d %H:%M:%S', 'now'));

-- seq is the local, strictly increasing sequence (AUTOINCREMENT never reuses a number). It is
-- also a Lamport clock: after applying remote mutations the store raises the sequence above
-- every remote seq it saw, so a local edit always sorts after what it was made on top of.
CREATE TABLE sync_mutations (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    entity     TEXT NOT NULL,                  -- session | observation | prompt | relation
    entity_key TEXT NOT NULL,                  -- session id, or the row's sync_id
    op         TEXT NOT NULL,                  -- upsert | delete
    project    TEXT NOT NULL DEFAULT '',
    payload    TEXT NOT NULL                   -- JSON object: the entity's shared fields
);
CREATE INDEX sync_mutations_entity ON sync_mutations (entity_key, seq);

-- Per target (git, a cloud server): lifecycle, cursor and error bookkeeping.
CREATE TABLE sync_state (
    target_key           TEXT PRIMARY KEY,
    lifecycle            TEXT NOT NULL DEFAULT 'idle',
    last_acked_seq       INTEGER NOT NULL DEFAULT 0,
    last_pulled_seq      INTEGER NOT NULL DEFAULT 0,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    backoff_until        TEXT,
    lease_owner          TEXT,
    lease_until          TEXT,
    last_error           TEXT,
    last_sync_at         TEXT,
    updated_at           TEXT
);

-- Export cursors: the last seq written to a target for one project ('*' = every project).
CREATE TABLE sync_cursors (
    target_key TEXT NOT NULL,
    project    TEXT NOT NULL,
    last_seq   INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT,
    PRIMARY KEY (target_key, project)
);

-- Chunks already applied (or written) here, per target.
CREATE TABLE sync_chunks (
    target_key  TEXT NOT NULL,
    chunk_id    TEXT NOT NULL,
    imported_at TEXT NOT NULL,
    PRIMARY KEY (target_key, chunk_id)
);

-- The version (Lamport clock, origin) of the remote mutation that last won for an entity.
CREATE TABLE sync_versions (
    entity     TEXT NOT NULL,
    entity_key TEXT NOT NULL,
    clock      INTEGER NOT NULL,
    origin     TEXT NOT NULL,
    PRIMARY KEY (entity, entity_key)
);

-- Versions that lost a concurrent edit: kept, never silently dropped.
CREATE TABLE sync_revisions (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    entity        TEXT NOT NULL,
    entity_key    TEXT NOT NULL,
    origin        TEXT NOT NULL,
    clock         INTEGER NOT NULL,
    payload       TEXT NOT NULL,
    winner_origin TEXT NOT NULL,
    winner_clock  INTEGER NOT NULL,
    recorded_at   TEXT NOT NULL,
    UNIQUE (entity, entity_key, origin, clock)
);

-- Hard deletes: an upsert for a tombstoned entity is ignored (no resurrection).
CREATE TABLE sync_delete_tombstones (
    entity                   TEXT NOT NULL,
    entity_key               TEXT NOT NULL,
    session_id               TEXT,
    project                  TEXT NOT NULL DEFAULT '',
    deleted_at               TEXT NOT NULL,
    hard_delete              INTEGER NOT NULL DEFAULT 1,
    active                   INTEGER NOT NULL DEFAULT 1,
    last_mutation_seq        INTEGER,
    last_remote_mutation_seq INTEGER,
    PRIMARY KEY (entity, entity_key)
);

-- Pulled mutations whose parent (a session, a relation's observation) is not local yet.
CREATE TABLE sync_apply_deferred (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    target_key        TEXT NOT NULL,
    origin            TEXT NOT NULL,
    remote_seq        INTEGER NOT NULL,
    entity            TEXT NOT NULL,
    entity_key        TEXT NOT NULL,
    op                TEXT NOT NULL,
    project           TEXT NOT NULL DEFAULT '',
    scope             TEXT,
    payload           TEXT NOT NULL,
    retry_count       INTEGER NOT NULL DEFAULT 0,
    apply_status      TEXT NOT NULL DEFAULT 'deferred',  -- deferred | applied | dead
    last_error        TEXT,
    first_seen_at     TEXT NOT NULL,
    last_attempted_at TEXT,
    UNIQUE (origin, remote_seq)
);
CREATE INDEX sync_apply_deferred_status ON sync_apply_deferred (apply_status, remote_seq);

-- Projects enrolled for cloud replication (used by the cloud transport).
CREATE TABLE sync_enrolled_projects (
    project     TEXT PRIMARY KEY,
    enrolled_at TEXT NOT NULL
);

-- Journal triggers ---------------------------------------------------------------------------

CREATE TRIGGER sync_sessions_insert AFTER INSERT ON sessions BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('session', new.id, 'upsert', new.project, json_object(
        'id', new.id, 'project', new.project, 'ownership_mode', new.ownership_mode,
        'directory', new.directory, 'started_at', new.started_at, 'ended_at', new.ended_at,
        'summary', new.summary));
END;

CREATE TRIGGER sync_sessions_update
AFTER UPDATE OF id, project, ownership_mode, directory, started_at, ended_at, summary ON sessions
BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('session', new.id, 'upsert', new.project, json_object(
        'id', new.id, 'project', new.project, 'ownership_mode', new.ownership_mode,
        'directory', new.directory, 'started_at', new.started_at, 'ended_at', new.ended_at,
        'summary', new.summary));
END;

CREATE TRIGGER sync_sessions_delete AFTER DELETE ON sessions BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('session', old.id, 'delete', old.project, json_object(
        'id', old.id, 'project', old.project,
        'deleted_at', strftime('%Y-%m-%d %H:%M:%S', 'now')));
    INSERT OR REPLACE INTO sync_delete_tombstones
        (entity, entity_key, session_id, project, deleted_at, last_mutation_seq)
    VALUES ('session', old.id, old.id, old.project, strftime('%Y-%m-%d %H:%M:%S', 'now'),
            last_insert_rowid());
END;

CREATE TRIGGER sync_observations_insert AFTER INSERT ON observations BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('observation', new.sync_id, 'upsert', new.project, json_object(
        'sync_id', new.sync_id, 'session_id', new.session_id, 'type', new.type,
        'title', new.title, 'content', new.content, 'tool_name', new.tool_name,
        'project', new.project, 'scope', new.scope, 'topic_key', new.topic_key,
        'normalized_hash', new.normalized_hash, 'revision_count', new.revision_count,
        'expires_at', new.expires_at, 'created_at', new.created_at,
        'updated_at', new.updated_at, 'deleted_at', new.deleted_at));
END;

-- Pins, the review clock, duplicate_count and last_seen_at are local: not in this list.
CREATE TRIGGER sync_observations_update
AFTER UPDATE OF sync_id, session_id, type, title, content, tool_name, project, scope, topic_key,
    normalized_hash, revision_count, expires_at, created_at, updated_at, deleted_at
ON observations BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('observation', new.sync_id, 'upsert', new.project, json_object(
        'sync_id', new.sync_id, 'session_id', new.session_id, 'type', new.type,
        'title', new.title, 'content', new.content, 'tool_name', new.tool_name,
        'project', new.project, 'scope', new.scope, 'topic_key', new.topic_key,
        'normalized_hash', new.normalized_hash, 'revision_count', new.revision_count,
        'expires_at', new.expires_at, 'created_at', new.created_at,
        'updated_at', new.updated_at, 'deleted_at', new.deleted_at));
END;

CREATE TRIGGER sync_observations_delete AFTER DELETE ON observations BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('observation', old.sync_id, 'delete', old.project, json_object(
        'sync_id', old.sync_id, 'session_id', old.session_id, 'project', old.project,
        'deleted_at', strftime('%Y-%m-%d %H:%M:%S', 'now')));
    INSERT OR REPLACE INTO sync_delete_tombstones
        (entity, entity_key, session_id, project, deleted_at, last_mutation_seq)
    VALUES ('observation', old.sync_id, old.session_id, old.project,
            strftime('%Y-%m-%d %H:%M:%S', 'now'), last_insert_rowid());
END;

CREATE TRIGGER sync_prompts_insert AFTER INSERT ON user_prompts BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('prompt', new.sync_id, 'upsert', new.project, json_object(
        'sync_id', new.sync_id, 'session_id', new.session_id, 'content', new.content,
        'project', new.project, 'created_at', new.created_at));
END;

CREATE TRIGGER sync_prompts_update
AFTER UPDATE OF sync_id, session_id, content, project, created_at ON user_prompts BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('prompt', new.sync_id, 'upsert', new.project, json_object(
        'sync_id', new.sync_id, 'session_id', new.session_id, 'content', new.content,
        'project', new.project, 'created_at', new.created_at));
END;

CREATE TRIGGER sync_prompts_delete AFTER DELETE ON user_prompts BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('prompt', old.sync_id, 'delete', old.project, json_object(
        'sync_id', old.sync_id, 'session_id', old.session_id, 'project', old.project,
        'deleted_at', strftime('%Y-%m-%d %H:%M:%S', 'now')));
    INSERT OR REPLACE INTO sync_delete_tombstones
        (entity, entity_key, session_id, project, deleted_at, last_mutation_seq)
    VALUES ('prompt', old.sync_id, old.session_id, old.project,
            strftime('%Y-%m-%d %H:%M:%S', 'now'), last_insert_rowid());
END;

-- A relation has no project column: its project is its source observation's.
CREATE TRIGGER sync_relations_insert AFTER INSERT ON memory_relations BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('relation', new.sync_id, 'upsert',
        coalesce((SELECT project FROM observations WHERE sync_id = new.source_id), ''),
        json_object(
        'sync_id', new.sync_id, 'source_id', new.source_id, 'target_id', new.target_id,
        'relation', new.relation, 'judgment_status', new.judgment_status,
        'reason', new.reason, 'evidence', new.evidence, 'confidence', new.confidence,
        'marked_by_kind', new.marked_by_kind, 'marked_by_actor', new.marked_by_actor,
        'marked_by_model', new.marked_by_model, 'session_id', new.session_id,
        'superseded_at', new.superseded_at, 'created_at', new.created_at,
        'updated_at', new.updated_at));
END;

CREATE TRIGGER sync_relations_update
AFTER UPDATE OF sync_id, source_id, target_id, relation, judgment_status, reason, evidence,
    confidence, marked_by_kind, marked_by_actor, marked_by_model, session_id, superseded_at,
    created_at, updated_at
ON memory_relations BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('relation', new.sync_id, 'upsert',
        coalesce((SELECT project FROM observations WHERE sync_id = new.source_id), ''),
        json_object(
        'sync_id', new.sync_id, 'source_id', new.source_id, 'target_id', new.target_id,
        'relation', new.relation, 'judgment_status', new.judgment_status,
        'reason', new.reason, 'evidence', new.evidence, 'confidence', new.confidence,
        'marked_by_kind', new.marked_by_kind, 'marked_by_actor', new.marked_by_actor,
        'marked_by_model', new.marked_by_model, 'session_id', new.session_id,
        'superseded_at', new.superseded_at, 'created_at', new.created_at,
        'updated_at', new.updated_at));
END;

-- Backfill: memories written before this migration enter the journal once, parents first.
INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
SELECT 'session', id, 'upsert', project, json_object(
    'id', id, 'project', project, 'ownership_mode', ownership_mode, 'directory', directory,
    'started_at', started_at, 'ended_at', ended_at, 'summary', summary)
FROM sessions ORDER BY started_at, rowid;

INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
SELECT 'observation', sync_id, 'upsert', project, json_object(
    'sync_id', sync_id, 'session_id', session_id, 'type', type, 'title', title,
    'content', content, 'tool_name', tool_name, 'project', project, 'scope', scope,
    'topic_key', topic_key, 'normalized_hash', normalized_hash,
    'revision_count', revision_count, 'expires_at', expires_at, 'created_at', created_at,
    'updated_at', updated_at, 'deleted_at', deleted_at)
FROM observations ORDER BY id;

INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
SELECT 'prompt', sync_id, 'upsert', project, json_object(
    'sync_id', sync_id, 'session_id', session_id, 'content', content, 'project', project,
    'created_at', created_at)
FROM user_prompts ORDER BY id;

INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
SELECT 'relation', r.sync_id, 'upsert', coalesce(o.project, ''), json_object(
    'sync_id', r.sync_id, 'source_id', r.source_id, 'target_id', r.target_id,
    'relation', r.relation, 'judgment_status', r.judgment_status, 'reason', r.reason,
    'evidence', r.evidence, 'confidence', r.confidence, 'marked_by_kind', r.marked_by_kind,
    'marked_by_actor', r.marked_by_actor, 'marked_by_model', r.marked_by_model,
    'session_id', r.session_id, 'superseded_at', r.superseded_at, 'created_at', r.created_at,
    'updated_at', r.updated_at)
FROM memory_relations AS r LEFT JOIN observations AS o ON o.sync_id = r.source_id
ORDER BY r.id;

INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
SELECT 'prompt', sync_id, 'delete', project, json_object(
    'sync_id', sync_id, 'session_id', session_id, 'project', project, 'deleted_at', deleted_at)
FROM prompt_tombstones ORDER BY deleted_at;

INSERT INTO sync_delete_tombstones (entity, entity_key, session_id, project, deleted_at)
SELECT 'prompt', sync_id, session_id, project, deleted_at FROM prompt_tombstones;
