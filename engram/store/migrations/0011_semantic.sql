-- Semantic recall (issue 25): an observation's embedding lives beside it, local to this store.
-- The sync triggers name their columns, so no embedding ever travels in a mutation.
ALTER TABLE observations ADD COLUMN embedding BLOB;
ALTER TABLE observations ADD COLUMN embedding_model TEXT;
ALTER TABLE observations ADD COLUMN embedding_created_at TEXT;

-- A vector describes the text it was made from: a new title or content drops it, whichever
-- process (with or without the semantic extra) made the edit, so no stale vector is searched.
CREATE TRIGGER observations_embedding_stale
AFTER UPDATE OF title, content ON observations
WHEN new.embedding IS NOT NULL
    AND (old.title IS NOT new.title OR old.content IS NOT new.content)
BEGIN
    UPDATE observations SET embedding = NULL, embedding_model = NULL,
        embedding_created_at = NULL
    WHERE id = new.id;
END;

-- The vector search's candidate set: live rows of one model, one project (filters first).
CREATE INDEX observations_embedding_model
    ON observations(embedding_model, project, id) WHERE deleted_at IS NULL;
-- What changed since a loaded vector index was read.
CREATE INDEX observations_embedding_created
    ON observations(embedding_created_at) WHERE embedding_created_at IS NOT NULL;
-- What `engram embed --backfill` still has to do.
CREATE INDEX observations_embedding_pending
    ON observations(id) WHERE embedding IS NULL AND deleted_at IS NULL;
