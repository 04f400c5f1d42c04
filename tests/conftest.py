"""Shared fixtures: every test gets a temporary home, workspace and data dir."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.testing import Sandbox


def pytest_configure(config: pytest.Config) -> None:
    """Tell Engram it runs under tests: plugin loading skips third-party entry points."""
    sys._called_from_test = True  # type: ignore[attr-defined]


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    """A temporary home/workspace/data dir applied to this process's environment and cwd."""
    box = Sandbox(tmp_path)
    for key, value in box.env().items():
        if os.environ.get(key) != value:
            monkeypatch.setenv(key, value)
    for key in list(os.environ):
        if key not in box.env():
            monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(box.workspace)
    yield box


@pytest.fixture(autouse=True)
def _forget_the_tool_store() -> Iterator[None]:
    """The in-process ``mem_*``/``engram_*`` tools cache the store they first opened (and the
    detections they made); a test that ran them must not leave the next test (another sandbox)
    reading its data dir."""
    yield
    context = sys.modules.get("engram.server.mem_tools.context")
    state = getattr(context, "STATE", None)
    if state is not None:
        if state._store is not None:
            state._store.close()
        state._store = None
        state.recoveries.clear()
        state.prompts.clear()
    remembered = sys.modules.get("engram.memory.detection_cache")
    if remembered is not None:
        remembered.REMEMBERED.clear()


def use_every_host(home: Path, workspace: Path) -> None:
    """Make every registered host look used on this machine (its user-level folder exists), as
    on a developer's machine where `engram link all` should link them all."""
    from engram.edit.plan import Scope
    from engram.hosts import HostContext, ServerCommand
    from engram.hosts.presence import config_dirs
    from engram.hosts.registry import all_hosts

    ctx = HostContext(Scope.GLOBAL, home, workspace, home / ".engram", ServerCommand("engram-mcp"))
    for host in all_hosts().values():
        for folder in config_dirs(host, ctx):
            folder.mkdir(parents=True, exist_ok=True)


@pytest.fixture
def every_host_used(sandbox: Sandbox) -> Sandbox:
    """The sandbox with every host's user-level folder present (see :func:`use_every_host`)."""
    use_every_host(sandbox.home, sandbox.workspace)
    return sandbox
