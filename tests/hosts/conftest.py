"""A host context over the sandbox: every host test plans against a temporary home."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engram.edit.plan import Scope
from engram.hosts import HostContext, ServerCommand
from engram.testing import Sandbox

MakeContext = Callable[..., HostContext]


@pytest.fixture
def context(sandbox: Sandbox) -> MakeContext:
    """``context(scope, **options)``: a HostContext over the sandbox with ``engram-mcp``."""

    def make(scope: Scope = Scope.WORKSPACE, **options: bool) -> HostContext:
        return HostContext(
            scope=scope,
            home=sandbox.home,
            workspace=sandbox.workspace,
            data_dir=sandbox.data_dir,
            server=ServerCommand("engram-mcp", (), "9.9.9", "path"),
            env=sandbox.env(),
            **options,
        )

    return make
