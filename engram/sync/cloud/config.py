"""``cloud.json``: where each project replicates.

::

    {"server_url": "https://cloud.example.com", "token": "global-token",
     "projects": {"team-app": {"server_url": "https://team-cloud.example.com",
                               "token": "team-token"}}}

``ENGRAM_CLOUD_SERVER`` / ``ENGRAM_CLOUD_TOKEN`` override the global remote only. A routed
project uses only its own server and token — the global token is never sent to another server.
The file lives in the data dir, written atomically with mode 0600 (it may hold tokens).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from engram.errors import EngramError
from engram.store.datadir import write_private_file

FILE_NAME = "cloud.json"


@dataclass(frozen=True)
class Remote:
    """One cloud server a project replicates to."""

    server_url: str
    token: str
    routed: bool = False

    @property
    def target_key(self) -> str:
        """The local sync target of this remote (cursors, state, lease are kept per target)."""
        return "cloud:" + self.server_url

    def masked_token(self) -> str:
        """The token for display: its first 4 characters, or ``(none)``."""
        return f"{self.token[:4]}…" if self.token else "(none)"


def normalize_url(url: str) -> str:
    """A server URL without trailing slash. Raises EngramError for anything not http(s)."""
    text = url.strip().rstrip("/")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EngramError(
            "cloud.cloud_config_error",
            f"cloud_config_error: {url!r} is not an http(s) server URL",
            "pass a URL like https://cloud.example.com",
        )
    return text


@dataclass
class CloudConfig:
    """The contents of ``cloud.json``."""

    server_url: str = ""
    token: str = ""
    projects: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def load(cls, data_dir: Path) -> CloudConfig:
        """Read ``cloud.json`` (an empty config when absent).

        Raises:
            EngramError: ``cloud.cloud_config_error`` for a file that is not a JSON object.
        """
        path = data_dir / FILE_NAME
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError, RecursionError) as exc:
            raise EngramError(
                "cloud.cloud_config_error",
                f"cloud_config_error: {path} is not readable JSON",
                "fix or delete the file, then run engram cloud config --server URL",
            ) from exc
        if not isinstance(data, dict):
            raise EngramError(
                "cloud.cloud_config_error",
                f"cloud_config_error: {path} is not a JSON object",
                "fix or delete the file, then run engram cloud config --server URL",
            )
        projects = data.get("projects") if isinstance(data.get("projects"), dict) else {}
        return cls(
            server_url=str(data.get("server_url") or ""),
            token=str(data.get("token") or ""),
            projects={
                str(name): {k: str(v) for k, v in entry.items() if k in ("server_url", "token")}
                for name, entry in (projects or {}).items()
                if isinstance(entry, dict)
            },
        )

    def save(self, data_dir: Path) -> Path:
        """Write ``cloud.json`` atomically, mode 0600."""
        path = data_dir / FILE_NAME
        body: dict[str, Any] = {"server_url": self.server_url}
        if self.token:
            body["token"] = self.token
        if self.projects:
            body["projects"] = self.projects
        write_private_file(path, json.dumps(body, indent=2) + "\n")
        return path

    def remote_for(self, project: str, env: Mapping[str, str] | None = None) -> Remote | None:
        """The remote ``project`` replicates to, or None when no server is configured."""
        env = os.environ if env is None else env
        routed = self.projects.get(project)
        if routed and routed.get("server_url"):
            return Remote(routed["server_url"], routed.get("token", ""), routed=True)
        server = env.get("ENGRAM_CLOUD_SERVER", "").strip() or self.server_url
        if not server:
            return None
        token = env.get("ENGRAM_CLOUD_TOKEN", "").strip() or self.token
        return Remote(server.rstrip("/"), token)

    def global_remote(self, env: Mapping[str, str] | None = None) -> Remote | None:
        """The global remote, or None when no server is configured."""
        env = os.environ if env is None else env
        server = env.get("ENGRAM_CLOUD_SERVER", "").strip() or self.server_url
        if not server:
            return None
        return Remote(server.rstrip("/"), env.get("ENGRAM_CLOUD_TOKEN", "").strip() or self.token)


def require_remote(
    config: CloudConfig, project: str, env: Mapping[str, str] | None = None
) -> Remote:
    """The project's remote, refused with ``cloud_config_error`` when no server is set."""
    remote = config.remote_for(project, env)
    if remote is None:
        raise EngramError(
            "cloud.cloud_config_error",
            "cloud_config_error: no cloud server is configured",
            "run engram cloud config --server URL (or set ENGRAM_CLOUD_SERVER)",
        )
    return remote
