"""Templates, timestamps and the security headers every dashboard answer carries.

Pages are jinja2 templates beside this module (autoescaped). A request with ``HX-Request:
true`` gets the partial alone; any other request the full page around it. Timestamps show in
``ENGRAM_TIMEZONE`` (an IANA name; the server's local time when unset or invalid).
"""

from __future__ import annotations

import os
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse

HERE = Path(__file__).parent
STATIC = HERE / "static"

# No inline script or style, nothing from another origin, no framing.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def zone() -> ZoneInfo | None:
    """The display zone: ``ENGRAM_TIMEZONE`` when valid, else None (the system's local)."""
    name = os.environ.get("ENGRAM_TIMEZONE", "").strip()
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def zone_name() -> str:
    """The display zone's name, for SQL that buckets by day."""
    found = zone()
    if found is not None:
        return str(found)
    local = datetime.now().astimezone().tzname() or "UTC"
    return "UTC" if local in ("UTC", "GMT") else _local_offset_name()


def _local_offset_name() -> str:
    offset = datetime.now().astimezone().utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset else 0
    sign = "-" if minutes >= 0 else "+"  # POSIX zone names invert the sign
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def local_time(value: Any) -> str:
    """A timestamp (datetime, or the store's ``YYYY-MM-DD HH:MM:SS`` UTC text) in the display
    zone as ``YYYY-MM-DD HH:MM``; anything else as text."""
    if value is None or value == "":
        return ""
    moment: datetime
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            return str(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo("UTC"))
    shown = moment.astimezone(zone()) if zone() is not None else moment.astimezone()
    return shown.strftime("%Y-%m-%d %H:%M")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The template environment (autoescaping on; a payload field a replica did not send
    renders empty)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["localtime"] = local_time
    env.globals["zone_label"] = lambda: str(zone()) if zone() is not None else "the server's time"
    return env


def is_htmx(request: Request) -> bool:
    """Whether HTMX asked (it wants a fragment, not a page)."""
    return request.headers.get("hx-request", "").lower() == "true"


def page(
    request: Request,
    template: str,
    context: dict[str, Any],
    *,
    status: int = 200,
    partial: str | None = None,
) -> HTMLResponse:
    """Render ``template`` (or ``partial`` alone for an HTMX request) with the headers."""
    name = partial if partial is not None and is_htmx(request) else template
    html = environment().get_template(name).render(request=request, **context)
    response = HTMLResponse(html, status_code=status)
    response.headers.update(SECURITY_HEADERS)
    return response
