"""``cli(*args)``: the ``engram`` entry point run in this process against the sandbox — the CLI
tests' own fixture, shared rather than copied."""

from __future__ import annotations

from tests.cli.conftest import Run, cli

__all__ = ["Run", "cli"]
