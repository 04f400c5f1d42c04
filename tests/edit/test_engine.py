"""apply / reverse on real files: link then unlink gives back the original bytes."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path

import pytest

from engram.edit.engine import apply, reverse
from engram.edit.ledger import Ledger
from engram.edit.plan import (
    AddToList,
    DocFormat,
    LinkPlan,
    ManagedBlock,
    OwnedFile,
    Scope,
    SetValue,
)
from engram.errors import EngramError
from engram.testing import Sandbox

SERVER = {"type": "stdio", "command": "engram-mcp", "args": [], "env": {}}
CODEX = {
    "command": "engram-mcp",
    "args": [],
    "tools": {"engram_commit": {"approval_mode": "approve"}},
}


def _ledger(sandbox: Sandbox) -> Ledger:
    return Ledger.at(sandbox.data_dir)


def _plan(sandbox: Sandbox, *edits: object, host: str = "test") -> LinkPlan:
    return LinkPlan(
        host,
        Scope.WORKSPACE,
        list(edits),  # type: ignore[arg-type]
        root=sandbox.workspace,
        server_command=["engram-mcp"],
    )


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def _full_plan(sandbox: Sandbox, host: str = "test") -> LinkPlan:
    ws = sandbox.workspace
    return _plan(
        sandbox,
        SetValue(ws / ".mcp.json", DocFormat.JSON, ("mcpServers", "engram"), SERVER),
        SetValue(ws / "opencode.jsonc", DocFormat.JSONC, ("mcp", "engram"), {"type": "local"}),
        AddToList(
            ws / ".claude" / "settings.json",
            DocFormat.JSON,
            ("hooks", "SessionStart"),
            {"matcher": "startup", "hooks": [{"type": "command", "command": "engram hook"}]},
        ),
        SetValue(ws / ".codex" / "config.toml", DocFormat.TOML, ("mcp_servers", "engram"), CODEX),
        ManagedBlock(ws / "AGENTS.md", "engram", "Use Engram's memory tools."),
        OwnedFile(ws / ".claude" / "skills" / "memory" / "SKILL.md", "---\nname: m\n---\n", 0o600),
        host=host,
    )


PREEXISTING = {
    ".mcp.json": '\ufeff{\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "x"}\r\n\t}\r\n}\r\n',
    "opencode.jsonc": '{\n  // my config\n  "theme": "dark", /* trailing */\n  "mcp": {},\n}\n',
    ".claude/settings.json": '{"hooks": {"SessionStart": []}, "model": "opus"}',
    ".codex/config.toml": '# codex\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x" # c\n',
    "AGENTS.md": "# Agents\n\nBe nice.",
}


def _write_preexisting(ws: Path) -> None:
    for rel, text in PREEXISTING.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())


def test_link_then_unlink_on_empty_workspace_leaves_nothing(sandbox: Sandbox) -> None:
    before = _snapshot(sandbox.workspace)
    reports = apply([_full_plan(sandbox)], _ledger(sandbox))
    assert {f.status for f in reports[0].files} == {"created"}
    data = json.loads((sandbox.workspace / ".mcp.json").read_text())
    assert data == {"mcpServers": {"engram": SERVER}}
    skill = sandbox.workspace / ".claude/skills/memory/SKILL.md"
    assert stat.S_IMODE(skill.stat().st_mode) == 0o600
    report = reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert {f.status for f in report.files} == {"removed"}
    assert _snapshot(sandbox.workspace) == before
    assert _ledger(sandbox).links == []


def test_link_then_unlink_restores_every_byte(sandbox: Sandbox) -> None:
    _write_preexisting(sandbox.workspace)
    before = _snapshot(sandbox.workspace)
    apply([_full_plan(sandbox)], _ledger(sandbox))
    after = _snapshot(sandbox.workspace)
    assert all(after[k] != v for k, v in before.items() if v is not None)
    opencode = (sandbox.workspace / "opencode.jsonc").read_text()
    assert "// my config" in opencode and "/* trailing */" in opencode
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert _snapshot(sandbox.workspace) == before


def test_second_link_changes_nothing(sandbox: Sandbox) -> None:
    _write_preexisting(sandbox.workspace)
    original = _snapshot(sandbox.workspace)
    apply([_full_plan(sandbox)], _ledger(sandbox))
    linked = _snapshot(sandbox.workspace)
    reports = apply([_full_plan(sandbox)], _ledger(sandbox))
    assert {f.status for f in reports[0].files} == {"unchanged"}
    assert not reports[0].changed
    assert _snapshot(sandbox.workspace) == linked
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert _snapshot(sandbox.workspace) == original


def test_dry_run_writes_nothing_and_shows_a_diff(sandbox: Sandbox) -> None:
    _write_preexisting(sandbox.workspace)
    before = _snapshot(sandbox.workspace)
    reports = apply([_full_plan(sandbox)], _ledger(sandbox), dry_run=True)
    assert _snapshot(sandbox.workspace) == before
    assert not (sandbox.data_dir / "links.json").exists()
    assert '+    "engram": {' in reports[0].diff
    assert "+[mcp_servers.engram]" in reports[0].diff


def test_differing_entry_is_a_conflict_unless_forced(sandbox: Sandbox) -> None:
    mcp = sandbox.workspace / ".mcp.json"
    original = '{"mcpServers": {"engram": {"command": "old"}}}\n'
    mcp.write_text(original)
    plan = _plan(sandbox, SetValue(mcp, DocFormat.JSON, ("mcpServers", "engram"), SERVER))
    report = apply([plan], _ledger(sandbox))[0]
    assert report.files[0].status == "conflict"
    assert "use --force" in report.conflicts[0]
    assert mcp.read_text() == original
    report = apply([plan], _ledger(sandbox), force=True)[0]
    assert report.files[0].status == "changed"
    assert json.loads(mcp.read_text())["mcpServers"]["engram"] == SERVER
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert mcp.read_text() == original


def test_user_edited_entry_is_left_alone_on_unlink(sandbox: Sandbox) -> None:
    mcp = sandbox.workspace / ".mcp.json"
    plan = _plan(sandbox, SetValue(mcp, DocFormat.JSON, ("mcpServers", "engram"), SERVER))
    apply([plan], _ledger(sandbox))
    mcp.write_text(mcp.read_text().replace('"engram-mcp"', '"my-engram"'))
    edited = mcp.read_text()
    report = reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert mcp.read_text() == edited
    assert any("left alone" in n for n in report.files[0].notes)
    reverse("test", Scope.WORKSPACE, _ledger(sandbox), force=True)
    assert not mcp.exists()


def test_shared_block_stays_while_another_host_uses_it(sandbox: Sandbox) -> None:
    agents = sandbox.workspace / "AGENTS.md"
    block = ManagedBlock(agents, "engram", "Use Engram.")
    apply(
        [_plan(sandbox, block, host="codex"), _plan(sandbox, block, host="opencode")],
        _ledger(sandbox),
    )
    reverse("codex", Scope.WORKSPACE, _ledger(sandbox))
    assert "Use Engram." in agents.read_text()
    reverse("opencode", Scope.WORKSPACE, _ledger(sandbox))
    assert not agents.exists()


def test_corrupt_file_is_never_written(sandbox: Sandbox) -> None:
    mcp = sandbox.workspace / ".mcp.json"
    mcp.write_text('{\n  "mcpServers": {,\n}\n')
    other = sandbox.workspace / "AGENTS.md"
    plan = _plan(
        sandbox,
        ManagedBlock(other, "engram", "x"),
        SetValue(mcp, DocFormat.JSON, ("mcpServers", "engram"), SERVER),
    )
    with pytest.raises(EngramError) as caught:
        apply([plan], _ledger(sandbox))
    assert caught.value.code == "edit.parse_error"
    assert f"{mcp}:2:18" in caught.value.message
    assert mcp.read_text() == '{\n  "mcpServers": {,\n}\n'
    assert not other.exists()


def test_relinking_with_a_changed_hook_replaces_the_old_entry(sandbox: Sandbox) -> None:
    settings = sandbox.workspace / ".gemini" / "settings.json"
    settings.parent.mkdir()
    original = '{\n  // mine\n  "hooks": {"SessionStart": [{"matcher": "mine"}]}\n}\n'
    settings.write_text(original)
    path = ("hooks", "SessionStart")
    old = {"matcher": "", "hooks": [{"type": "command", "command": "engram hook", "timeout": 5}]}
    new = {"matcher": "", "hooks": [{"type": "command", "command": "engram hook", "timeout": 9}]}
    apply([_plan(sandbox, AddToList(settings, DocFormat.JSONC, path, old))], _ledger(sandbox))
    report = apply(
        [_plan(sandbox, AddToList(settings, DocFormat.JSONC, path, new))], _ledger(sandbox)
    )[0]
    assert report.files[0].status == "changed"
    hooks = json.loads(settings.read_text().replace("// mine", ""))["hooks"]["SessionStart"]
    assert hooks == [{"matcher": "mine"}, new]
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert settings.read_text() == original


def test_created_file_is_removed_after_a_hook_upgrade(sandbox: Sandbox) -> None:
    settings = sandbox.workspace / ".claude" / "settings.json"
    path = ("hooks", "Stop")
    for timeout in (5, 9):
        item = {"hooks": [{"type": "command", "command": "engram hook", "timeout": timeout}]}
        apply([_plan(sandbox, AddToList(settings, DocFormat.JSON, path, item))], _ledger(sandbox))
    assert json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"][0]["timeout"] == 9
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert not settings.exists() and not settings.parent.exists()


def test_damaged_ledger_is_a_clear_error(sandbox: Sandbox) -> None:
    sandbox.data_dir.mkdir(parents=True)
    (sandbox.data_dir / "links.json").write_text("{not json")
    with pytest.raises(EngramError) as caught:
        reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert caught.value.code == "edit.bad_ledger"


def test_markdown_block_is_replaced_in_place_and_removed_exactly(sandbox: Sandbox) -> None:
    agents = sandbox.workspace / "AGENTS.md"
    original = "# Rules\r\n\r\nBe brief.\r\n"
    agents.write_bytes(original.encode())
    for content in ("Use Engram.", "Use Engram, version two."):
        apply([_plan(sandbox, ManagedBlock(agents, "engram", content))], _ledger(sandbox))
    text = agents.read_bytes().decode()
    assert text.count("engram:begin engram") == 1 and "version two" in text
    assert text.startswith(original + "\r\n<!-- engram:begin engram -->\r\n")
    agents.write_bytes((text + "\r\nUser notes after the block.\r\n").encode())
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert agents.read_bytes().decode() == original + "\r\nUser notes after the block.\r\n"


def test_forced_toml_replacement_is_undone_on_unlink(sandbox: Sandbox) -> None:
    config = sandbox.home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = '[mcp_servers.engram]\ncommand = "mine"\n\n[profiles.x]\nmodel = "o3"\n'
    config.write_text(original)
    edit = SetValue(config, DocFormat.TOML, ("mcp_servers", "engram"), CODEX)
    report = apply([_plan(sandbox, edit)], _ledger(sandbox))[0]
    assert report.files[0].status == "conflict" and config.read_text() == original
    apply([_plan(sandbox, edit)], _ledger(sandbox), force=True)
    assert "[mcp_servers.engram.tools.engram_commit]" in config.read_text()
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    # The user's value comes back (through tomlkit: the data, not every blank line).
    restored = config.read_text()
    assert tomllib.loads(restored) == tomllib.loads(original)
    assert restored.split() == original.split()


def test_two_hosts_in_one_run_share_a_file_and_unlink_in_any_order(sandbox: Sandbox) -> None:
    ws = sandbox.workspace
    agents, skill = ws / "AGENTS.md", ws / ".agents" / "skills" / "m" / "SKILL.md"
    codex = _plan(sandbox, ManagedBlock(agents, "engram", "Use Engram."), host="codex")
    codex.edits.append(OwnedFile(skill, "skill\n"))
    gemini = _plan(sandbox, ManagedBlock(agents, "notes", "Gemini notes."), host="gemini")
    opencode = _plan(sandbox, ManagedBlock(agents, "engram", "Use Engram."), host="opencode")
    opencode.edits.append(OwnedFile(skill, "skill\n"))
    reports = apply([codex, gemini, opencode], _ledger(sandbox))
    text = agents.read_text()
    assert "Use Engram." in text and "Gemini notes." in text and text.count("begin engram") == 1
    assert [r.files[0].status for r in reports] == ["created", "changed", "unchanged"]
    for host in ("codex", "gemini", "opencode"):
        reverse(host, Scope.WORKSPACE, _ledger(sandbox))
    assert sorted(p.name for p in ws.iterdir()) == []


def test_a_file_created_by_someone_else_meanwhile_is_not_overwritten(sandbox: Sandbox) -> None:
    from engram.edit.atomic import write_atomic

    target = sandbox.workspace / "new.json"
    target.write_text('{"theirs": 1}\n')
    with pytest.raises(EngramError) as caught:
        write_atomic(target, "{}\n", expect=None)  # we computed it as missing
    assert caught.value.code == "edit.changed_underneath"
    assert target.read_text() == '{"theirs": 1}\n'
    assert [p.name for p in sandbox.workspace.iterdir()] == ["new.json"]


def test_toml_with_a_bom_round_trips(sandbox: Sandbox) -> None:
    config = sandbox.home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = '\ufeff# codex\r\nmodel = "o3"\r\n'
    config.write_bytes(original.encode())
    edit = SetValue(config, DocFormat.TOML, ("mcp_servers", "engram"), CODEX)
    apply([_plan(sandbox, edit)], _ledger(sandbox))
    text = config.read_bytes().decode()
    assert text.startswith(original + "\r\n[mcp_servers.engram]\r\n")
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert config.read_bytes().decode() == original


def test_unlink_dry_run_shows_the_diff_and_changes_nothing(sandbox: Sandbox) -> None:
    _write_preexisting(sandbox.workspace)
    apply([_full_plan(sandbox)], _ledger(sandbox))
    linked = _snapshot(sandbox.workspace)
    ledger_text = (sandbox.data_dir / "links.json").read_text()
    report = reverse("test", Scope.WORKSPACE, _ledger(sandbox), dry_run=True)
    assert _snapshot(sandbox.workspace) == linked
    assert (sandbox.data_dir / "links.json").read_text() == ledger_text
    assert '-    "engram": {' in report.diff and "+++ /dev/null" in report.diff
    assert {f.status for f in report.files} == {"changed", "removed"}


def test_unlink_gives_back_a_foreign_block_that_link_force_replaced(sandbox: Sandbox) -> None:
    agents = sandbox.workspace / "AGENTS.md"
    foreign = "<!-- engram:begin engram -->\r\nPasted from a teammate's notes.\r\n<!-- engram:end engram -->"
    original = f"# Rules\r\n\r\n{foreign}\r\n\r\nMore rules.\r\n"
    agents.write_bytes(original.encode())
    plan = _plan(sandbox, ManagedBlock(agents, "engram", "Use Engram."))
    assert apply([plan], _ledger(sandbox))[0].files[0].status == "conflict"
    apply([plan], _ledger(sandbox), force=True)
    apply([plan], _ledger(sandbox))  # a later link (an upgrade) keeps what to give back
    assert "Use Engram." in agents.read_text() and "Pasted" not in agents.read_text()
    reverse("test", Scope.WORKSPACE, _ledger(sandbox))
    assert agents.read_bytes() == original.encode()
