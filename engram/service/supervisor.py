"""Install, remove and check the ``engram serve`` service with the platform's supervisor.

``install`` writes the unit file (atomically) and, unless ``start=False``, asks the supervisor
to load and start it: ``systemctl --user``, ``launchctl`` or ``schtasks``. ``uninstall`` stops
it and removes only a file Engram wrote (it carries the marker line). ``status`` says whether
the file is installed and whether a daemon answers ``GET /health`` on the configured port or
socket.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.edit.atomic import make_dirs, read_text, remove_path, write_atomic
from engram.errors import EngramError
from engram.service.units import MARKER, TASK_NAME, Platform, ServiceUnit, render_unit, unit_path

COMMAND_TIMEOUT_S = 60


def start_commands(platform: Platform, path: Path) -> list[list[str]]:
    """What loads and starts an installed service."""
    if platform == "linux":
        return [
            ["systemctl", "--user", "daemon-reload"],
            ["systemctl", "--user", "enable", "--now", "engram.service"],
        ]
    if platform == "macos":
        return [["launchctl", "load", "-w", str(path)]]
    return [
        ["schtasks", "/Create", "/TN", TASK_NAME, "/XML", str(path), "/F"],
        ["schtasks", "/Run", "/TN", TASK_NAME],
    ]


def stop_commands(platform: Platform, path: Path) -> list[list[str]]:
    """What stops and unloads an installed service."""
    if platform == "linux":
        return [["systemctl", "--user", "disable", "--now", "engram.service"]]
    if platform == "macos":
        return [["launchctl", "unload", "-w", str(path)]]
    return [
        ["schtasks", "/End", "/TN", TASK_NAME],
        ["schtasks", "/Delete", "/TN", TASK_NAME, "/F"],
    ]


def install(
    platform: Platform, home: Path, env: Mapping[str, str], *, start: bool = True
) -> ServiceUnit:
    """Write the service file and (with ``start``) start it under the supervisor.

    Raises:
        EngramError: ``service.not_ours`` when a file Engram did not write is in the way;
            ``service.command_failed`` when the supervisor refused (the file stays in place).
    """
    unit = render_unit(platform, home, env)
    existing = read_text(unit.path)
    if existing is not None and MARKER not in existing:
        raise _not_ours(unit.path)
    make_dirs(unit.path.parent)
    write_atomic(unit.path, unit.text, mode=0o644)
    if start:
        _run_all(start_commands(platform, unit.path))
    return unit


def uninstall(
    platform: Platform, home: Path, env: Mapping[str, str], *, stop: bool = True
) -> Path | None:
    """Stop the service and remove its file; returns the removed path (None: not installed).

    Raises:
        EngramError: ``service.not_ours``; ``service.command_failed``.
    """
    path = unit_path(platform, home, env)
    existing = read_text(path)
    if existing is None:
        return None
    if MARKER not in existing:
        raise _not_ours(path)
    if stop:
        _run_all(stop_commands(platform, path))
    remove_path(path)
    if stop and platform == "linux":
        _run_all([["systemctl", "--user", "daemon-reload"]])
    return path


@dataclass(frozen=True)
class ServiceStatus:
    """Whether the service file is installed and whether the daemon answers."""

    platform: str
    unit_path: str
    installed: bool
    address: str
    running: bool
    health: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "platform": self.platform,
            "unit_path": self.unit_path,
            "installed": self.installed,
            "address": self.address,
            "running": self.running,
            "version": (self.health or {}).get("version"),
            "instance_id": (self.health or {}).get("instance_id"),
        }


def status(platform: Platform, home: Path, env: Mapping[str, str]) -> ServiceStatus:
    """Is the unit installed, and does a daemon answer on its port or socket?"""
    from engram.http.listen import choose_address, probe_health

    path = unit_path(platform, home, env)
    text = read_text(path)
    try:
        address, _ = choose_address(None, "127.0.0.1", env)
    except EngramError:  # ENGRAM_SOCKET with ENGRAM_PORT: the TCP default is what answers
        address, _ = choose_address(None, "127.0.0.1", {"ENGRAM_PORT": env.get("ENGRAM_PORT", "")})
    health = probe_health(address)
    return ServiceStatus(
        platform,
        str(path),
        text is not None and MARKER in text,
        address.describe(),
        health is not None,
        health,
    )


def _run_all(commands: list[list[str]]) -> None:
    for command in commands:
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise _failed(command, str(exc), commands) from exc
        if done.returncode != 0:
            raise _failed(command, (done.stderr or done.stdout).strip(), commands)


def _failed(command: list[str], why: str, commands: list[list[str]]) -> EngramError:
    manual = "; ".join(" ".join(c) for c in commands)
    first = why.splitlines()[0] if why else "no output"
    return EngramError(
        "service.command_failed",
        f"`{' '.join(command)}` failed: {first}",
        f"the service file is written; run by hand: {manual}",
    )


def _not_ours(path: Path) -> EngramError:
    return EngramError(
        "service.not_ours",
        f"{path} exists and was not written by Engram; leaving it alone",
        "move it aside, or edit it yourself to run `engram serve`",
        path=str(path),
    )
