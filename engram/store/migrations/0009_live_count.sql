-- Counting live observations (engram stats, the TUI dashboard) reads this small index
-- instead of every row of the table: seconds at a million observations, now milliseconds.
CREATE INDEX observations_live ON observations (project) WHERE deleted_at IS NULL;
