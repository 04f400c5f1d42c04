-- Attribution is the principal's: a pushed chunk is attributed to the authenticated principal
-- (created_by); what the pusher claimed is kept apart, labelled, in claimed_by. Audit rows name
-- the principal that sent the request.
ALTER TABLE cloud_chunks ADD COLUMN claimed_by TEXT;
ALTER TABLE cloud_chunks ADD COLUMN principal_id TEXT;
ALTER TABLE cloud_sync_audit_log ADD COLUMN principal_id TEXT;
