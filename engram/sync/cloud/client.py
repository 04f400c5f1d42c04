"""The HTTP client of the cloud sync routes (stdlib ``http.client`` over one kept-alive
connection per thread, ``urllib`` through a proxy or a redirect: nothing heavy to import).

Every failure becomes a :class:`CloudSyncError` with a deterministic ``reason_code``:
``auth_required`` (401), ``policy_forbidden`` (403), ``paused`` (409 sync-paused),
``transport_failed`` (network, timeouts, 5xx, a 404 from an older server), or the server's
``error_code`` for a request it refused as invalid (400/413).
"""

from __future__ import annotations

import functools
import http.client
import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

from engram.sync import json_body
from engram.sync.cloud.config import Remote
from engram.sync.cloud.connection import (
    Answer,
    Body,
    KeptConnection,
    Redirected,
    needs_urllib,
)
from engram.sync.mutation import Mutation

log = logging.getLogger("engram.autosync")
T = TypeVar("T")
TIMEOUT_S = 30.0
# Waits before each retry of an idempotent push or pull that failed transiently.
RETRY_DELAYS_S = (0.5, 1.0, 2.0, 4.0)
MAX_RETRY_WAIT_S = 10.0
# The largest answer read from a server: a full pull page fits (the server stops a page at 8 MiB
# of payload, engram.cloud.replication.MAX_PULL_BYTES); anything larger is refused
# before it is parsed.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
# Mutations asked for per pull page (the server's cap, MAX_PULL): each request costs about a
# millisecond of CPU across client, server and Postgres whatever it holds, so pages are large;
# at 2,000 both ends spent more per row again (pages of ~2 MB, parsed and written in memory
# that no longer stays in the CPU's caches).
PULL_PAGE = 1000

REMEDIES = {
    "auth_required": "check ENGRAM_CLOUD_TOKEN (or the project's --token); rotate it if revoked",
    "policy_forbidden": (
        "ask the server administrator to check ENGRAM_CLOUD_ALLOWED_PROJECTS for this project;"
        " a managed principal's project grant may also need checking"
    ),
    "paused": "an admin paused sync for this project; pulls still work — retry after resume",
    "transport_failed": "check the server URL, that the server is up, and the network",
    "cloud_config_error": "run engram cloud config --server URL (or set ENGRAM_CLOUD_SERVER)",
    "blocked_unenrolled": "run engram cloud enroll <project> first",
}
REPAIR_HINT = (
    "run engram cloud upgrade doctor --project P, then engram cloud upgrade repair --project P"
    " --apply"
)


class CloudSyncError(Exception):
    """A cloud request that failed, with its reason code."""

    def __init__(
        self, reason_code: str, message: str, *, status: int = 0, retry_after: float = 0.0
    ) -> None:
        super().__init__(message)
        self.reason_code = reason_code
        self.message = message
        self.status = status
        self.retry_after = retry_after  # the server's Retry-After, in seconds (0: none)

    @property
    def transient(self) -> bool:
        """A failure worth retrying: no answer at all, or a 5xx (a database restart behind an
        older server answers 500)."""
        return self.reason_code == "transport_failed" and (self.status == 0 or self.status >= 500)

    def remedy(self) -> str:
        """What to do next for this reason."""
        return REMEDIES.get(self.reason_code, REPAIR_HINT)


