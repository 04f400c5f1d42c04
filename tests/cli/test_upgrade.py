"""``engram upgrade`` re-pins every registration, keeps hook commands byte-identical and leaves
user edits alone."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from engram.cli.upgrade import run_upgrade
from engram.edit.engine import apply
from engram.edit.ledger import Ledger
from engram.edit.plan import Scope
from engram.hosts.context import HostContext, ServerCommand
from engram.hosts.registry import find_host
from engram.testing import Sandbox


def pinned(version: str) -> ServerCommand:
    return ServerCommand(
        "/opt/bin/uvx", ("--from", f"engram-keeper=={version}", "engram-mcp"), version, "uvx"
    )


def link_all(sandbox: Sandbox, server: ServerCommand) -> None:
    plans = []
    for host, scope in (
        ("claude", Scope.WORKSPACE),
        ("gemini", Scope.WORKSPACE),
        ("cursor", Scope.WORKSPACE),
        ("codex", Scope.GLOBAL),
        ("opencode", Scope.GLOBAL),
    ):
        ctx = HostContext(
            scope, sandbox.home, sandbox.workspace, sandbox.data_dir, server, sandbox.env()
        )
        plans.append(find_host(host).link_plan(ctx))
    apply(plans, Ledger.at(sandbox.data_dir))


def hook_files(sandbox: Sandbox) -> dict[str, bytes]:
    files = [
        sandbox.workspace / ".claude" / "settings.json",
        sandbox.workspace / ".cursor" / "hooks.json",
        sandbox.home / ".codex" / "hooks.json",
        sandbox.home / ".config" / "opencode" / "plugins" / "engram.js",
    ]
    return {str(f): f.read_bytes() for f in files}


def gemini_hooks(sandbox: Sandbox) -> object:
    return json.loads((sandbox.workspace / ".gemini" / "settings.json").read_text())["hooks"]


def test_upgrade_repins_everything_and_keeps_hooks_byte_identical(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    link_all(sandbox, pinned("0.1.0"))
    hooks_before, gemini_before = hook_files(sandbox), gemini_hooks(sandbox)
    monkeypatch.setattr("engram.edit.engine.__version__", "0.2.0")
    reports, notices = run_upgrade(sandbox.env(), dry_run=False, server=pinned("0.2.0"))
    assert notices == [] and not any(r.conflicts for r in reports)
    ws = sandbox.workspace
    assert json.loads((ws / ".mcp.json").read_text())["mcpServers"]["engram"]["args"] == [
        "--from", "engram-keeper==0.2.0", "engram-mcp"]  # fmt: skip
    for path in (ws / ".gemini" / "settings.json", ws / ".cursor" / "mcp.json"):
        assert "engram-keeper==0.2.0" in path.read_text()
        assert "engram-keeper==0.1.0" not in path.read_text()
    codex = tomllib.loads((sandbox.home / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["engram"]["args"][1] == "engram-keeper==0.2.0"
    opencode = (sandbox.home / ".config" / "opencode" / "opencode.jsonc").read_text()
    assert "engram-keeper==0.2.0" in opencode
    assert hook_files(sandbox) == hooks_before
    assert gemini_hooks(sandbox) == gemini_before
    ledger = Ledger.at(sandbox.data_dir)
    assert {link.version for link in ledger.links} == {"0.2.0"}
    assert all("engram-keeper==0.2.0" in link.command for link in ledger.links)


def test_upgrade_leaves_user_edits_alone_and_says_so(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    link_all(sandbox, pinned("0.1.0"))
    cursor = sandbox.workspace / ".cursor" / "mcp.json"
    data = json.loads(cursor.read_text())
    data["mcpServers"]["engram"]["env"] = {"MY_TOKEN": "x"}
    cursor.write_text(json.dumps(data, indent=2) + "\n")
    edited = cursor.read_bytes()
    skill = sandbox.workspace / ".claude" / "skills" / "memory-protocol" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nMy own addition.\n")
    skill_edited = skill.read_bytes()
    monkeypatch.setattr("engram.edit.engine.__version__", "0.2.0")
    reports, _ = run_upgrade(sandbox.env(), dry_run=False, server=pinned("0.2.0"))
    assert cursor.read_bytes() == edited
    assert skill.read_bytes() == skill_edited
    conflicts = [c for r in reports for c in r.conflicts]
    assert any("mcp.json" in c for c in conflicts)
    assert any("SKILL.md" in c for c in conflicts)
    assert "engram-keeper==0.2.0" in (sandbox.workspace / ".mcp.json").read_text()


def test_dry_run_writes_nothing(sandbox: Sandbox) -> None:
    link_all(sandbox, pinned("0.1.0"))
    snapshot = {p: p.read_bytes() for p in Path(sandbox.root).rglob("*") if p.is_file()}
    reports, _ = run_upgrade(sandbox.env(), dry_run=True, server=pinned("0.2.0"))
    assert any("engram-keeper==0.2.0" in r.diff for r in reports)
    assert {p: p.read_bytes() for p in Path(sandbox.root).rglob("*") if p.is_file()} == snapshot


def test_a_deleted_workspace_is_skipped_with_a_notice(sandbox: Sandbox, tmp_path: Path) -> None:
    gone = tmp_path / "gone-project"
    gone.mkdir()
    ctx = HostContext(Scope.WORKSPACE, sandbox.home, gone, sandbox.data_dir, pinned("0.1.0"), {})
    apply([find_host("cursor").link_plan(ctx)], Ledger.at(sandbox.data_dir))
    for path in sorted(gone.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    gone.rmdir()
    reports, notices = run_upgrade(sandbox.env(), dry_run=False, server=pinned("0.2.0"))
    assert reports == []
    assert notices and "gone" in notices[0]
