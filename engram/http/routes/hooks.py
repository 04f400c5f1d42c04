"""``POST /hooks/{host}``: a running runtime answers ``engram hook <host>`` for the hook process.

The body is the host's hook JSON exactly as the hook read it on stdin; the answer body is
exactly what the hook prints (see :mod:`engram.hooks.client`, the other end). Headers:

- ``X-Engram-Data-Dir`` (required): the caller's resolved data dir, ``%XX``-escaped UTF-8. A
  server over another store answers 409 ``hooks.other_data_dir`` and the hook works in-process.
- ``X-Engram-Cwd``: the hook's folder, for payloads that name none.
- ``X-Engram-Project``, ``X-Engram-Pack-Bytes``, ``X-Engram-Delta-Bytes``,
  ``X-Engram-Session-Objective``: the caller's ``ENGRAM_PROJECT``, ``ENGRAM_HOOK_PACK_BYTES``,
  ``ENGRAM_HOOK_DELTA_BYTES`` and ``ENGRAM_SESSION_OBJECTIVE``.

The answer is 200 with ``X-Engram-Hook: 1`` and, when the hook failed open, the line it would
have written to stderr in ``X-Engram-Hook-Warning``. An unknown host is 404 ``hook.unknown_host``.
Guarded by ``ENGRAM_HTTP_TOKEN`` when it is set, like every other write.
"""

from __future__ import annotations

import os
from typing import Any

from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from engram.hooks.client import FORWARDED_ENV, quote, unquote
from engram.hooks.events import canonical_host
from engram.http.exchange import Call, endpoint
from engram.http.problems import HttpProblem

HOOK_BODY_LIMIT = 1 << 20


def _same_folder(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


@endpoint(body=True, parse=False, token="when_set", limit=HOOK_BODY_LIMIT)
def answer_hook(call: Call) -> Any:
    """POST /hooks/{host} — the hook's answer for one host event (see the module docstring)."""
    from engram.hooks.recall import Memory
    from engram.hooks.runtime import hook_answer

    try:
        host = canonical_host(call.path_text("host"))
    except Exception as exc:
        raise HttpProblem(404, "hook.unknown_host", str(exc)) from None
    data_dir = call.store.path.parent
    claimed = unquote(call.request.headers.get("x-engram-data-dir", ""))
    if not claimed:
        raise HttpProblem(400, "hooks.no_data_dir", "X-Engram-Data-Dir names no data dir")
    if not _same_folder(claimed, str(data_dir)):
        raise HttpProblem(
            409,
            "hooks.other_data_dir",
            f"this server keeps {data_dir}, not {claimed}: run the hook in-process",
        )
    env = {
        key: unquote(call.request.headers[name])
        for key, name in FORWARDED_ENV.items()
        if name in call.request.headers
    }
    cwd = unquote(call.request.headers.get("x-engram-cwd", "")) or None
    raw = (call.body or "").encode("utf-8")
    answer, warning = hook_answer(host, raw, env, memory=Memory(call.store, data_dir), cwd=cwd)
    headers = {"X-Engram-Hook": "1"}
    if warning:
        headers["X-Engram-Hook-Warning"] = quote(warning)
    content = (answer + "\n").encode("utf-8") if answer else b""
    return Response(content, headers=headers, media_type="application/json")


ROUTES: list[BaseRoute] = [Route("/hooks/{host}", answer_hook, methods=["POST"])]
