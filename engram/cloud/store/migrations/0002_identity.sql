-- Managed identity: principals, human users, hashed tokens, project grants, the auth audit.

CREATE TABLE cloud_principals (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL DEFAULT 'human' CHECK (kind IN ('human')),
    display_name  TEXT NOT NULL DEFAULT '',
    role          TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    enabled       BOOLEAN NOT NULL DEFAULT TRUE,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT NOW()
);

CREATE TABLE cloud_human_users (
    principal_id  TEXT PRIMARY KEY REFERENCES cloud_principals(id),
    username      TEXT NOT NULL UNIQUE,
    email         TEXT NOT NULL DEFAULT ''
);

CREATE TABLE cloud_tokens (
    id                       TEXT PRIMARY KEY,
    principal_id             TEXT NOT NULL REFERENCES cloud_principals(id),
    -- HMAC-SHA256 of the raw token under ENGRAM_CLOUD_TOKEN_PEPPER; the raw token is never kept.
    token_hash               TEXT NOT NULL UNIQUE,
    token_prefix             TEXT NOT NULL,
    name                     TEXT NOT NULL DEFAULT '',
    created_by_principal_id  TEXT,
    created_at               TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    last_used_at             TIMESTAMPTZ,
    revoked_at               TIMESTAMPTZ,
    revoked_reason           TEXT
);

CREATE INDEX cloud_tokens_by_principal ON cloud_tokens (principal_id);

CREATE TABLE cloud_project_grants (
    principal_id             TEXT NOT NULL REFERENCES cloud_principals(id),
    project                  TEXT NOT NULL,
    granted_by_principal_id  TEXT,
    created_at               TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    PRIMARY KEY (principal_id, project)
);

CREATE TABLE cloud_auth_audit_log (
    id            BIGSERIAL PRIMARY KEY,
    occurred_at   TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    event         TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome IN ('allowed', 'denied')),
    principal_id  TEXT,
    credential    TEXT NOT NULL DEFAULT '',
    project       TEXT,
    route         TEXT,
    reason        TEXT NOT NULL DEFAULT '',
    metadata      JSONB
);

CREATE INDEX cloud_auth_audit_by_time ON cloud_auth_audit_log (occurred_at);
