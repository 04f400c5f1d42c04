"""The dashboard's session cookie: a signed, expiring JSON payload.

``value = base64url(json) + "." + hex(HMAC-SHA256(key, base64url(json)))``. The key is derived
from ``ENGRAM_JWT_SECRET`` (authenticated mode) or is random per process (insecure mode, where
the cookie only carries the CSRF token). The cookie is HttpOnly, SameSite=Strict, scoped to
``/dashboard`` and Secure when the request came over TLS. It never holds a token: a managed
session holds the token's id, re-checked against the database on every request.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from typing import Any

COOKIE = "engram_dashboard"
LIFETIME_S = 12 * 3600


def session_key(jwt_secret: str) -> bytes:
    """The signing key: derived from the JWT secret, or random when there is none."""
    if not jwt_secret:
        return secrets.token_bytes(32)
    return hmac.new(jwt_secret.encode(), b"engram-dashboard-session", hashlib.sha256).digest()


def seal(key: bytes, data: dict[str, Any], *, now: float | None = None) -> str:
    """A cookie value holding ``data`` for :data:`LIFETIME_S` seconds."""
    payload = {**data, "exp": int((now or time.time()) + LIFETIME_S)}
    body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode())
    text = body.decode().rstrip("=")
    mac = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
    return f"{text}.{mac}"


def unseal(key: bytes, value: str | None, *, now: float | None = None) -> dict[str, Any] | None:
    """The data of a valid, unexpired cookie value, else None."""
    if not value or value.count(".") != 1:
        return None
    text, mac = value.split(".")
    expected = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(mac, expected):
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or int(data.get("exp", 0)) < (now or time.time()):
        return None
    return data


def new_csrf() -> str:
    """A fresh CSRF token for one session."""
    return secrets.token_urlsafe(24)
