-- Governed project knowledge (the engram_* tools): rules, decisions, conventions and
-- working-tier notes. Separate from the journal's observations table on purpose: these rows
-- are only written after a human approved them (or ran the CLI with --force).

CREATE TABLE governed_memories (
    rowid         INTEGER PRIMARY KEY,
    id            TEXT NOT NULL,                    -- the handle agents fetch by (a slug)
    project       TEXT NOT NULL,                    -- '' for scope 'global'
    scope         TEXT NOT NULL CHECK (scope IN ('project', 'global')),
    tier          TEXT NOT NULL CHECK (tier IN ('durable', 'working')),
    key           TEXT NOT NULL,                    -- topic identity used for UPDATE verdicts
    type          TEXT NOT NULL,
    title         TEXT NOT NULL,
    body          TEXT NOT NULL,
    variants      TEXT NOT NULL DEFAULT '{}',       -- JSON {variant name: wording}
    roles         TEXT NOT NULL DEFAULT '[]',       -- JSON list; [] = every role
    objective     TEXT NOT NULL DEFAULT '',
    source        TEXT NOT NULL,                    -- proposal | note | promote
    content_hash  TEXT NOT NULL,
    norm_hash     TEXT NOT NULL,                    -- hash of normalized title+body (NOOP check)
    status        TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded')),
    superseded_by TEXT,
    valid_until   TEXT,                             -- YYYY-MM-DD, working tier only
    usage_count   INTEGER NOT NULL DEFAULT 0,
    fetch_count   INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    UNIQUE (project, tier, id)
);

CREATE INDEX governed_memories_lookup ON governed_memories (project, tier, status, type);
CREATE INDEX governed_memories_key ON governed_memories (project, scope, key);
CREATE INDEX governed_memories_norm ON governed_memories (norm_hash);

CREATE VIRTUAL TABLE governed_fts USING fts5(
    title, body, key, type,
    content = 'governed_memories',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61'
);

CREATE TRIGGER governed_memories_ai AFTER INSERT ON governed_memories BEGIN
    INSERT INTO governed_fts (rowid, title, body, key, type)
    VALUES (new.rowid, new.title, new.body, new.key, new.type);
END;

CREATE TRIGGER governed_memories_ad AFTER DELETE ON governed_memories BEGIN
    INSERT INTO governed_fts (governed_fts, rowid, title, body, key, type)
    VALUES ('delete', old.rowid, old.title, old.body, old.key, old.type);
END;

CREATE TRIGGER governed_memories_au AFTER UPDATE OF title, body, key, type ON governed_memories
BEGIN
    INSERT INTO governed_fts (governed_fts, rowid, title, body, key, type)
    VALUES ('delete', old.rowid, old.title, old.body, old.key, old.type);
    INSERT INTO governed_fts (rowid, title, body, key, type)
    VALUES (new.rowid, new.title, new.body, new.key, new.type);
END;

-- Per-project switches: active roles, rule-variant mode.
CREATE TABLE governed_settings (
    project TEXT NOT NULL,
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (project, name)
);
