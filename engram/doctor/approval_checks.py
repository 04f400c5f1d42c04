"""Checks of the approval and trust steps the terminal agents ask of the user before they start
a workspace's server (read-only; Engram never approves or trusts for the user).

- ``host.qwen_pending_approval`` - Qwen Code has not approved the project's engram server
  (``qwen mcp approve engram``, recorded in ``~/.qwen/mcpApprovals.json``) (warn).
- ``host.copilot_folder_untrusted`` - Copilot CLI ignores ``.github/mcp.json`` until the folder
  is in ``trustedFolders`` of ``~/.copilot/config.json`` (warn).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import Check, DoctorContext


def _json(path: Path) -> Any:
    """The parsed file, or None when it is missing or not JSON (other checks report that)."""
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _has_engram(path: Path, *keys: str) -> bool:
    from engram.edit import read_document
    from engram.edit.plan import DocFormat
    from engram.errors import EngramError

    try:
        node: Any = read_document(path, DocFormat.JSONC)
    except EngramError:
        return False
    for key in (*keys, "engram"):
        node = node.get(key) if isinstance(node, dict) else None
    return isinstance(node, dict)


def check_qwen_approval(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.qwen_pending_approval``: the project's engram server is approved in Qwen Code."""
    settings = ctx.workspace / ".qwen" / "settings.json"
    if not ctx.wants_host("qwen") or not _has_engram(settings, "mcpServers"):
        return
    approvals = _json(
        Path(ctx.env.get("QWEN_CODE_MCP_APPROVALS_PATH") or ctx.home / ".qwen/mcpApprovals.json")
    )
    record = (
        approvals.get(str(ctx.workspace), {}).get("engram") if isinstance(approvals, dict) else None
    )
    status = record.get("status") if isinstance(record, dict) else None
    if status == "approved":
        yield Finding(
            "host.qwen_pending_approval",
            Severity.PASS,
            "Qwen Code approved engram (it asks again if the entry changed since)",
            str(settings),
        )
        return
    yield Finding(
        "host.qwen_pending_approval",
        Severity.WARN,
        f"Qwen Code {'rejected' if status == 'rejected' else 'has not approved'} the project's engram server",
        str(settings),
        f"run `qwen mcp approve engram` in {ctx.workspace}",
    )


def _trusted(folders: Any, workspace: Path) -> bool:
    if not isinstance(folders, list):
        return False
    paths = [Path(f) for f in folders if isinstance(f, str)]
    return any(workspace == p or workspace.is_relative_to(p) for p in paths)


def check_copilot_trust(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.copilot_folder_untrusted``: Copilot CLI reads ``.github/mcp.json`` here."""
    mcp = ctx.workspace / ".github" / "mcp.json"
    if not ctx.wants_host("copilot") or not _has_engram(mcp, "mcpServers"):
        return
    config = _json(ctx.home / ".copilot" / "config.json")
    config = config if isinstance(config, dict) else {}
    folders = config.get("trustedFolders", config.get("trusted_folders"))
    if _trusted(folders, ctx.workspace):
        yield Finding(
            "host.copilot_folder_untrusted",
            Severity.PASS,
            "Copilot CLI trusts this folder",
            str(mcp),
        )
        return
    yield Finding(
        "host.copilot_folder_untrusted",
        Severity.WARN,
        f"Copilot CLI ignores {mcp.name} until you trust {ctx.workspace}",
        str(mcp),
        "start `copilot` in this folder and trust it when asked (or `engram link copilot --global`)",
    )


CHECKS: list[Check] = [check_qwen_approval, check_copilot_trust]
