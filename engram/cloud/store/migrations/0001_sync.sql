-- Projects, the replicated mutation log and its chunk history.

CREATE TABLE cloud_projects (
    name          TEXT PRIMARY KEY,
    sync_enabled  BOOLEAN NOT NULL DEFAULT TRUE,
    paused_by     TEXT,
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    -- Highest mutation sequence in this project; the row lock on it orders concurrent pushes.
    last_seq      BIGINT NOT NULL DEFAULT 0,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT NOW()
);

CREATE TABLE cloud_mutations (
    project       TEXT NOT NULL REFERENCES cloud_projects(name),
    seq           BIGINT NOT NULL,
    -- The writing replica's device id and its Lamport clock: a mutation's identity everywhere.
    origin        TEXT NOT NULL,
    clock         BIGINT NOT NULL,
    entity        TEXT NOT NULL,
    entity_key    TEXT NOT NULL,
    op            TEXT NOT NULL,
    payload       JSONB NOT NULL,
    created_by    TEXT NOT NULL,
    principal_id  TEXT,
    chunk_id      TEXT,
    received_at   TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    PRIMARY KEY (project, seq),
    UNIQUE (project, origin, clock)
);

CREATE TABLE cloud_chunks (
    project         TEXT NOT NULL REFERENCES cloud_projects(name),
    chunk_id        TEXT NOT NULL,
    created_by      TEXT NOT NULL,
    origin          TEXT NOT NULL CHECK (origin IN ('push', 'materialized')),
    content         BYTEA NOT NULL,
    mutation_count  INT NOT NULL,
    byte_size       INT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    PRIMARY KEY (project, chunk_id)
);

CREATE INDEX cloud_chunks_by_time ON cloud_chunks (project, created_at, chunk_id);

CREATE TABLE cloud_sync_audit_log (
    id           SERIAL PRIMARY KEY,
    occurred_at  TIMESTAMPTZ DEFAULT NOW(),
    contributor  TEXT NOT NULL,
    project      TEXT NOT NULL,
    action       TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    entry_count  INT DEFAULT 0,
    reason_code  TEXT,
    metadata     JSONB
);

CREATE TABLE cloud_session_authorities (
    session_id     TEXT PRIMARY KEY,
    owner_project  TEXT NOT NULL,
    principal_id   TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT NOW()
);

CREATE TABLE cloud_prompt_pair_claims (
    session_id       TEXT NOT NULL,
    source_inbox_id  TEXT NOT NULL,
    sync_id          TEXT NOT NULL UNIQUE,
    owner_project    TEXT NOT NULL,
    project          TEXT NOT NULL,
    principal_id     TEXT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    PRIMARY KEY (session_id, source_inbox_id)
);
