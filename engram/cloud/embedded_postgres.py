"""The team server's own PostgreSQL: a real cluster kept under the data dir.

``engram cloud serve`` without ``ENGRAM_DATABASE_URL`` runs one of these; the cloud app never
knows the difference (it gets a DSN). Layout, all under ``<data dir>/team-server/`` (0700)::

    secrets.json      0600: database password, JWT secret, token pepper (engram.cloud.team_secrets)
    postgres.json     0600: pid and port of the running cluster (for the bootstrap commands)
    postgres-port.json  the port it listened on last (kept while free)
    serve.lock        held by whoever runs the cluster
    pg/data/          the cluster itself;  pg/postgres.log  its log

The binaries come from the ``pgserver`` wheel (part of the ``[cloud]`` extra) or from the
system's PostgreSQL, whichever matches the cluster's ``PG_VERSION``
(:mod:`engram.cloud.postgres_binaries`). PostgreSQL refuses to run
as root, so as root the cluster belongs to ``nobody``: it starts in a private mount namespace
where ``pg/`` is bind-mounted onto a folder ``nobody`` can reach, so the home directory is never
re-moded. The cluster listens on loopback TCP only, with a generated password (scram).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from engram.cloud.postgres_binaries import PostgresBinaries, find_binaries
from engram.cloud.team_secrets import load_secrets, make_private_folder
from engram.errors import EngramError
from engram.store.datadir import resolve_data_dir, write_private_file

TEAM_DIR = "team-server"
SUPERUSER = "engram"
DATABASE = "engram"
SERVICE_USER = "nobody"  # who runs the cluster when Engram runs as root
START_TIMEOUT_S = 60.0


def team_dir(env: Mapping[str, str] | None = None) -> Path:
    """``<data dir>/team-server`` (not created here)."""
    return resolve_data_dir(env) / TEAM_DIR


# ---- the cluster -----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EmbeddedPostgres:
    """The cluster in ``folder`` (``<data dir>/team-server``): :meth:`start`, :meth:`stop`.

    Args:
        folder: the team-server folder; created 0700 when missing.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pg = folder / "pg"
        self.data = self.pg / "data"
        self.log_path = self.pg / "postgres.log"
        self.state_path = folder / "postgres.json"
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.binaries: PostgresBinaries | None = None
        self._lock: IO[str] | None = None
        self._mount_root: Path | None = None
        self._secrets: dict[str, str] = {}

    # -- public -----------------------------------------------------------------------------

    @property
    def dsn(self) -> str:
        """The libpq URL of the ``engram`` database (holds the password: never log it)."""
        return self._url(DATABASE)

    @property
    def secrets(self) -> dict[str, str]:
        """The secrets file's values (loaded by :meth:`start` or :meth:`attach`)."""
        return dict(self._secrets)

    def start(self) -> EmbeddedPostgres:
        """Create the cluster on first use, start it, wait until it answers.

        Raises:
            EngramError: ``cloud.embedded_busy`` (another process runs it),
                ``cloud.postgres_missing``, ``cloud.embedded_failed`` (with the log's last line).
        """
        make_private_folder(self.folder)
        self._take_lock()
        try:
            self._secrets = load_secrets(self.folder)
            self._stop_orphan()
            version_file = self.data / "PG_VERSION"
            major = version_file.read_text().strip() if version_file.exists() else None
            self.binaries = find_binaries(major)
            if major is None:
                self._initdb()
            self.port = self._choose_port()
            self._launch()
            self._wait_ready()
            self._ensure_database()
            write_private_file(
                self.state_path,
                json.dumps({"pid": self.process.pid if self.process else 0, "port": self.port}),
            )
        except BaseException:
            self.stop()
            raise
        return self

    def attach(self, wait_s: float = START_TIMEOUT_S) -> bool:
        """Use a cluster another ``engram`` process is running; False when none runs. A
        cluster still starting (its runner holds the lock, its state not yet written) is
        waited for up to ``wait_s``, so ``serve &`` then ``bootstrap`` just works."""
        deadline = time.monotonic() + wait_s
        while not self.state_path.exists() and self._locked_by_other():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        try:
            state = json.loads(self.state_path.read_text())
            pid, port = int(state["pid"]), int(state["port"])
        except (OSError, ValueError, KeyError, TypeError):
            return False
        if not (pid > 0 and _alive(pid) and not _port_free(port) and self._locked_by_other()):
            return False
        self._secrets = load_secrets(self.folder, create=False)
        self.port = port
        return True

    def stop(self) -> None:
        """Fast shutdown (SIGINT), then forget the state; safe to call twice."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._lock is not None:
            with contextlib.suppress(OSError):
                self.state_path.unlink()
            self._lock.close()
            self._lock = None
        if self._mount_root is not None:
            shutil.rmtree(self._mount_root, ignore_errors=True)
            self._mount_root = None

    def describe(self) -> str:
        """``embedded PostgreSQL 16 (pgserver) in /home/me/.engram/team-server``."""
        where = self.binaries.source if self.binaries else "attached"
        major = self.binaries.major if self.binaries else "?"
        return f"embedded PostgreSQL {major} ({where}) in {self.folder}"

    def __enter__(self) -> EmbeddedPostgres:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- lock and orphans -------------------------------------------------------------------

    def _take_lock(self) -> None:
        fd = os.open(self.folder / "serve.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        handle = os.fdopen(fd, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise EngramError(
                "cloud.embedded_busy",
                f"another engram process is running the team database in {self.folder}",
                "stop that `engram cloud serve` first, or use it (the bootstrap commands attach to it)",
            ) from None
        self._lock = handle

    def _locked_by_other(self) -> bool:
        if not self.folder.is_dir():
            return False
        fd = os.open(self.folder / "serve.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "a+", encoding="utf-8") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False

    def _stop_orphan(self) -> None:
        """A cluster left running by a killed ``engram`` (we hold the lock, so it is no one's)."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return
        if b"postgres" not in cmdline:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.1)

    # -- running the binaries ---------------------------------------------------------------

    def _as_root(self) -> bool:
        return os.geteuid() == 0

    def _mount_point(self) -> Path:
        """Our own folder that ``nobody`` may pass through (not list): the mounts go in it."""
        if self._mount_root is None:
            self._mount_root = Path(tempfile.mkdtemp(prefix="engram-team-db-"))
            os.chmod(self._mount_root, 0o711)
            for name in ("pg", "pgsql"):
                (self._mount_root / name).mkdir(mode=0o755)
        return self._mount_root

    def _visible_pg(self) -> Path:
        """Where ``pg/`` is seen by the postgres process (the bind mount when root)."""
        return self._mount_point() / "pg" if self._as_root() else self.pg

    def _tool(self, name: str) -> str:
        """A binary as the postgres process sees it: when root, the installation is
        bind-mounted too (a pgserver wheel may sit in a home ``nobody`` cannot enter)."""
        assert self.binaries is not None
        if not self._as_root():
            return self.binaries.tool(name)
        inside = self.binaries.bindir.relative_to(self.binaries.root)
        return str(self._mount_point() / "pgsql" / inside / name)

    def _argv(self, *argv: str) -> list[str]:
        if not self._as_root():
            return list(argv)
        assert self.binaries is not None
        # $0/$1: the cluster folder and its mount point; $2/$3: the installation and its
        # mount point; $4/$5: user and group; then the command itself.
        script = (
            "pg=$0; pgdst=$1; inst=$2; instdst=$3; user=$4; group=$5; shift 5;"
            ' mount --bind "$pg" "$pgdst" && mount --bind "$inst" "$instdst"'
            ' && exec setpriv --reuid="$user" --regid="$group" --init-groups -- "$@"'
        )
        mounts = self._mount_point()
        return [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
            script,
            str(self.pg),
            str(mounts / "pg"),
            str(self.binaries.root),
            str(mounts / "pgsql"),
            SERVICE_USER,
            _group_of(SERVICE_USER),
            *argv,
        ]

    def _prepare_pg_folder(self) -> None:
        self.pg.mkdir(mode=0o700, exist_ok=True)
        if self._as_root():
            shutil.chown(self.pg, user=SERVICE_USER, group=_group_of(SERVICE_USER))

    def _initdb(self) -> None:
        assert self.binaries is not None
        self._prepare_pg_folder()
        shutil.rmtree(self.data, ignore_errors=True)  # a half-made cluster from a crash
        pwfile = self.pg / ".pwfile"
        fd = os.open(pwfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(self._secrets["database_password"] + "\n")
        if self._as_root():
            shutil.chown(pwfile, user=SERVICE_USER)
        inner = self._visible_pg()
        try:
            result = subprocess.run(
                self._argv(
                    self._tool("initdb"),
                    "-D",
                    str(inner / "data"),
                    "-U",
                    SUPERUSER,
                    f"--pwfile={inner / '.pwfile'}",
                    "--auth=scram-sha-256",
                    "-E",
                    "UTF8",
                    "--locale=C",
                ),
                capture_output=True,
                text=True,
                cwd="/",
            )
        finally:
            pwfile.unlink(missing_ok=True)
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["initdb failed"])[-1]
            raise EngramError(
                "cloud.embedded_failed",
                f"could not create the team database in {self.data}: {last}",
                "check the disk and the folder's permissions, then run `engram cloud serve` again",
            )

    def _choose_port(self) -> int:
        try:
            kept = int(json.loads((self.folder / "postgres-port.json").read_text())["port"])
        except (OSError, ValueError, KeyError, TypeError):
            kept = 0
        port = kept if kept and _port_free(kept) else _free_port()
        if port != kept:
            write_private_file(self.folder / "postgres-port.json", json.dumps({"port": port}))
        return port

    def _launch(self) -> None:
        assert self.binaries is not None
        inner = self._visible_pg()
        log = open(self.log_path, "ab")  # noqa: SIM115
        if self._as_root():
            shutil.chown(self.log_path, user=SERVICE_USER)
        try:
            self.process = subprocess.Popen(
                self._argv(
                    self._tool("postgres"),
                    "-D",
                    str(inner / "data"),
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "unix_socket_directories=",
                    "-c",
                    "dynamic_shared_memory_type=mmap",
                    "-c",
                    "max_connections=200",
                ),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd="/",
                start_new_session=True,  # Ctrl-C reaches engram, which stops the cluster in order
            )
        finally:
            log.close()

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise self._failed("exited while starting")
            try:
                with psycopg.connect(self._url("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise self._failed(f"did not answer within {START_TIMEOUT_S:.0f} s") from None
                time.sleep(0.1)

    def _failed(self, what: str) -> EngramError:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            lines = []
        last = lines[-1] if lines else "no log"
        return EngramError(
            "cloud.embedded_failed",
            f"the team database {what}: {last}",
            f"read {self.log_path}, fix the cause, then run `engram cloud serve` again",
        )

    def _url(self, database: str) -> str:
        password = self._secrets["database_password"]
        return f"postgresql://{SUPERUSER}:{password}@127.0.0.1:{self.port}/{database}"

    def _ensure_database(self) -> None:
        import psycopg

        with psycopg.connect(self._url("postgres"), autocommit=True) as conn:
            found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
            if found.fetchone() is None:
                conn.execute(f'CREATE DATABASE "{DATABASE}"')


def _group_of(user: str) -> str:
    import grp
    import pwd

    return grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name
