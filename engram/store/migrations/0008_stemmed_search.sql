-- Stemmed full-text search: both observation indexes use the Porter stemmer over unicode61,
-- so "caching", "cached" and "caches" all match "cache" and a memory saved as "retried"
-- answers a search for "retries". Filter keys (hex) pass through the stemmer unchanged in
-- meaning: no two keys stem to the same token.
--
-- The triggers of migrations 0003/0004 write to these tables by name and keep working.
-- Only live rows are indexed (soft-deleted ones stay out, as before).

DROP TABLE observations_fts;

CREATE VIRTUAL TABLE observations_fts USING fts5 (
    title, content, tool_name, type, project, topic_key, search_keys,
    content = 'observations', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO observations_fts
    (rowid, title, content, tool_name, type, project, topic_key, search_keys)
SELECT id, title, content, tool_name, type, project, topic_key, search_keys
FROM observations WHERE deleted_at IS NULL;

DROP TABLE observation_titles;

CREATE VIRTUAL TABLE observation_titles USING fts5 (
    title, search_keys,
    content = 'observations', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO observation_titles (rowid, title, search_keys)
SELECT id, title, search_keys FROM observations WHERE deleted_at IS NULL;
