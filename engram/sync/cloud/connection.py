"""One kept-alive HTTP connection per thread to a cloud remote (stdlib ``http.client``).

``urllib.request.urlopen`` opens a connection per request and closes it: a sync of many pages
paid a TCP (behind a TLS proxy, a TLS) handshake per page. :class:`KeptConnection` reuses one
connection per thread. A request that meets a connection the server closed meanwhile is sent
again once on a fresh one (every cloud request the client retries is idempotent). Where the
environment routes the remote through a proxy, or the server answers a redirect, the caller
uses ``urllib`` instead (:func:`needs_urllib`, :class:`Redirected`), which handles both.
"""

from __future__ import annotations

import http.client
import threading
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import Message
from urllib.parse import urlsplit

# A kept connection the server closed since its last answer fails in one of these ways.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


@dataclass(frozen=True)
class Answer:
    """A response read whole (at most ``limit + 1`` bytes of body)."""

    status: int
    reason: str
    headers: Message[str, str]
    body: bytes


# A request's body: its bytes, or pieces of them sent as they are made (chunked); pieces are
# iterated again when the request is sent again.
Body = bytes | Iterable[bytes]


class Redirected(Exception):
    """The server answered a redirect: let ``urllib`` follow it."""


def needs_urllib(server_url: str) -> bool:
    """Whether the environment sends requests to ``server_url`` through a proxy."""
    parts = urlsplit(server_url)
    proxies = urllib.request.getproxies()
    if parts.scheme not in proxies:
        return False
    return not urllib.request.proxy_bypass(parts.hostname or "")


class KeptConnection:
    """Requests to one server over a connection kept per thread.

    Args:
        server_url: ``http[s]://host[:port][/prefix]``.
        timeout: seconds for connecting and for each read.
    """

    def __init__(self, server_url: str, timeout: float) -> None:
        parts = urlsplit(server_url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self._local = threading.local()

    def request(
        self, method: str, target: str, headers: dict[str, str], body: Body | None, limit: int
    ) -> Answer:
        """Send one request (``target`` is the path and query) and read its answer.

        Raises:
            OSError, http.client.HTTPException: the server could not be reached or answered
                nonsense (on a fresh connection).
            Redirected: a 3xx answer.
        """
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is not None:
            try:
                return self._exchange(conn, method, target, headers, body, limit)
            except _STALE:
                self.close()
        conn = self._open()
        try:
            return self._exchange(conn, method, target, headers, body, limit)
        except BaseException:
            self.close()
            raise

    def send(self, method: str, target: str, headers: dict[str, str]) -> None:
        """Send a request without a body and leave its answer to :meth:`receive` (this
        thread's connection carries nothing else meanwhile): the server works on it while the
        caller does something else. Opened afresh when the last was closed.

        Raises:
            OSError, http.client.HTTPException: it could not be sent (the connection is
                closed).
        """
        conn = getattr(self._local, "conn", None) or self._open()
        try:
            conn.request(method, self.prefix + target, headers=headers)
        except BaseException:
            self.close()
            raise

    def receive(self, limit: int) -> Answer:
        """The answer to the request :meth:`send` sent (at most ``limit + 1`` bytes of body).

        Raises:
            OSError, http.client.HTTPException: no answer (the connection is closed).
            Redirected: a 3xx answer.
        """
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            raise http.client.ResponseNotReady("nothing was sent")
        try:
            return self._answer(conn, limit)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close this thread's connection (the next request opens a new one)."""
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            conn.close()

    def _open(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        conn = kind(self.host, self.port, timeout=self.timeout)
        self._local.conn = conn
        return conn

    def _exchange(
        self,
        conn: http.client.HTTPConnection,
        method: str,
        target: str,
        headers: dict[str, str],
        body: Body | None,
        limit: int,
    ) -> Answer:
        conn.request(method, self.prefix + target, body=body, headers=headers)
        return self._answer(conn, limit)

    def _answer(self, conn: http.client.HTTPConnection, limit: int) -> Answer:
        response = conn.getresponse()
        data = response.read(limit + 1)
        if len(data) > limit or response.will_close or not response.isclosed():
            self.close()  # an answer over the limit is left unread: the connection goes
        if 300 <= response.status < 400:
            raise Redirected(response.status)
        return Answer(response.status, response.reason, response.headers, data)
