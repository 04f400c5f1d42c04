-- Revision history of an observation: its type, title and content as they were before each
-- change of title or content (a topic upsert, an update). Versions count from 1 per
-- observation, oldest first; the row itself is the current state. Local only: never synced,
-- exported or backed up (the Go tool keeps its versions the same way).
CREATE TABLE observation_revisions (
    id INTEGER PRIMARY KEY,
    observation_id INTEGER NOT NULL,
    version INTEGER NOT NULL,
    type TEXT NOT NULL,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (observation_id, version)
);

CREATE TRIGGER observation_revisions_capture AFTER UPDATE OF title, content ON observations
WHEN old.title IS NOT new.title OR old.content IS NOT new.content
BEGIN
    INSERT INTO observation_revisions (observation_id, version, type, title, content, created_at)
    VALUES (
        old.id,
        coalesce(
            (SELECT max(version) FROM observation_revisions WHERE observation_id = old.id), 0
        ) + 1,
        old.type, old.title, old.content, strftime('%Y-%m-%d %H:%M:%S', 'now'));
END;

CREATE TRIGGER observation_revisions_forget AFTER DELETE ON observations BEGIN
    DELETE FROM observation_revisions WHERE observation_id = old.id;
END;
