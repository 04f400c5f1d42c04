-- The cloud client's local state: per-project upgrade progress, and a reason code next to
-- each sync target's last error (auth_required, policy_forbidden, paused, transport_failed...).

CREATE TABLE cloud_upgrade_state (
    project       TEXT PRIMARY KEY,
    stage         TEXT NOT NULL,
    repair_class  TEXT,
    snapshot      TEXT,
    findings      TEXT,
    actions       TEXT,
    error         TEXT,
    updated_at    TEXT NOT NULL
);

ALTER TABLE sync_state ADD COLUMN reason_code TEXT;
