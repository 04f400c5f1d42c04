"""The service definition for each platform, rendered from ``templates/service/``.

Every file names the absolute ``engram`` executable and the environment the seed lists for a
service: ``ENGRAM_DATA_DIR`` always, ``ENGRAM_PORT`` / ``ENGRAM_SOCKET`` when they were set at
install time. Secrets (``ENGRAM_HTTP_TOKEN``, cloud tokens) are never written into a unit: the
systemd unit reads an optional ``serve.env`` file, launchd and Task Scheduler document where
to set them.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Literal

import jinja2

from engram.assets import asset_path
from engram.errors import EngramError

Platform = Literal["linux", "macos", "windows"]
PLATFORMS: tuple[Platform, ...] = ("linux", "macos", "windows")
MARKER = "Managed by `engram service install`"
LAUNCHD_LABEL = "dev.engram.serve"
TASK_NAME = "EngramMemoryServer"
SERVICE_ENV = ("ENGRAM_PORT", "ENGRAM_SOCKET")


def current_platform() -> Platform:
    """The platform this process runs on."""
    if sys.platform == "darwin":
        return "macos"
    if sys.platform == "win32":
        return "windows"
    return "linux"


def check_platform(name: str | None) -> Platform:
    """A platform name (default: this machine's).

    Raises:
        EngramError: ``service.bad_platform``.
    """
    if name is None:
        return current_platform()
    if name not in PLATFORMS:
        raise EngramError(
            "service.bad_platform",
            f"unknown platform {name!r}",
            f"use one of: {', '.join(PLATFORMS)}",
        )
    return name


@dataclass(frozen=True)
class ServiceUnit:
    """One rendered service definition.

    Attributes:
        platform: ``linux``, ``macos`` or ``windows``.
        path: where the file is installed.
        text: its content.
        command: the command the supervisor runs.
    """

    platform: Platform
    path: Path
    text: str
    command: tuple[str, ...] = field(default=())


def engram_executable() -> str:
    """The absolute path of the ``engram`` command this process belongs to."""
    beside = Path(sys.executable).with_name("engram.exe" if sys.platform == "win32" else "engram")
    if beside.exists():
        return str(beside)
    found = shutil.which("engram")
    if found:
        return str(Path(found).resolve())
    raise EngramError(
        "service.no_executable",
        "cannot find the `engram` command to run as a service",
        "install Engram so `engram` is on PATH (pipx install engram-keeper)",
    )


def unit_path(platform: Platform, home: Path, env: Mapping[str, str]) -> Path:
    """Where the platform's service file lives for this user."""
    if platform == "linux":
        config = env.get("XDG_CONFIG_HOME", "").strip()
        base = Path(config) if config and Path(config).is_absolute() else home / ".config"
        return base / "systemd" / "user" / "engram.service"
    if platform == "macos":
        return home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
    return data_dir(home, env) / "service" / "engram-task.xml"


def data_dir(home: Path, env: Mapping[str, str]) -> Path:
    """``ENGRAM_DATA_DIR`` when set (absolute), else ``~/.engram``."""
    raw = env.get("ENGRAM_DATA_DIR", "").strip()
    return Path(raw) if raw and Path(raw).is_absolute() else home / ".engram"


def render_unit(
    platform: Platform, home: Path, env: Mapping[str, str], executable: str | None = None
) -> ServiceUnit:
    """Render the service file for ``platform`` and this user's home and environment."""
    command = (executable or engram_executable(), "serve")
    data = data_dir(home, env)
    service_env = {"ENGRAM_DATA_DIR": str(data)}
    service_env.update({k: env[k].strip() for k in SERVICE_ENV if env.get(k, "").strip()})
    template = {
        "linux": "engram.service.j2",
        "macos": "engram.plist.j2",
        "windows": "engram-task.xml.j2",
    }[platform]
    text = (
        _environment()
        .get_template(template)
        .render(
            command=list(command),
            env=service_env,
            env_file=str(data / "serve.env"),
            home=str(home),
            log_dir=str(data),
            label=LAUNCHD_LABEL,
            marker=MARKER,
        )
    )
    return ServiceUnit(platform, unit_path(platform, home, env), text.strip("\n") + "\n", command)


_SYSTEMD_SAFE = re.compile(r"^[A-Za-z0-9_@+=:,./-]+$")


def systemd_quote(value: str) -> str:
    """One systemd command-line / Environment= word, quoted when it needs to be."""
    if _SYSTEMD_SAFE.match(value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("%", "%%").replace("$", "$$")
    return f'"{escaped}"'


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(asset_path("templates", "service"))),
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["systemd_quote"] = systemd_quote
    return environment
