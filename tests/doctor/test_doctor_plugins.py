"""Plugins add doctor checks through ``register_doctor_checks(register)``."""

from __future__ import annotations

import pytest

from engram.doctor.runner import DoctorContext, run_doctor
from engram.testing import Sandbox


def test_a_plugin_check_runs_with_the_built_in_ones(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram.hosts import registry

    monkeypatch.setattr(
        registry, "DEFAULT_PLUGINS", (*registry.DEFAULT_PLUGINS, "tests.doctor.doctor_check_plugin")
    )
    ctx = DoctorContext(sandbox.home, sandbox.workspace, sandbox.env())
    report = run_doctor(ctx, only="sample")
    assert [(f.code, f.message) for f in report.findings] == [
        ("sample.plugin_check", "looked at workspace")
    ]
