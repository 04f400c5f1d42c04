"""A throwaway PostgreSQL server for tests and benchmarks: ``initdb`` + ``pg_ctl`` in a temp dir.

Usage::

    with ScratchPostgres.start() as pg:
        dsn = pg.dsn                    # postgresql://engram@/engram?host=<socket dir>&port=N
        ...

It listens on a free loopback port and on a Unix socket inside its own temporary folder, so
several can run at once (one per pytest-xdist worker). ``initdb`` refuses to run as root: when
we are root the cluster is created and run by the unprivileged ``nobody`` user through
``runuser``. Nothing here is used by ``engram cloud serve`` itself.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

_SEARCH_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/local/bin")


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for folder in _SEARCH_DIRS:
        candidate = Path(folder) / name
        if candidate.exists():
            return str(candidate)
    raise RuntimeError(f"{name} not found: install PostgreSQL (scripts/install-system-deps)")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ScratchPostgres:
    """A running throwaway cluster; :meth:`stop` removes every file it made."""

    root: Path
    port: int
    as_user: str | None

    @property
    def socket_dir(self) -> Path:
        return self.root / "sock"

    @property
    def dsn(self) -> str:
        """A libpq URL for the ``engram`` database over TCP loopback."""
        return f"postgresql://engram@127.0.0.1:{self.port}/engram"

    def database_url(self, name: str) -> str:
        """The URL of another database in the same cluster (see :meth:`create_database`)."""
        return f"postgresql://engram@127.0.0.1:{self.port}/{name}"

    @classmethod
    def start(cls) -> ScratchPostgres:
        """initdb, start and create the ``engram`` database; ~5 s."""
        root = Path(tempfile.mkdtemp(prefix="engram-pg-"))
        as_user = "nobody" if os.geteuid() == 0 else None
        pg = cls(root=root, port=_free_port(), as_user=as_user)
        (root / "sock").mkdir()
        if as_user:
            shutil.chown(root, user=as_user)
            shutil.chown(root / "sock", user=as_user)
        try:
            pg._initialise()
        except BaseException:
            pg.stop()  # never leave a half-made cluster or its folder behind
            raise
        return pg

    def _initialise(self) -> None:
        self._run(
            _binary("initdb"),
            "-D",
            str(self.root / "data"),
            "-U",
            "engram",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C",
        )
        options = self._options()
        self._run(
            _binary("pg_ctl"),
            "-D",
            str(self.root / "data"),
            "-o",
            options,
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        self.create_database("engram")

    def _options(self) -> str:
        return (
            f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            " -c max_connections=200"
            # Dynamic shared memory in the data dir, not /dev/shm: several clusters of several
            # users on one machine never meet there. No parallel workers either.
            " -c dynamic_shared_memory_type=mmap -c max_parallel_workers_per_gather=0"
        )

    def create_database(self, name: str) -> str:
        """Create an empty database and return its URL."""
        self._run(
            _binary("createdb"),
            "-h",
            str(self.socket_dir),
            "-p",
            str(self.port),
            "-U",
            "engram",
            name,
        )
        return self.database_url(name)

    def restart(self, down_s: float = 0.0) -> None:
        """Stop the server (fast mode: every client connection is cut), stay down ``down_s``
        seconds, start it again on the same port with the same data."""
        data = str(self.root / "data")
        self._run(_binary("pg_ctl"), "-D", data, "-m", "fast", "-w", "stop")
        time.sleep(down_s)
        self._run(
            _binary("pg_ctl"),
            "-D",
            data,
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            self._options(),
            "start",
        )

    def stop(self) -> None:
        """Stop the server (fast mode) and delete its folder; when ``pg_ctl`` cannot run, the
        postmaster gets SIGTERM from its pid file."""
        try:
            self._run(_binary("pg_ctl"), "-D", str(self.root / "data"), "-m", "fast", "-w", "stop")
        except RuntimeError:
            self._terminate()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def _terminate(self) -> None:
        pid_file = self.root / "data" / "postmaster.pid"
        try:
            pid = int(pid_file.read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and pid_file.exists():
            time.sleep(0.1)

    def _run(self, *argv: str) -> None:
        command = ["runuser", "-u", self.as_user, "--", *argv] if self.as_user else list(argv)
        started = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True, cwd=self.root)
        if result.returncode != 0 and self.as_user and not os.stat("/").st_mode & 0o001:
            raise RuntimeError(
                f"{Path(argv[0]).name} cannot run as {self.as_user}: / is mode"
                f" {os.stat('/').st_mode & 0o777:o} (something made it private) — chmod 755 /"
            )
        if result.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{Path(argv[0]).name} failed after {time.monotonic() - started:.1f}s:"
                f" {result.stderr.strip()} {tail}"
            )

    def __enter__(self) -> ScratchPostgres:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
