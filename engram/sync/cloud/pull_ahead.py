"""Pull pages one ahead: the next page is asked for while the caller works on this one.

A pull page costs the server and Postgres a few milliseconds (1,000 rows: ~7 ms here), then
the caller parses it and applies it to the local store. Read a page at a time, each side
waits for the other. Engram's server names the next page's cursor in the answer's headers
(``Engram-Next-Since``, ``Engram-Has-More``: :mod:`engram.cloud.replication`), which arrive
before the body is parsed, so the request for the next page leaves as soon as an answer is
in, on a second kept connection, and is answered while the caller parses and applies this
one; its answer waits in the socket until the caller reads it. At most two pages are held
at once: the one the caller has and the one arriving.

The body stays the authority: a page whose body disagrees with its headers is an error, and a
server that sends no such headers (an older Engram, another implementation) is read a page at
a time, as before. Everything runs on the caller's thread: a pull of one page opens no
second connection, and a request asked ahead that fails is asked again the usual way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engram.sync.cloud.client import PULL_PAGE, CloudClient, CloudSyncError
from engram.sync.cloud.connection import Answer

# The headers a pull page's answer names the next page in (engram.cloud.routes.sync sends
# them with page_headers; _next_page reads them).
NEXT_SINCE_HEADER = "Engram-Next-Since"
HAS_MORE_HEADER = "Engram-Has-More"


def page_headers(next_since: int, has_more: bool) -> dict[str, str]:
    """The headers of a pull page whose body says ``next_since`` and ``has_more``."""
    return {NEXT_SINCE_HEADER: str(next_since), HAS_MORE_HEADER: "true" if has_more else "false"}


def pages(
    client: CloudClient, project: str, since: int, limit: int = PULL_PAGE
) -> Iterator[dict[str, Any]]:
    """``project``'s pull pages after cursor ``since``, parsed, in order, up to and including
    the first that has no more after it or holds no mutations. When the server said where
    the next page starts, it has been asked for before this one is parsed and yielded."""
    answer = client.pull_answer(project, since, limit)
    asked: int | None = None  # the cursor of the page asked for ahead, unanswered
    try:
        while True:
            hint = _next_page(answer)
            if hint is not None and hint[1] and client.send_pull(project, hint[0], limit):
                asked = hint[0]
            page = _page(client, answer, project, since, limit)
            next_since = int(page.get("next_since", since))
            has_more = bool(page.get("has_more"))
            if hint is not None and hint != (next_since, has_more):
                raise CloudSyncError(
                    "transport_failed",
                    f"{client.remote.server_url} answered a pull page whose headers disagree"
                    f" with its body (next_since {hint[0]} / {next_since}, has_more"
                    f" {str(hint[1]).lower()} / {str(has_more).lower()})",
                )
            yield page
            if not (has_more and page.get("mutations")):
                return
            if asked is not None:
                answer, asked = client.receive_pull(project, asked, limit), None
            else:
                answer = client.pull_answer(project, next_since, limit)
            since = next_since
    finally:
        if asked is not None:
            client.drop_pull()


def _next_page(answer: Answer) -> tuple[int, bool] | None:
    """``(next_since, has_more)`` from the answer's headers, or None without (valid) ones."""
    headers = answer.headers
    if headers is None:
        return None
    since, more = headers.get(NEXT_SINCE_HEADER), headers.get(HAS_MORE_HEADER)
    if since is None or more not in ("true", "false"):
        return None
    since = since.strip()
    if not (since.isascii() and since.isdigit()) or len(since) > 19:
        return None
    return int(since), more == "true"


def _page(
    client: CloudClient, answer: Answer, project: str, since: int, limit: int
) -> dict[str, Any]:
    """The parsed page; an answer that is not JSON is asked for again as any pull is (retried
    while it fails transiently)."""
    try:
        return client.parsed(answer)
    except CloudSyncError:
        return client.pull_mutations(project, since, limit)
