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


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as a bench prints them beside its figures."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of process ``pid``, of its children that have exited (reaped) and of its live
    children: all the work of a forking server such as the Postgres postmaster."""
    proc = Path("/proc")
    fields = (proc / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
    for entry in proc.iterdir():
        if not entry.name.isdigit() or entry.name == str(pid):
            continue
        try:
            child = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile: its time is in the parent's reaped children now
        if child[1] == str(pid):
            ticks += int(child[11]) + int(child[12])
    return ticks / os.sysconf("SC_CLK_TCK")
