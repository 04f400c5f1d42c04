"""SQL of the dashboard's server-side session facts: signed-out sessions and login attempts.

A session cookie is signed, so the server would accept it until it expires; a sign-out
records its id here so the old cookie is refused at once. Login attempts are the
``dashboard.login`` rows of the auth audit log, counted per client address and per claimed
principal for the rate limit.
"""

from __future__ import annotations

from engram.cloud.store.db import Conn

_SIGN_OUT = """
    INSERT INTO cloud_dashboard_signed_out (session_id, expires_at)
    VALUES (%(session_id)s, to_timestamp(%(expires_at)s))
    ON CONFLICT (session_id) DO NOTHING
"""
_FORGET_EXPIRED = "DELETE FROM cloud_dashboard_signed_out WHERE expires_at < NOW()"
_IS_SIGNED_OUT = "SELECT 1 FROM cloud_dashboard_signed_out WHERE session_id = %(session_id)s"
_DENIED_LOGINS = """
    SELECT
        count(*) FILTER (WHERE metadata->>'client' = %(client)s) AS by_client,
        count(*) FILTER (WHERE metadata->>'claimed' = %(claimed)s) AS by_principal
    FROM cloud_auth_audit_log
    WHERE event = 'dashboard.login'
      AND outcome = 'denied'
      AND occurred_at > NOW() - make_interval(secs => %(window_s)s)
"""


def sign_out(conn: Conn, session_id: str, expires_at: int) -> None:
    """Refuse ``session_id`` from now until ``expires_at`` (Unix seconds); drop old entries."""
    conn.execute(_FORGET_EXPIRED)
    conn.execute(_SIGN_OUT, {"session_id": session_id, "expires_at": expires_at})


def is_signed_out(conn: Conn, session_id: str) -> bool:
    """Whether ``session_id`` was signed out."""
    return conn.execute(_IS_SIGNED_OUT, {"session_id": session_id}).fetchone() is not None


def denied_logins(conn: Conn, *, client: str, claimed: str, window_s: int) -> tuple[int, int]:
    """Refused sign-ins in the last ``window_s`` seconds: ``(from client, for claimed)``."""
    row = conn.execute(
        _DENIED_LOGINS, {"client": client, "claimed": claimed, "window_s": window_s}
    ).fetchone()
    return (int(row["by_client"]), int(row["by_principal"])) if row else (0, 0)
