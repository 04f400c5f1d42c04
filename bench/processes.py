"""What the server benchmarks need to know about local processes and ports."""

from __future__ import annotations

import os
import socket
from pathlib import Path


def free_port() -> int:
    """A TCP port on loopback nobody listens on (at the moment of asking)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time process ``pid`` has used so far (Linux ``/proc``; waits for a
    CPU are not in it)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """:func:`cpu_seconds` of ``pid`` and of its live children, theirs and so on (``engram
    serve``'s writer process works for it)."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            total += cpu_seconds(current)
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(child) for child in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended meanwhile
    return total


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as a bench prints them beside its figures."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


# Postgres processes that serve no client: their work (autovacuum after a big insert, a
# checkpoint) lands on whichever step happens to be running, so it is left out of every step.
_PG_BACKGROUND = (
    "checkpointer",
    "background writer",
    "walwriter",
    "autovacuum",
    "logical replication",
    "archiver",
    "stats collector",
    "parallel worker",
)


def client_backends_cpu_seconds(postmaster: int) -> float:
    """CPU time of the live Postgres backends serving clients, children of ``postmaster``."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        if fields[1] != str(postmaster) or not title.startswith("postgres: "):
            continue
        if not any(title[len("postgres: ") :].startswith(kind) for kind in _PG_BACKGROUND):
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")
