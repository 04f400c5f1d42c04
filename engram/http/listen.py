"""Where ``engram serve`` listens, and running uvicorn there.

- TCP on ``127.0.0.1:7437`` by default. The port comes from the positional argument (one that
  is not an unsigned decimal 1-65535 is an error), else ``ENGRAM_PORT`` (such a value falls
  back to 7437, with a warning). Binding another host than loopback needs ``--host`` explicitly.
- ``ENGRAM_SOCKET`` (POSIX only) listens on that Unix socket path instead, created 0600; it
  cannot be combined with an explicit port.
- When the port (or socket) already belongs to this same store's server, ``serve`` exits 0
  saying so (a supervisor must not loop on it); any other owner is an error.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import socket
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engram.errors import EngramError

if TYPE_CHECKING:
    from engram.store.db import Store

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7437
PROBE_TIMEOUT_S = 2.0
GRACEFUL_SHUTDOWN_S = 3


@dataclass(frozen=True)
class ListenAddress:
    """A TCP host and port, or a Unix socket path (then ``host``/``port`` are unused)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    socket_path: Path | None = None

    def describe(self) -> str:
        """``http://127.0.0.1:7437`` or ``unix:/path/to.sock``."""
        if self.socket_path is not None:
            return f"unix:{self.socket_path}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def parse_port(raw: str | None) -> int | None:
    """An unsigned decimal port 1-65535, or None for anything else."""
    text = (raw or "").strip()
    if not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if 1 <= value <= 65535 else None


def choose_address(
    port_arg: str | None, host: str, env: Mapping[str, str] | None = None
) -> tuple[ListenAddress, list[str]]:
    """The address to listen on and any warnings about fallen-back values.

    Raises:
        EngramError: ``serve.socket_with_port`` (ENGRAM_SOCKET with an explicit port),
            ``serve.socket_unsupported`` (ENGRAM_SOCKET on Windows), ``serve.bad_port`` (a
            port argument that is not 1-65535).
    """
    env = os.environ if env is None else env
    socket_path = (env.get("ENGRAM_SOCKET") or "").strip()
    env_port = (env.get("ENGRAM_PORT") or "").strip()
    if socket_path:
        if port_arg is not None or env_port:
            raise EngramError(
                "serve.socket_with_port",
                "ENGRAM_SOCKET cannot be combined with a port (positional or ENGRAM_PORT)",
                "unset ENGRAM_SOCKET to listen on TCP, or drop the port to use the socket",
            )
        if sys.platform == "win32":
            raise EngramError(
                "serve.socket_unsupported",
                "ENGRAM_SOCKET is POSIX-only",
                "unset ENGRAM_SOCKET (Windows listens on TCP)",
            )
        return ListenAddress(host, DEFAULT_PORT, Path(socket_path).expanduser()), []
    if port_arg is not None:
        port = parse_port(port_arg)
        if port is None:
            raise EngramError(
                "serve.bad_port",
                f"{port_arg!r} is not a port (1-65535)",
                f"pass a port from 1 to 65535, or leave it out for {DEFAULT_PORT}",
            )
        return ListenAddress(host, port), []
    if not env_port:
        return ListenAddress(host, DEFAULT_PORT), []
    port = parse_port(env_port)
    if port is None:
        warning = f"ENGRAM_PORT {env_port!r} is not a port 1-65535; using {DEFAULT_PORT}"
        return ListenAddress(host, DEFAULT_PORT), [warning]
    return ListenAddress(host, port), []


def bind(address: ListenAddress) -> socket.socket:
    """A listening socket for ``address``.

    Raises:
        OSError: ``EADDRINUSE`` when the port or socket is taken (the caller probes it).
    """
    if address.socket_path is not None:
        return _bind_unix(address.socket_path)
    family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: without it a small JSON answer can wait ~40 ms for a
    # delayed ACK (Nagle) before the client sees its last bytes.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((address.host, address.port))
    except OSError:
        sock.close()
        raise
    sock.listen(2048)
    return sock


def _bind_unix(path: Path) -> socket.socket:
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise EngramError(
                "serve.socket_path_taken",
                f"{path} exists and is not a socket; refusing to replace it",
                "point ENGRAM_SOCKET at a new path, or remove that file yourself",
            )
        if probe_health(ListenAddress(socket_path=path)) is not None:
            raise OSError(errno.EADDRINUSE, "socket in use", str(path))
        with contextlib.suppress(OSError):
            connected = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connected.settimeout(PROBE_TIMEOUT_S)
            try:
                connected.connect(str(path))
                raise OSError(errno.EADDRINUSE, "socket in use", str(path))
            except ConnectionRefusedError:
                path.unlink()  # a stale socket of a server that died
            finally:
                connected.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)  # the socket file is created 0600: only this user may connect
    try:
        sock.bind(str(path))
    except OSError:
        sock.close()
        raise
    finally:
        os.umask(old_mask)
    sock.listen(2048)
    return sock


