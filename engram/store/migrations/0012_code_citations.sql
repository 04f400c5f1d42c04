-- Code citations: the files and symbols a memory names, as they were when it was saved, and
-- what a check last learned about each cited file. Both are local to this machine (paths of
-- a working tree): they are not journalled for sync.

CREATE TABLE code_citations (
    id             INTEGER PRIMARY KEY,
    observation_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    repo_root      TEXT NOT NULL,
    commit_id      TEXT NOT NULL DEFAULT '',
    path           TEXT NOT NULL,
    line           INTEGER,
    symbol         TEXT,
    symbol_kind    TEXT,
    blob_id        TEXT NOT NULL,
    used_at        TEXT NOT NULL
);
CREATE INDEX code_citations_observation ON code_citations (observation_id);

-- One row per file of a working tree: the identity it had when checked ("<mtime_ns>:<size>",
-- or "missing:<HEAD>:<from commit>"), its blob id and defined names, or where it went.
CREATE TABLE code_file_checks (
    repo_root  TEXT NOT NULL,
    path       TEXT NOT NULL,
    identity   TEXT NOT NULL,
    blob_id    TEXT,
    symbols    TEXT,
    moved_to   TEXT,
    deleted_in TEXT,
    PRIMARY KEY (repo_root, path)
) WITHOUT ROWID;
