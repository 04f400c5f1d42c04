"""What the bench tests share: where scripts/install-host-clis put the Node reference server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engram.testing import Sandbox

# Read once at import, before any sandbox points HOME elsewhere (as tests/e2e/conftest.py does).
HOST_CLI_CACHE = str(
    Path(os.environ.get("ENGRAM_TEST_CACHE") or Path.home() / ".cache/engram-test")
)


@pytest.fixture
def bench_env(sandbox: Sandbox) -> dict[str, str]:
    """The environment of a bench run in the sandbox, the Node server still findable."""
    return sandbox.env(ENGRAM_TEST_CACHE=HOST_CLI_CACHE)