def probe_health(address: ListenAddress, timeout: float = PROBE_TIMEOUT_S) -> dict[str, Any] | None:
    """``GET /health`` of a server at ``address`` — its JSON when an Engram answers, else None."""
    import http.client  # only when the address is taken: serve's start-up does without it

    class _UnixConnection(http.client.HTTPConnection):
        def __init__(self, path: Path, timeout: float) -> None:
            super().__init__("localhost", timeout=timeout)
            self.socket_path = path

        def connect(self) -> None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            sock.connect(str(self.socket_path))
            self.sock = sock

    conn: http.client.HTTPConnection
    if address.socket_path is not None:
        conn = _UnixConnection(address.socket_path, timeout)
    else:
        host = "127.0.0.1" if address.host in ("0.0.0.0", "::") else address.host
        conn = http.client.HTTPConnection(host, address.port, timeout=timeout)
    try:
        conn.request("GET", "/health", headers={"Host": "localhost"})
        response = conn.getresponse()
        data = json.loads(response.read() or b"null")
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        conn.close()
    if isinstance(data, dict) and data.get("service") == "engram":
        return data
    return None


def run(
    store: Store, address: ListenAddress, *, extra_hosts: frozenset[str], wide: bool = False
) -> int:
    """Serve until interrupted; 0 also when this store's server already owns the address.

    ``wide``: the bind reaches beyond loopback, so every route but ``GET /health`` needs
    ENGRAM_HTTP_TOKEN.

    Raises:
        EngramError: ``serve.address_in_use`` when something else owns the port or socket.
    """
    # Listen before importing the web stack: a client that connects meanwhile waits in the
    # backlog and is answered as soon as uvicorn runs, instead of being refused.
    try:
        sock = bind(address)
    except OSError as exc:
        if exc.errno not in (errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL):
            raise
        from engram.memory.health import check_health

        running = probe_health(address)
        if running and running.get("instance_id") == check_health(store).instance_id:
            print(f"engram serve: already running on {address.describe()}", file=sys.stderr)
            return 0
        raise EngramError(
            "serve.address_in_use",
            f"cannot listen on {address.describe()}: {exc.strerror or exc}",
            "stop the other program, or pick another port: engram serve <port>",
        ) from exc
    import uvicorn

    from engram.http.app import build_app
    from engram.slow_clients import guarded_protocol, limits_from_env
    from engram.store.db import Store

    reader = Store(store.path)
    store.group_commits()  # concurrent clients' saves share transactions
    autosync: list[Any] = []
    writers: list[Any] = []

    def after_start() -> None:
        # After start-up: a hook waits 0.5 s for /health; the writer and autosync can wait.
        from engram.http import writer_process
        from engram.sync.cloud.status_provider import attach

        database = str(store.path)
        if writer_process.wanted(database):
            # Saves are written by a process of its own: the server's Python works meanwhile.
            try:
                writers.append(writer_process.WriterProcess.start(database, store.vectors_for))
                app.state.writer = writers[0]
                store.take_turns(writers[0].turn)  # the server's own writes: the writer waits
            except OSError as exc:  # no process to spare: the server writes the saves
                print(
                    f"engram serve: no writer process ({exc}); saves are written by the server",
                    file=sys.stderr,
                )
        autosync.append(attach(store.path.parent))  # its /sync/status provider wraps git's
        if writers:  # the drafts' vectors are made here, beside the writer: load the model
            try:
                store.warm_semantic()
            except Exception as exc:  # the writer embeds them itself
                print(f"engram serve: no embedding model in the server ({exc})", file=sys.stderr)

    app = build_app(
        store,
        reader=reader,
        extra_hosts=extra_hosts,
        token_everywhere=wide,
        after_start=after_start,
    )
    config = uvicorn.Config(
        app,
        http=guarded_protocol(limits_from_env()),  # read deadlines + a connection cap
        log_level="warning",
        access_log=False,
        server_header=False,
        lifespan="on",
        # An open MCP stream must not hold a stop (or a supervisor's restart) for long.
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    print(f"engram serve: listening on {address.describe()} (MCP at /mcp)", file=sys.stderr)
    # uvicorn re-raises SIGTERM after its graceful shutdown: make that a clean exit that still
    # runs the clean-up below (the socket file must not outlive the server).
    signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except SystemExit:
        pass
    finally:
        for writer in writers:
            writer.close()
        reader.close()
        for manager in autosync:
            if manager is not None:
                manager.stop()
        sock.close()
        if address.socket_path is not None:
            with contextlib.suppress(OSError):
                address.socket_path.unlink()
    return 0


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)
