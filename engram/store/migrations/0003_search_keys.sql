-- Filter keys inside the FTS indexes, so a project / type / scope filter narrows matches in the
-- index itself (one token per value, joined with skip-ahead) before anything is ranked.
-- A key is a letter plus the hex of the value's UTF-8 bytes: 'p' || hex(project), ...

ALTER TABLE observations ADD COLUMN search_keys TEXT GENERATED ALWAYS AS (
    'p' || hex(project) || ' t' || hex(type) || ' s' || hex(scope)
) VIRTUAL;

ALTER TABLE user_prompts ADD COLUMN search_keys TEXT GENERATED ALWAYS AS (
    'p' || hex(project)
) VIRTUAL;

DROP TRIGGER observations_fts_insert;
DROP TRIGGER observations_fts_delete;
DROP TRIGGER observations_fts_update;
DROP TABLE observations_fts;

CREATE VIRTUAL TABLE observations_fts USING fts5 (
    title, content, tool_name, type, project, topic_key, search_keys,
    content = 'observations', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER observations_fts_insert AFTER INSERT ON observations
WHEN new.deleted_at IS NULL BEGIN
    INSERT INTO observations_fts
        (rowid, title, content, tool_name, type, project, topic_key, search_keys)
    VALUES (new.id, new.title, new.content, new.tool_name, new.type, new.project,
            new.topic_key, new.search_keys);
END;

CREATE TRIGGER observations_fts_delete AFTER DELETE ON observations
WHEN old.deleted_at IS NULL BEGIN
    INSERT INTO observations_fts
        (observations_fts, rowid, title, content, tool_name, type, project, topic_key,
         search_keys)
    VALUES ('delete', old.id, old.title, old.content, old.tool_name, old.type, old.project,
            old.topic_key, old.search_keys);
END;

-- One trigger, so the old row always leaves the index before the new one enters it.
CREATE TRIGGER observations_fts_update
AFTER UPDATE OF title, content, tool_name, type, project, topic_key, scope, deleted_at
ON observations
BEGIN
    INSERT INTO observations_fts
        (observations_fts, rowid, title, content, tool_name, type, project, topic_key,
         search_keys)
    SELECT 'delete', old.id, old.title, old.content, old.tool_name, old.type, old.project,
           old.topic_key, old.search_keys
    WHERE old.deleted_at IS NULL;
    INSERT INTO observations_fts
        (rowid, title, content, tool_name, type, project, topic_key, search_keys)
    SELECT new.id, new.title, new.content, new.tool_name, new.type, new.project,
           new.topic_key, new.search_keys
    WHERE new.deleted_at IS NULL;
END;

INSERT INTO observations_fts
    (rowid, title, content, tool_name, type, project, topic_key, search_keys)
SELECT id, title, content, tool_name, type, project, topic_key, search_keys
FROM observations WHERE deleted_at IS NULL;

DROP TRIGGER prompts_fts_insert;
DROP TRIGGER prompts_fts_delete;
DROP TRIGGER prompts_fts_update;
DROP TABLE prompts_fts;

CREATE VIRTUAL TABLE prompts_fts USING fts5 (
    content, project, search_keys,
    content = 'user_prompts', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER prompts_fts_insert AFTER INSERT ON user_prompts BEGIN
    INSERT INTO prompts_fts (rowid, content, project, search_keys)
    VALUES (new.id, new.content, new.project, new.search_keys);
END;

CREATE TRIGGER prompts_fts_delete AFTER DELETE ON user_prompts BEGIN
    INSERT INTO prompts_fts (prompts_fts, rowid, content, project, search_keys)
    VALUES ('delete', old.id, old.content, old.project, old.search_keys);
END;

CREATE TRIGGER prompts_fts_update AFTER UPDATE OF content, project ON user_prompts BEGIN
    INSERT INTO prompts_fts (prompts_fts, rowid, content, project, search_keys)
    VALUES ('delete', old.id, old.content, old.project, old.search_keys);
    INSERT INTO prompts_fts (rowid, content, project, search_keys)
    VALUES (new.id, new.content, new.project, new.search_keys);
END;

INSERT INTO prompts_fts (rowid, content, project, search_keys)
SELECT id, content, project, search_keys FROM user_prompts;
