"""A mutation push read as it arrives: its entries reach the push while the rest is in flight.

Engram's own client lays a push body out one entry per line (:func:`engram.sync.cloud.client.
push_body`): ``{"project":...,"entries":[``, a newline, the entries each followed by a comma and
a newline but the last, then a newline and ``]}``. A JSON string holds no raw newline, so
``,\\n`` only ever stands between values: in that layout each entry's JSON text can be taken
from the bytes as soon as they have arrived, and the push validates and stores the first
entries while the client is still sending (and making) the last.

:class:`ArrivingPush` is fed by the event loop (:meth:`ArrivingPush.receive`) and read by the
thread that runs the push (:meth:`ArrivingPush.entries`, :meth:`ArrivingPush.whole`). The
thread holds a database connection and, once it streams, the project's lock: a body that stops
arriving for :attr:`ArrivingPush.stall_s` (408 ``body_stalled``), takes longer than
:attr:`ArrivingPush.deadline_s` in all (408 ``body_too_slow``), grows past its limit (413
``payload_too_large``) or is cut off (400 ``body_incomplete``) ends the push with that problem,
and whatever it wrote is rolled back. A body in any other layout, or one that breaks the
layout part way, is read whole and the checked push decides, as for any client.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from engram.cloud.problems import CloudProblem, too_large
from engram.nul_guard import body_may_hold_nul
from engram.sync import json_body

# The head (``{"project":...,"entries":[``) is at most this long: a body whose first line is
# longer is not in the layout (it is read whole).
HEAD_LIMIT = 64 * 1024
_HEAD_END = b',"entries":['
_COMMA = ord(",")
_CLOSE = b"]}"  # the line after the last entry's


class NotFramed(Exception):
    """The body is not (or stopped being) in the one-entry-per-line layout: it is read whole
    and the checked push decides."""


def framed_project(head: bytes) -> Any:
    """The project a body's first line names when that line is exactly a framed head
    (``{"project":...,"entries":[``, nothing else in the object); raises :class:`NotFramed`."""
    if not head.endswith(_HEAD_END) or body_may_hold_nul(head):
        raise NotFramed
    try:
        parsed = json_body.loads(head + b"]}")
    except (ValueError, RecursionError):
        raise NotFramed from None
    if type(parsed) is not dict or parsed.keys() != {"project", "entries"} or parsed["entries"]:
        raise NotFramed
    return parsed["project"]


class ArrivingPush:
    """The body of one push as it arrives (see the module docstring).

    Args:
        limit: the most bytes the body may hold (``ENGRAM_CLOUD_MAX_PUSH_BYTES``).
        stall_s: the longest the body may stop arriving (``ENGRAM_CLOUD_BODY_STALL_S``).
        deadline_s: the longest the whole body may take to arrive.
    """

    def __init__(self, limit: int, stall_s: float, deadline_s: float) -> None:
        self.limit = limit
        self.stall_s = stall_s
        self.deadline_s = deadline_s
        self.problem: CloudProblem | None = None
        self.ended = False
        self._pieces: list[bytes] = []
        self._size = 0
        self._changed = threading.Condition()
        self._head = asyncio.Event()
        self._done = asyncio.Event()
        self._head_line: bytes | None = None  # the first line, once it has arrived

    # -- the event loop's side ----------------------------------------------------------------

    async def receive(self, pieces: AsyncIterator[bytes]) -> None:
        """Take the body from ``pieces`` until it ends, stalls, grows too large or is cut off;
        never raises (a problem is kept in :attr:`problem` for the reader)."""
        deadline = time.monotonic() + self.deadline_s
        problem: CloudProblem | None = None
        complete = False
        try:
            while problem is None:
                wait = min(self.stall_s, deadline - time.monotonic())
                try:
                    if wait <= 0:
                        raise TimeoutError
                    piece = await asyncio.wait_for(anext(pieces, None), wait)
                except TimeoutError:
                    problem = self._late(stalled=wait >= self.stall_s)
                    break
                if piece is None:
                    complete = True
                    break
                if piece:
                    problem = self._add(piece)
        except Exception:  # the client went away (starlette's ClientDisconnect) or the server
            pass
        finally:  # also when the request is cancelled: the reader never waits forever
            with self._changed:
                if complete:
                    self.ended = True
                else:
                    self.problem = problem or CloudProblem(
                        400, "invalid_request", "body_incomplete", "the request body ended early"
                    )
                self._changed.notify_all()
            self._head.set()
            self._done.set()

    def _late(self, *, stalled: bool) -> CloudProblem:
        """408: the body stopped arriving, or did not arrive in time."""
        if stalled:
            code, what = "body_stalled", f"(nothing for {self.stall_s:g} s)"
        else:
            code, what = "body_too_slow", f"within {self.deadline_s:g} s"
        return CloudProblem(408, "invalid_request", code, f"the request body did not arrive {what}")

    def _add(self, piece: bytes) -> CloudProblem | None:
        if self._size + len(piece) > self.limit:
            return too_large(self.limit)
        with self._changed:
            self._pieces.append(piece)
            self._size += len(piece)
            self._changed.notify_all()
        if self._head_line is None:
            first = self._pieces[0] if len(self._pieces) == 1 else b"".join(self._pieces)
            end = first.find(b"\n")
            if end >= 0 or len(first) > HEAD_LIMIT:
                self._head_line = first[:end] if 0 <= end <= HEAD_LIMIT else b""
                self._head.set()
        return None

    async def head(self) -> bytes | None:
        """The body's first line (without its newline) once it has arrived; None when the
        body ended without one or its first line is longer than :data:`HEAD_LIMIT`. Raises
        the body's problem when it has one."""
        await self._head.wait()
        if self._head_line is None and self.problem is not None:
            raise self.problem
        return self._head_line or None

    async def arrived(self) -> None:
        """Wait until the whole body is in; raises its problem when it has one."""
        await self._done.wait()
        if self.problem is not None:
            raise self.problem

    # -- the push thread's side ---------------------------------------------------------------

    def _piece(self, index: int) -> bytes | None:
        """Piece ``index`` once it has arrived; None after the last. Raises the problem."""
        with self._changed:
            while True:
                if index < len(self._pieces):
                    return self._pieces[index]
                if self.problem is not None:
                    raise self.problem
                if self.ended:
                    return None
                self._changed.wait()

    def whole(self) -> bytes:
        """The whole body, once it has arrived (raises its problem)."""
        index = 0
        while self._piece(index) is not None:
            index += 1
        return b"".join(self._pieces)

    def entries(self) -> Iterator[bytes]:
        """Each entry's JSON text as it arrives, in a framed body (one whose first line is a
        framed head). Raises :class:`NotFramed` where the layout breaks (and for a piece that
        may hold a NUL: the checked push refuses it), the body's problem where it has one.

        A JSON text holds no raw newline, so the body is cut at its newlines: every line after
        the head is an entry and its comma, but the last, which the tail's ``]}`` follows."""
        pending: list[bytes] = []  # what arrived after the last newline
        last: bytes | None = None  # a line without its comma: the last entry, if ]} follows
        in_head, seam, index = True, b"", 0
        while (piece := self._piece(index)) is not None:
            index += 1
            # An entry that may hold a NUL is the checked push's to refuse: looked for once
            # per piece, over its start's seam with the pieces before.
            if body_may_hold_nul(piece) or body_may_hold_nul(seam + piece[:5]):
                raise NotFramed
            seam = (seam + piece[-5:])[-5:]
            pending.append(piece)
            if b"\n" not in piece:  # no line ends here: an entry (or the head) grows
                continue
            if last is not None:  # a line after the one that had no comma
                raise NotFramed
            lines = (pending[0] if len(pending) == 1 else b"".join(pending)).split(b"\n")
            pending = [lines.pop()]
            ended = len(lines) - 1
            for number in range(1 if in_head else 0, len(lines)):
                line = lines[number]
                if len(line) > 1 and line[-1] == _COMMA:
                    yield line[:-1]
                elif number == ended and line:
                    last = line
                else:
                    raise NotFramed  # an empty line, or a line without a comma before others
            in_head = False
        if last is None or b"".join(pending) != _CLOSE:
            raise NotFramed  # no head, no tail, or no entries (the checked push refuses it)
        yield last
