"""A plugin module that registers one doctor check (used by test_doctor_plugins.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import DoctorContext
from engram.hosts.hookspecs import hookimpl


def sample_check(ctx: DoctorContext) -> Iterable[Finding]:
    yield Finding("sample.plugin_check", Severity.WARN, f"looked at {ctx.workspace.name}")


@hookimpl
def register_doctor_checks(register: Callable[[object], None]) -> None:
    register(sample_check)
