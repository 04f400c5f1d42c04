-- A mutation's own project field, kept as the client sent it (an unowned session's is ''),
-- apart from the cloud project it was pushed to.
ALTER TABLE cloud_mutations ADD COLUMN entity_project TEXT NOT NULL DEFAULT '';
