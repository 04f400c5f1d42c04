"""``engram serve``'s saves, written by a process of its own in shared transactions.

One Python process runs one thread of Python at a time. With every save written by the
server's own threads, sixteen clients saving at once kept about one core busy (the HTTP work,
each save's Python, the threads handing the interpreter to each other) and reached 0.8-1.0x
the rate of one writer saving in a loop (docs/performance.md, "Concurrent writers"). So the
server checks and drafts each ``POST /observations`` itself, on its event loop — a bad request
still fails on the spot — and hands the draft to a writer process it started, which writes it;
the request's coroutine awaits the answer, so no thread of the server waits for a save (a
worker thread per save cost the server 0.1-0.2 ms of CPU a write in handing over):

- the writer takes every draft waiting at that moment and runs them in one transaction (at
  most :data:`~engram.store.group_commit.MAX_BATCH` a transaction), each under its own
  savepoint (:meth:`engram.store.db.Store.write_together`, group commit's batch: a save that
  fails is rolled back alone; a failed commit runs each save again alone), then answers each save once the
  transaction holding it is committed (WAL: what was answered survives a crash);
- each answer is what the same save gives in the server's own process
  (:func:`engram.memory.save.draft_writer`); an :class:`~engram.errors.EngramError` comes back
  with its code, message, remedy and details, anything else as an internal error (the
  writer's stderr is the server's: the traceback is there);
- the writer inherits the server's environment and working directory, so it opens the same
  store with the same settings; it runs its WAL checkpoints on a thread of its own;
- until the writer has opened the store, after it is gone, and with
  ``ENGRAM_WRITER_PROCESS=0``, saves are written in the server's own process, as before: no
  save is refused because of the writer. A save the writer took and never answered (it was
  killed) is written again in the server's process; if the writer had committed it, that
  save is deduplicated, so it is stored once either way;
- it exits when the server closes its end of the pipe (after answering what it was handed),
  and when the server dies; an interrupt on the terminal is the server's to handle.

The pipe is a socket pair made for the child and held by nobody else; the two ends exchange
length-prefixed pickles (the server only reads answers from the child it started).
"""

from __future__ import annotations

import _thread
import asyncio
import contextlib
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

from engram.errors import EngramError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from engram.memory.save import Draft, SaveResult
    from engram.store.db import Store

ENV = "ENGRAM_WRITER_PROCESS"
_HEADER = struct.Struct("!I")
_READ = 1 << 20
# How long the server's own write waits for the writer to stop (then SQLite's busy wait).
# Long: a writer loading its embedding model on a loaded machine took over ten seconds for its
# first transaction, and a write that stops waiting competes with a writer committing back to
# back on SQLite's busy timer (a session start got store.busy that way, once in a full test run).
TURN_WAIT_S = 300.0
# A message larger than this ends the pipe (a draft is bounded by the content limit).
MAX_MESSAGE = 256 * 1024 * 1024


def wanted(database: str, env: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """Whether ``engram serve`` should write the saves to ``database`` in a writer process:
    ``ENGRAM_WRITER_PROCESS`` unset or anything but ``0`` / ``false`` / ``no`` / ``off``, on a
    POSIX system (the pipe is handed over as a file descriptor), for a database file (not a
    store in memory)."""
    if env.get(ENV, "").strip().lower() in ("0", "false", "no", "off"):
        return False
    return os.name == "posix" and os.path.isfile(database)


def _send(sock: socket.socket, payload: object) -> None:
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_HEADER.pack(len(data)) + data)


