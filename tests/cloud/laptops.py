"""A "laptop": its own home and data dir, running the real ``engram`` CLI."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.cloud.conftest import ENGRAM


@dataclass
class Laptop:
    root: Path
    base_env: dict[str, str]

    def __post_init__(self) -> None:
        (self.root / "home").mkdir(parents=True, exist_ok=True)
        (self.root / "work").mkdir(exist_ok=True)

    @property
    def data_dir(self) -> Path:
        return self.root / "home" / ".engram"

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(self.base_env)
        env.update(HOME=str(self.root / "home"), ENGRAM_DATA_DIR=str(self.data_dir))
        env.update(extra)
        return env

    def run(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ENGRAM), *args],
            capture_output=True,
            text=True,
            env=self.env(**extra),
            cwd=self.root / "work",
            timeout=300,
        )

    def ok(self, *args: str, **extra: str) -> str:
        result = self.run(*args, **extra)
        assert result.returncode == 0, f"engram {' '.join(args)}: {result.stderr}"
        return result.stdout

    def memories(self, project: str) -> dict[str, tuple[str, str, bool]]:
        """sync_id -> (title, content, soft-deleted) of every memory of ``project``."""
        backup: dict[str, Any] = json.loads(self.ok("export", "--project", project))
        return {
            o["sync_id"]: (o["title"], o["content"], o["deleted_at"] is not None)
            for o in backup["observations"]
        }
