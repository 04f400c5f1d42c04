"""What the bench tests share: where scripts/install-host-clis put the Node reference server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Read once at import, before any sandbox points HOME elsewhere (as tests/e2e/conftest.py does).
HOST_CLI_CACHE = str(
    Path(os.environ.get("ENGRAM_TEST_CACHE") or Path.home() / ".cache/engram-test")
)


@pytest.fixture
def host_cli_cache() -> str:
    """``ENGRAM_TEST_CACHE`` for a bench run in a sandbox: the Node server stays findable."""
    return HOST_CLI_CACHE
