-- Local runtime (engram serve): session leases and the store's instance id.
-- A lease is local liveness evidence only: never synced, never exported.
ALTER TABLE sessions ADD COLUMN runtime_lease_expires_at TEXT;

-- A random id naming this store (GET /health answers it; a restarted server keeps it).
CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO store_meta (key, value) VALUES ('instance_id', lower(hex(randomblob(16))));
