-- An observation's duplicate counter and last-seen time travel with it, so replicas that
-- imported each other's chunks agree on every field but pins and the review clock.

DROP TRIGGER sync_observations_insert;
DROP TRIGGER sync_observations_update;

CREATE TRIGGER sync_observations_insert AFTER INSERT ON observations BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('observation', new.sync_id, 'upsert', new.project, json_object(
        'sync_id', new.sync_id, 'session_id', new.session_id, 'type', new.type,
        'title', new.title, 'content', new.content, 'tool_name', new.tool_name,
        'project', new.project, 'scope', new.scope, 'topic_key', new.topic_key,
        'normalized_hash', new.normalized_hash, 'revision_count', new.revision_count,
        'expires_at', new.expires_at, 'created_at', new.created_at,
        'updated_at', new.updated_at, 'deleted_at', new.deleted_at,
        'duplicate_count', new.duplicate_count, 'last_seen_at', new.last_seen_at));
END;

-- Pins and the review clock are local: not in this list.
CREATE TRIGGER sync_observations_update
AFTER UPDATE OF sync_id, session_id, type, title, content, tool_name, project, scope, topic_key,
    normalized_hash, revision_count, expires_at, created_at, updated_at, deleted_at,
    duplicate_count, last_seen_at
ON observations BEGIN
    INSERT INTO sync_mutations (entity, entity_key, op, project, payload)
    VALUES ('observation', new.sync_id, 'upsert', new.project, json_object(
        'sync_id', new.sync_id, 'session_id', new.session_id, 'type', new.type,
        'title', new.title, 'content', new.content, 'tool_name', new.tool_name,
        'project', new.project, 'scope', new.scope, 'topic_key', new.topic_key,
        'normalized_hash', new.normalized_hash, 'revision_count', new.revision_count,
        'expires_at', new.expires_at, 'created_at', new.created_at,
        'updated_at', new.updated_at, 'deleted_at', new.deleted_at,
        'duplicate_count', new.duplicate_count, 'last_seen_at', new.last_seen_at));
END;
