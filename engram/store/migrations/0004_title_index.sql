-- A second, title-only FTS5 index over observations. Ranking boosts titles and a save looks
-- for similar titles; a column filter on the main index (title : "word") has to walk every
-- row of a word until one holds it in the title, while this index holds title words only.

CREATE VIRTUAL TABLE observation_titles USING fts5 (
    title, search_keys,
    content = 'observations', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER observation_titles_insert AFTER INSERT ON observations
WHEN new.deleted_at IS NULL BEGIN
    INSERT INTO observation_titles (rowid, title, search_keys)
    VALUES (new.id, new.title, new.search_keys);
END;

CREATE TRIGGER observation_titles_delete AFTER DELETE ON observations
WHEN old.deleted_at IS NULL BEGIN
    INSERT INTO observation_titles (observation_titles, rowid, title, search_keys)
    VALUES ('delete', old.id, old.title, old.search_keys);
END;

CREATE TRIGGER observation_titles_update
AFTER UPDATE OF title, type, project, scope, deleted_at ON observations
BEGIN
    INSERT INTO observation_titles (observation_titles, rowid, title, search_keys)
    SELECT 'delete', old.id, old.title, old.search_keys WHERE old.deleted_at IS NULL;
    INSERT INTO observation_titles (rowid, title, search_keys)
    SELECT new.id, new.title, new.search_keys WHERE new.deleted_at IS NULL;
END;

INSERT INTO observation_titles (rowid, title, search_keys)
SELECT id, title, search_keys FROM observations WHERE deleted_at IS NULL;
