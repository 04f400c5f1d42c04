"""Doctor compares what the ledger says Engram wrote with what is in the files now."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engram.doctor import link_checks
from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import DoctorContext, run_doctor
from engram.edit.engine import apply
from engram.edit.ledger import Ledger
from engram.edit.plan import DocFormat, LinkPlan, ManagedBlock, Scope, SetValue
from engram.testing import Sandbox


def link(sandbox: Sandbox, command: str) -> Path:
    mcp = sandbox.workspace / ".mcp.json"
    plan = LinkPlan(
        "claude",
        Scope.WORKSPACE,
        [
            SetValue(mcp, DocFormat.JSON, ("mcpServers", "engram"), {"command": command}),
            ManagedBlock(sandbox.workspace / "CLAUDE.md", "engram", "Use engram.\n"),
        ],
        root=sandbox.workspace,
        server_command=[command],
    )
    apply([plan], Ledger.at(sandbox.data_dir))
    return mcp


def executable(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text("#!/bin/sh\n")
    os.chmod(program, 0o755)
    return program


def run(sandbox: Sandbox, only: str, bin_dir: Path) -> list[Finding]:
    env = {**sandbox.env(), "ENGRAM_MINIMAL_PATH": str(bin_dir), "PATH": str(bin_dir)}
    ctx = DoctorContext(home=sandbox.home, workspace=sandbox.workspace, env=env)
    return run_doctor(ctx, link_checks.CHECKS, only=only).findings


def severities(found: list[Finding]) -> list[Severity]:
    return [f.severity for f in found]


def test_a_clean_link_passes_everything(sandbox: Sandbox, tmp_path: Path) -> None:
    executable(tmp_path / "bin", "engram-mcp")
    link(sandbox, "engram-mcp")
    ledger_codes = {"host.registration", "host.version_pin", "host.command"}
    found = [f for f in run(sandbox, "host", tmp_path / "bin") if f.code in ledger_codes]
    assert {f.code for f in found} == ledger_codes
    assert set(severities(found)) == {Severity.PASS}


def test_user_edit_is_drift(sandbox: Sandbox, tmp_path: Path) -> None:
    executable(tmp_path / "bin", "engram-mcp")
    mcp = link(sandbox, "engram-mcp")
    data = json.loads(mcp.read_text())
    data["mcpServers"]["engram"]["env"] = {"X": "1"}
    mcp.write_text(json.dumps(data))
    drift = run(sandbox, "host.drift", tmp_path / "bin")
    assert severities(drift) == [Severity.WARN]
    assert drift[0].file == str(mcp)


def test_removed_entry_and_broken_file_fail(sandbox: Sandbox, tmp_path: Path) -> None:
    executable(tmp_path / "bin", "engram-mcp")
    mcp = link(sandbox, "engram-mcp")
    (sandbox.workspace / "CLAUDE.md").write_text("the user rewrote this file\n")
    mcp.write_text('{"mcpServers": {"engram": ')
    found = run(sandbox, "host.registration", tmp_path / "bin")
    assert severities(found) == [Severity.FAIL, Severity.FAIL]
    assert {f.file for f in found} == {str(mcp), str(sandbox.workspace / "CLAUDE.md")}


def test_older_release_pin_warns(sandbox: Sandbox, tmp_path: Path) -> None:
    executable(tmp_path / "bin", "engram-mcp")
    link(sandbox, "engram-mcp")
    ledger_file = sandbox.data_dir / "links.json"
    data = json.loads(ledger_file.read_text())
    data["links"][0]["version"] = "0.0.1"
    ledger_file.write_text(json.dumps(data))
    found = run(sandbox, "host.version_pin", tmp_path / "bin")
    assert severities(found) == [Severity.WARN]
    assert "engram upgrade" in found[0].remedy


def test_missing_registered_command_fails(sandbox: Sandbox, tmp_path: Path) -> None:
    link(sandbox, "engram-mcp")
    (tmp_path / "empty").mkdir()
    assert severities(run(sandbox, "host.command", tmp_path / "empty")) == [Severity.FAIL]
    link(sandbox, str(tmp_path / "gone" / "engram-mcp"))
    assert severities(run(sandbox, "host.command", tmp_path / "empty")) == [Severity.FAIL]


def test_a_hand_edited_command_that_does_not_exist_fails(sandbox: Sandbox, tmp_path: Path) -> None:
    executable(tmp_path / "bin", "engram-mcp")
    mcp = link(sandbox, "engram-mcp")
    mcp.write_text(mcp.read_text().replace('"engram-mcp"', '"/nowhere/engram-mcp"'))
    found = [f for f in run(sandbox, "host.command", tmp_path / "bin")]
    assert [f for f in found if f.severity is Severity.FAIL and "/nowhere/engram-mcp" in f.message]


def test_an_entry_without_a_command_is_malformed(sandbox: Sandbox, tmp_path: Path) -> None:
    executable(tmp_path / "bin", "engram-mcp")
    mcp = link(sandbox, "engram-mcp")
    mcp.write_text(json.dumps({"mcpServers": {"engram": {"args": []}}}))
    found = run(sandbox, "host.registration", tmp_path / "bin")
    assert [f for f in found if f.severity is Severity.FAIL and "no command" in f.message]
