"""Doctor reports the approval and trust steps Qwen Code and Copilot CLI ask for (files as the
hosts themselves write them: `qwen mcp approve` and Copilot's trust prompt)."""

from __future__ import annotations

import json

from engram.cli.app import main
from engram.doctor import approval_checks
from engram.doctor.findings import Severity
from engram.doctor.runner import DoctorContext, run_doctor
from engram.testing import Sandbox


def severities(sandbox: Sandbox, code: str) -> list[Severity]:
    ctx = DoctorContext(home=sandbox.home, workspace=sandbox.workspace, env=sandbox.env())
    return [f.severity for f in run_doctor(ctx, approval_checks.CHECKS, only=code).findings]


def test_a_project_server_qwen_has_not_approved_is_reported_until_it_is(sandbox: Sandbox) -> None:
    assert severities(sandbox, "host.qwen_pending_approval") == []  # not linked: nothing to say
    assert main(["link", "qwen"]) == 0
    assert severities(sandbox, "host.qwen_pending_approval") == [Severity.WARN]
    approvals = {str(sandbox.workspace): {"engram": {"hash": "ab12", "status": "approved"}}}
    (sandbox.home / ".qwen").mkdir()
    (sandbox.home / ".qwen" / "mcpApprovals.json").write_text(json.dumps(approvals, indent=2))
    assert severities(sandbox, "host.qwen_pending_approval") == [Severity.PASS]


def test_copilot_workspace_servers_need_a_trusted_folder(sandbox: Sandbox) -> None:
    assert main(["link", "copilot"]) == 0
    assert severities(sandbox, "host.copilot_folder_untrusted") == [Severity.WARN]
    config = sandbox.home / ".copilot" / "config.json"
    config.parent.mkdir(exist_ok=True)
    config.write_text(json.dumps({"trustedFolders": [str(sandbox.workspace.parent)]}))
    assert severities(sandbox, "host.copilot_folder_untrusted") == [Severity.PASS]