class _Messages:
    """Length-prefixed pickles read from a socket."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = bytearray()
        self.early: list[Any] = []  # read while holding still, to take first afterwards

    def _whole(self) -> bool:
        if len(self._buffer) < _HEADER.size:
            return False
        size = int(_HEADER.unpack_from(self._buffer)[0])
        if size > MAX_MESSAGE:
            raise EOFError(f"a message of {size} bytes")
        return len(self._buffer) >= _HEADER.size + size

    def _take(self) -> Any:
        (size,) = _HEADER.unpack_from(self._buffer)
        data = bytes(self._buffer[_HEADER.size : _HEADER.size + size])
        del self._buffer[: _HEADER.size + size]
        return pickle.loads(data)

    def next(self) -> Any:
        """The next message, waiting for it. Raises EOFError when the other end is gone."""
        if self.early:
            return self.early.pop(0)
        while not self._whole():
            chunk = self._sock.recv(_READ)
            if not chunk:
                raise EOFError("the other end closed the pipe")
            self._buffer += chunk
        return self._take()

    def waiting(self) -> Any | None:
        """The next message if it has arrived already, else None."""
        if self.early:
            return self.early.pop(0)
        if not self._whole():
            try:
                chunk = self._sock.recv(_READ, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return None
            if not chunk:
                return None  # the end: next() says so
            self._buffer += chunk
            if not self._whole():
                return None
        return self._take()


class _Waiting:
    """A thread waiting for the writer to hold still."""

    __slots__ = ("wake",)

    def __init__(self) -> None:
        self.wake = _thread.allocate_lock()
        self.wake.acquire()


class _Awaiting:
    """A save's coroutine on the event loop ``loop``, waiting for its answer."""

    __slots__ = ("future", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.future: asyncio.Future[tuple[Any, ...] | None] = loop.create_future()

    def deliver(self, answer: tuple[Any, ...] | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            self.loop.call_soon_threadsafe(self._settle, answer)

    def _settle(self, answer: tuple[Any, ...] | None) -> None:
        if not self.future.done():  # not cancelled (the client went away)
            self.future.set_result(answer)


class WriterProcess:
    """The server's end: :meth:`save` hands a draft over and waits for its committed result."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        sock: socket.socket,
        embed: Callable[[list[str]], tuple[str, list[bytes]] | None] | None = None,
    ) -> None:
        self._process = process
        self._sock = sock
        self._embed = embed
        self._send_lock = _thread.allocate_lock()
        self._mutex = _thread.allocate_lock()
        self._waiting: dict[int, _Awaiting] = {}
        self._last_id = 0
        self._ready = False
        self._gone = False
        self._holding: list[_Waiting] = []  # turns asked for, oldest first
        self._answers = threading.Thread(
            target=self._read_answers, name="engram-writer-answers", daemon=True
        )
        self._answers.start()

    @classmethod
    def start(
        cls,
        database: str,
        embed: Callable[[list[str]], tuple[str, list[bytes]] | None] | None = None,
    ) -> WriterProcess:
        """Start a writer process on the ``database`` file (it opens it in the background;
        saves are written in this process until it is ready). ``embed`` (the server store's
        :meth:`~engram.store.db.Store.vectors_for`) makes each draft's vector here, where a
        second core is free, instead of in the writer, the part that runs one save at a time;
        the writer embeds what comes without one."""
        ours, theirs = socket.socketpair()
        try:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "engram.http.writer_process",
                    str(theirs.fileno()),
                    database,
                ],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        return cls(process, ours, embed)

    def _tell(self, message: object) -> bool:
        """Send ``message`` to the writer; False (and the writer counts as gone) when the pipe
        is closed."""
        try:
            with self._send_lock:
                _send(self._sock, message)
        except OSError:
            self._gone = True
            return False
        return True

    @property
    def ready(self) -> bool:
        """Whether saves go to the writer now."""
        return self._ready and not self._gone

    async def save(
        self, draft: Draft, *, project: str, session_id: str | None
    ) -> dict[str, Any] | None:
        """The committed save's :meth:`SaveResult.to_dict() <engram.memory.save.SaveResult.to_dict>`,
        awaited on the running event loop (no thread waits for it); None when the writer did
        not write it (not ready, or gone): the caller saves it itself.

        Raises:
            EngramError: what the save raised.
        """
        if not self.ready:
            return None
        vector = None
        if self._embed is not None:
            from engram.semantic.embedder import document_text

            made = self._embed([document_text(draft.title.text, draft.body.text)])
            vector = (made[0], made[1][0]) if made else None
        awaiting = _Awaiting(asyncio.get_running_loop())
        with self._mutex:
            self._last_id += 1
            request = self._last_id
            self._waiting[request] = awaiting
        if not self._tell((request, draft, project, session_id, vector)):
            with self._mutex:
                self._waiting.pop(request, None)
            return None
        return _result(await awaiting.future)

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Keep the writer still (its running transaction committed first) for one of the
        server's own write transactions (:meth:`engram.store.db.Store.take_turns`). Without
        it, a session start during a stream of saves waited on SQLite's busy timer for up to
        1.7 s (16 clients saving). The writer stops after the transaction it is running, or is
        gone (then this returns at once); one that does neither within :data:`TURN_WAIT_S` is
        left to SQLite's busy wait."""
        if not self.ready:
            yield
            return
        held = _Waiting()
        with self._mutex:
            self._holding.append(held)
        if not self._tell("hold"):
            with self._mutex:
                if held in self._holding:
                    self._holding.remove(held)
            yield
            return
        held.wake.acquire(timeout=TURN_WAIT_S)
        try:
            yield
        finally:
            self._tell("release")

    def _read_answers(self) -> None:
        messages = _Messages(self._sock)
        try:
            while True:
                message = messages.next()
                if message == "ready":
                    self._ready = True
                    continue
                if message == "held":
                    with self._mutex:
                        turn = self._holding.pop(0) if self._holding else None
                    if turn is not None:
                        turn.wake.release()
                    continue
                for request, *answer in message:
                    with self._mutex:
                        waiting = self._waiting.pop(request, None)
                    if waiting is not None:
                        waiting.deliver(tuple(answer))
        except (EOFError, OSError, pickle.UnpicklingError):
            pass
        self._gone = True
        if self._ready:
            print(
                "engram serve: the writer process stopped; saves are written by the server",
                file=sys.stderr,
            )
        with self._mutex:
            orphans, self._waiting = self._waiting, {}
            held, self._holding = self._holding, []
        for orphan in orphans.values():
            orphan.deliver(None)  # the caller saves it itself
        for turn in held:
            turn.wake.release()

    def close(self, timeout: float = 10.0) -> None:
        """Stop the writer: it answers what it was handed, then exits (killed after
        ``timeout`` seconds)."""
        self._gone = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_WR)
        try:
            self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._answers.join(timeout=timeout)
        self._sock.close()


def _result(answer: tuple[Any, ...] | None) -> dict[str, Any] | None:
    """A save's answer from the writer, as :meth:`WriterProcess.save` returns it."""
    if answer is None:  # the writer went away with it
        return None
    if answer[0] == "saved":
        result: dict[str, Any] = answer[1]
        return result
    if answer[0] == "refused":
        _, code, message, remedy, details = answer
        raise EngramError(code, message, remedy, **details)
    raise RuntimeError(f"the writer process failed on this save: {answer[1]}")


def _answer(result: SaveResult | None, error: BaseException | None) -> tuple[Any, ...]:
    if error is None and result is not None:
        return ("saved", result.to_dict())
    if isinstance(error, EngramError):
        return ("refused", error.code, error.message, error.remedy, error.details)
    return ("failed", f"{type(error).__name__}: {error}")


def serve(sock: socket.socket, database: str) -> None:
    """The writer's loop: the drafts waiting, written in one transaction; their answers."""
    from engram.memory.save import draft_writer
    from engram.store.db import Store

    store = Store(database)
    try:
        store.group_commits()  # WAL checkpoints on a thread of their own, not in a commit
        messages = _Messages(sock)
        _send(sock, "ready")
        while True:
            try:
                first = messages.next()
            except EOFError:
                return
            if first == "hold":
                _hold_still(sock, messages)
                continue
            batch, hold = [first], False
            while (more := messages.waiting()) is not None:  # at most one per request waiting
                if more == "hold":
                    hold = True
                    break
                batch.append(more)
            _offer(store, batch)
            outcomes = store.write_together(
                [
                    draft_writer(draft, project=project, session_id=session_id)
                    for _, draft, project, session_id, _ in batch
                ]
            )
            _send(
                sock,
                [
                    (request, *_answer(result, error))
                    for (request, *_), (result, error) in zip(batch, outcomes, strict=True)
                ],
            )
            if hold:
                _hold_still(sock, messages)
    finally:
        store.close()


def _offer(store: Store, batch: list[tuple[Any, ...]]) -> None:
    """Hand the store the vectors the server made for the batch's drafts (the last batch's are
    forgotten): all of one model, else none."""
    from engram.semantic.embedder import document_text

    by_label: dict[str, dict[str, bytes]] = {}
    for _, draft, _, _, vector in batch:
        if vector is not None:
            text = document_text(draft.title.text, draft.body.text)
            by_label.setdefault(vector[0], {})[text] = vector[1]
    ((label, by_text),) = by_label.items() if len(by_label) == 1 else (("", None),)
    store.take_vectors(label, by_text)


def _hold_still(sock: socket.socket, messages: _Messages) -> None:
    """The server writes: say so, and write nothing until it is done (saves that arrive
    meanwhile wait in ``messages.early``)."""
    _send(sock, "held")
    early = []
    while (message := messages.next()) != "release":
        early.append(message)
    messages.early[:0] = early


def main(argv: list[str]) -> int:
    """``python -m engram.http.writer_process FD DATABASE`` (``engram serve`` starts it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's: it closes the pipe
    sock = socket.socket(fileno=int(argv[0]))
    try:
        serve(sock, argv[1])
    except (BrokenPipeError, ConnectionResetError, EOFError):
        pass  # the server is gone: nobody is waiting for an answer
    except EngramError as exc:
        print(
            f"engram serve: the writer process cannot open the store: {exc.one_line()}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
