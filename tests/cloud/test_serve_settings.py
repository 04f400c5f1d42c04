"""``engram cloud serve`` refuses incoherent settings in one line, before listening."""

from __future__ import annotations

import subprocess

import pytest

from tests.cloud.conftest import ENGRAM, JWT_SECRET

BASE = {"ENGRAM_DATABASE_URL": "postgresql://engram@127.0.0.1:1/none", "PATH": "/usr/bin:/bin"}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"ENGRAM_CLOUD_TOKEN": "t", "ENGRAM_JWT_SECRET": JWT_SECRET},
            "ENGRAM_CLOUD_ALLOWED_PROJECTS is not set",
        ),
        (
            {"ENGRAM_CLOUD_ALLOWED_PROJECTS": "p"},
            "neither ENGRAM_CLOUD_TOKEN_PEPPER nor ENGRAM_CLOUD_TOKEN is set",
        ),
        (
            {
                "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p",
                "ENGRAM_CLOUD_INSECURE_NO_AUTH": "1",
                "ENGRAM_CLOUD_TOKEN": "t",
            },
            "cannot be combined with ENGRAM_CLOUD_TOKEN",
        ),
        (
            {
                "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p",
                "ENGRAM_CLOUD_INSECURE_NO_AUTH": "1",
                "ENGRAM_CLOUD_ADMIN": "a",
            },
            "ENGRAM_CLOUD_ADMIN is rejected in insecure mode",
        ),
        (
            {"ENGRAM_CLOUD_ALLOWED_PROJECTS": "p", "ENGRAM_CLOUD_TOKEN": "t"},
            "ENGRAM_JWT_SECRET is missing or a default value",
        ),
        (
            {
                "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p",
                "ENGRAM_CLOUD_TOKEN": "t",
                "ENGRAM_JWT_SECRET": "short-but-not-default",
            },
            "shorter than 32 bytes",
        ),
        (
            {
                "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p",
                "ENGRAM_CLOUD_TOKEN": "t",
                "ENGRAM_JWT_SECRET": JWT_SECRET,
                "ENGRAM_CLOUD_TOKEN_PEPPER": JWT_SECRET,
            },
            "must differ from ENGRAM_JWT_SECRET",
        ),
        (
            {
                "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p",
                "ENGRAM_CLOUD_INSECURE_NO_AUTH": "1",
                "ENGRAM_PORT": "99999",
            },
            "ENGRAM_PORT='99999' is not a number",
        ),
        (
            {
                "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p",
                "ENGRAM_CLOUD_INSECURE_NO_AUTH": "1",
                "ENGRAM_CLOUD_POOL_SIZE": "1",
            },
            "ENGRAM_CLOUD_POOL_SIZE='1' is not a number from 2 to 500",
        ),
        (
            {
                "ENGRAM_CLOUD_ALLOWED_PROJECTS": "p",
                "ENGRAM_CLOUD_INSECURE_NO_AUTH": "1",
                "ENGRAM_CLOUD_POOL_SIZE": "ten",
            },
            "ENGRAM_CLOUD_POOL_SIZE='ten' is not a number from 2 to 500",
        ),
        (
            {"ENGRAM_CLOUD_ALLOWED_PROJECTS": "p", "ENGRAM_CLOUD_INSECURE_NO_AUTH": "1"},
            "cannot reach Postgres",
        ),
    ],
)
def test_incoherent_settings_are_refused_in_one_line(env: dict[str, str], message: str) -> None:
    result = subprocess.run(
        [str(ENGRAM), "cloud", "serve"],
        capture_output=True,
        text=True,
        env={**BASE, **env},
        timeout=60,
    )
    assert result.returncode == 1
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
