"""The dashboard's sessions end when they should, and legacy tokens are long enough."""

from __future__ import annotations

import subprocess

import pytest

from tests.cloud.conftest import ENGRAM, JWT_SECRET

BASE = {"ENGRAM_DATABASE_URL": "postgresql://engram@127.0.0.1:1/none", "PATH": "/usr/bin:/bin"}
LONG = "x" * 32


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("ENGRAM_CLOUD_TOKEN", {"ENGRAM_CLOUD_TOKEN": "short-legacy-token"}),
        ("ENGRAM_CLOUD_ADMIN", {"ENGRAM_CLOUD_TOKEN": LONG, "ENGRAM_CLOUD_ADMIN": "admin"}),
        ("ENGRAM_CLOUD_TOKEN", {"ENGRAM_CLOUD_TOKEN": "y" * 31}),
    ],
)
def test_short_legacy_tokens_refuse_to_start(name: str, extra: dict[str, str]) -> None:
    env = {**BASE, "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p", "ENGRAM_JWT_SECRET": JWT_SECRET, **extra}
    result = subprocess.run(
        [str(ENGRAM), "cloud", "serve"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"{name} is shorter than 32 characters" in lines[0]
    assert extra[name] not in result.stderr  # the secret itself is never echoed
