-- Dashboard sign-out ends the session on the server: a signed-out session id is refused
-- until its cookie would have expired anyway.
CREATE TABLE cloud_dashboard_signed_out (
    session_id  TEXT PRIMARY KEY,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX cloud_dashboard_signed_out_expiry ON cloud_dashboard_signed_out (expires_at);

-- Login attempts are counted per client and per claimed principal from the audit log.
CREATE INDEX cloud_auth_audit_logins ON cloud_auth_audit_log (event, occurred_at)
    WHERE event = 'dashboard.login';