class CloudClient:
    """Requests against one remote."""

    def __init__(self, remote: Remote, *, timeout: float = TIMEOUT_S) -> None:
        self.remote = remote
        self.timeout = timeout
        self._kept = KeptConnection(remote.server_url, timeout)
        self._ahead = KeptConnection(remote.server_url, timeout)  # a pull page asked ahead
        self._via_urllib = needs_urllib(remote.server_url)

    def close(self) -> None:
        """Close the calling thread's kept connections (the next request opens one)."""
        self._kept.close()
        self._ahead.close()

    def health(self) -> dict[str, Any]:
        return self._request("GET", "/health")

    def push_mutations(
        self, project: str, mutations: Sequence[Mutation], lines: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Push a batch (``lines``: its :meth:`Mutation.to_json` lines, when written already);
        idempotent (the server keeps each origin/seq once), so retried."""
        data = push_body(project, mutations, lines)
        return self._retried("POST", "/sync/mutations/push", data=data)

    def push_pieces(self, body: Iterable[bytes]) -> dict[str, Any]:
        """Push a body sent in pieces as it is made (chunked; ``body`` can be iterated again
        for a retry: see :class:`engram.sync.cloud.replicate.PushBody`); retried as
        :meth:`push_mutations` is."""
        return self._retried("POST", "/sync/mutations/push", data=body)

    def pull_mutations(self, project: str, since: int, limit: int = PULL_PAGE) -> dict[str, Any]:
        return self._retried("GET", _PULL, query=_pull_query(project, since, limit))

    def pull_answer(self, project: str, since: int, limit: int = PULL_PAGE) -> Answer:
        """:meth:`pull_mutations`'s answer unparsed (headers and body; :meth:`parsed` reads
        it), retried as it is."""
        query = _pull_query(project, since, limit)
        return _retrying(functools.partial(self._answer, "GET", _PULL, query=query), f"GET {_PULL}")

    def send_pull(self, project: str, since: int, limit: int = PULL_PAGE) -> bool:
        """Ask for a pull page on a second kept connection and leave its answer to
        :meth:`receive_pull`, so the server prepares it meanwhile; False (nothing sent) where
        requests go through ``urllib`` or it could not be sent."""
        if self._via_urllib:
            return False
        target = _target(_PULL, _pull_query(project, since, limit))
        try:
            self._ahead.send("GET", target, self._headers(False))
        except (OSError, http.client.HTTPException):
            return False
        return True

    def receive_pull(self, project: str, since: int, limit: int = PULL_PAGE) -> Answer:
        """The answer to :meth:`send_pull`'s request (the same arguments); asked again as
        :meth:`pull_answer` asks (retried) when the connection failed it."""
        try:
            answer = self._ahead.receive(MAX_RESPONSE_BYTES)
        except (OSError, http.client.HTTPException, Redirected):
            return self.pull_answer(project, since, limit)
        if answer.status >= 500:  # transient: asked again, with the waits that go with it
            return self.pull_answer(project, since, limit)
        return self._checked(answer, _PULL)

    def drop_pull(self) -> None:
        """Forget :meth:`send_pull`'s request unanswered (its connection is closed)."""
        self._ahead.close()

    def manifest(self, project: str) -> dict[str, Any]:
        return self._retried("GET", "/sync/pull", query={"project": project})

    def _retried(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        data: Body | None = None,
    ) -> dict[str, Any]:
        """An idempotent request (``data``: its JSON body, encoded), retried with backoff (or
        the server's ``Retry-After``, at most :data:`MAX_RETRY_WAIT_S`) while it fails
        transiently (see :attr:`CloudSyncError.transient`): an answer that is not JSON too."""
        attempt = functools.partial(self._request, method, path, query=query, data=data)
        return _retrying(attempt, f"{method} {path}")

    def admin(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One ``/admin/*`` call with this remote's (managed admin) token; a JSON array comes
        back as a list."""
        answer = self._request(
            method, path, body=body if body is not None or method == "GET" else {}
        )
        return answer["items"] if set(answer) == {"items"} else answer

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        data: Body | None = None,
    ) -> dict[str, Any]:
        """One request; its JSON body is ``body``, or ``data`` already encoded (bytes, or
        pieces sent as they are made: the request is chunked)."""
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")
        return self.parsed(self._answer(method, path, query=query, data=data))

    def _answer(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        data: Body | None = None,
    ) -> Answer:
        """One request's answer, unparsed: a refusal (4xx, 5xx) or an answer over
        :data:`MAX_RESPONSE_BYTES` is raised as a :class:`CloudSyncError`."""
        target = _target(path, query)
        headers = self._headers(data is not None)
        try:
            if self._via_urllib:
                answer = self._urllib(method, target, headers, data)
            else:
                try:
                    answer = self._kept.request(method, target, headers, data, MAX_RESPONSE_BYTES)
                except Redirected:
                    answer = self._urllib(method, target, headers, data)
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            raise CloudSyncError(
                "transport_failed", f"cannot reach {self.remote.server_url}: {reason}"
            ) from None
        return self._checked(answer, path)

    def _headers(self, with_body: bool) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if with_body:
            headers["Content-Type"] = "application/json"
        if self.remote.token:
            headers["Authorization"] = f"Bearer {self.remote.token}"
        return headers

    def _checked(self, answer: Answer, path: str) -> Answer:
        """``answer``, or its refusal (4xx, 5xx; one over :data:`MAX_RESPONSE_BYTES`) raised
        as a :class:`CloudSyncError`."""
        if answer.status >= 400:
            raise _from_status(answer, path)
        if len(answer.body) > MAX_RESPONSE_BYTES:
            raise CloudSyncError(
                "transport_failed",
                f"{self.remote.server_url} answered more than {MAX_RESPONSE_BYTES}"
                " bytes; refused unread",
            )
        return answer

    def parsed(self, answer: Answer) -> dict[str, Any]:
        """The JSON object of an answer (a JSON array comes back as ``{"items": [...]}``)."""
        try:
            parsed = json_body.loads(answer.body or b"{}")
        except ValueError as exc:
            raise CloudSyncError(
                "transport_failed", f"cannot reach {self.remote.server_url}: {exc}"
            ) from None
        return parsed if isinstance(parsed, dict) else {"items": parsed}

    def _urllib(
        self, method: str, target: str, headers: dict[str, str], data: Body | None
    ) -> Answer:
        """One request through ``urllib`` (proxies from the environment, redirects)."""
        request = urllib.request.Request(
            self.remote.server_url + target, data=data, method=method, headers=headers
        )
        try:
            # A fresh opener reads the proxy settings of the environment as it is now.
            opener = urllib.request.build_opener()
            with opener.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
                return Answer(response.status, response.reason, response.headers, raw)
        except urllib.error.HTTPError as exc:
            return Answer(exc.code, str(exc.reason), exc.headers, exc.read(64 * 1024))


_PULL = "/sync/mutations/pull"


def _pull_query(project: str, since: int, limit: int) -> dict[str, Any]:
    return {"project": project, "since": since, "limit": limit}


def _target(path: str, query: dict[str, Any] | None) -> str:
    """A request's path and query string."""
    return path + (f"?{urlencode(query)}" if query else "")


def _retrying(attempt: Callable[[], T], what: str) -> T:
    """``attempt()``, called again after each wait of :data:`RETRY_DELAYS_S` (or the server's
    ``Retry-After``) while it fails transiently."""
    for delay in RETRY_DELAYS_S:
        try:
            return attempt()
        except CloudSyncError as exc:
            if not exc.transient:
                raise
            wait = min(exc.retry_after or delay, MAX_RETRY_WAIT_S)
            log.debug("[cloud] %s: %s; retrying in %.1fs", what, exc.message, wait)
            time.sleep(wait)
    return attempt()


def push_body(
    project: str, mutations: Sequence[Mutation], lines: Sequence[str] | None = None
) -> bytes:
    """The JSON body of a push of ``mutations``, in UTF-8 as the batches were sized (an
    escaped emoji would be 12 bytes, not 4): their :meth:`Mutation.to_json` lines
    (``lines``, when the batching wrote them already) as the entries, one per line
    (:mod:`engram.cloud.push_arrival` reads them as they arrive)."""
    entries = ",\n".join(lines if lines is not None else [m.to_json() for m in mutations])
    try:
        return b"".join((push_head(project), entries.encode(), PUSH_TAIL))
    except UnicodeEncodeError:  # a lone surrogate: only an escape can carry it
        body = {"project": project, "entries": [m.to_dict() for m in mutations]}
        return json.dumps(body, separators=(",", ":")).encode("utf-8")


# Between two entries of a push body, and after the last.
PUSH_BETWEEN = b",\n"
PUSH_TAIL = b"\n]}"


def push_head(project: str) -> bytes:
    """The first line of a push body, and its newline: ``{"project":...,"entries":[``."""
    head = json.dumps({"project": project}, ensure_ascii=False, separators=(",", ":"))[:-1]
    return f'{head},"entries":[\n'.encode()


def _from_status(answer: Answer, path: str) -> CloudSyncError:
    try:
        envelope = json.loads(answer.body[: 64 * 1024] or b"{}")
    except ValueError:
        envelope = {}
    envelope = envelope if isinstance(envelope, dict) else {}
    message = str(envelope.get("error") or answer.reason)
    code = str(envelope.get("error_code") or "")
    status = answer.status
    if status == 401:
        return CloudSyncError("auth_required", message, status=status)
    if status == 403:
        return CloudSyncError("policy_forbidden", message, status=status)
    if status == 409 and code == "sync-paused":
        return CloudSyncError("paused", message, status=status)
    if status == 404 and path.startswith("/sync/mutations") and not code:
        log.error("[autosync] cloud mutation endpoint returned 404 (server_unsupported)")
        return CloudSyncError("transport_failed", "server_unsupported: " + message, status=status)
    if status >= 500 or not code:
        raw_wait = (answer.headers.get("Retry-After") or "").strip() if answer.headers else ""
        wait = float(raw_wait) if raw_wait.isascii() and raw_wait.isdigit() else 0.0
        return CloudSyncError(
            "transport_failed",
            f"server answered {status}: {message}",
            status=status,
            retry_after=wait,
        )
    return CloudSyncError(code, message, status=status)
