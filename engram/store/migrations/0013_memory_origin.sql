-- Where a memory came from when a teammate's replica wrote it: the principal (a cloud user) or
-- device (a git replica's origin id) in origin_by, the transport ('git' | 'cloud') in
-- origin_via. NULL for this machine's own memories. Local, never synced (the journal triggers
-- list their columns and these are not among them).
ALTER TABLE observations ADD COLUMN origin_by TEXT;
ALTER TABLE observations ADD COLUMN origin_via TEXT;

-- A local edit of a teammate's memory makes it this machine's: the origin is cleared. A
-- remote version that wins sets the origin again right after it is written.
CREATE TRIGGER observations_local_edit_clears_origin
AFTER UPDATE OF title, content ON observations
WHEN old.origin_by IS NOT NULL AND new.origin_by IS old.origin_by
    AND (old.title IS NOT new.title OR old.content IS NOT new.content)
BEGIN
    UPDATE observations SET origin_by = NULL, origin_via = NULL WHERE id = new.id;
END;
