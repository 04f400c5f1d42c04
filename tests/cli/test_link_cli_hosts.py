"""`engram link` / `unlink` for the terminal agents verified by their own CLIs (Copilot CLI,
Qwen Code, Auggie, Droid, Amp, Kimi, Mistral Vibe): the entry lands where each host reads it, in
its shape, and unlink gives every byte of the user's file back."""

from __future__ import annotations

import json

import pytest

from engram.edit import read_document
from engram.edit.plan import DocFormat
from engram.testing import Sandbox
from tests.cli.test_link import BOM, engram, server_on_path, snapshot, target

__all__ = ["server_on_path"]  # the autouse fixture: engram-mcp on PATH

STRICT = {
    "plain": '{"mcpServers": {"other": {"command": "other-mcp", "args": ["--x"]}}}\n',
    "crlf-bom-tabs": BOM
    + '{\r\n\t"zeta": 1,\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "o"}\r\n\t},\r\n\t"alpha": [1, 2]\r\n}\r\n',
    "no-servers": '{"theme": "dark"}',
    "unicode": '{\n  "name": "caf\\u00e9 \u00e9t\u00e9",\n  "mcpServers": {}\n}\n',
}
COMMENTS = {
    **STRICT,
    "comments": '// mine\n{\n  /* servers */\n  "mcpServers": {\n    "o": {"command": "o"} // keep\n  },\n  "$version": 4\n}\n',
}
AMP = {
    "plain": '{"amp.mcpServers": {"other": {"command": "o"}}, "amp.dangerouslyAllowAll": false}\n',
    "jsonc": '{\n  // Amp settings\n  "amp.mcpServers": {\n    "other": {"command": "o",},\n  },\n}\n',
    "crlf-bom": BOM + '{\r\n\t"amp.notifications.enabled": true\r\n}\r\n',
}

CASES = [
    ("copilot", False, ".github/mcp.json", STRICT, ("mcpServers", "engram")),
    ("copilot", True, "~/.copilot/mcp-config.json", STRICT, ("mcpServers", "engram")),
    ("qwen", False, ".qwen/settings.json", COMMENTS, ("mcpServers", "engram")),
    ("qwen", True, "~/.qwen/settings.json", COMMENTS, ("mcpServers", "engram")),
    ("auggie", False, ".augment/settings.json", STRICT, ("mcpServers", "engram")),
    ("auggie", True, "~/.augment/settings.json", STRICT, ("mcpServers", "engram")),
    ("droid", False, ".factory/mcp.json", COMMENTS, ("mcpServers", "engram")),
    ("droid", True, "~/.factory/mcp.json", STRICT, ("mcpServers", "engram")),
    ("droid", True, "~/.factory/settings.json", COMMENTS, ("hooks", "SessionStart")),
    ("qwen", False, ".qwen/settings.json", COMMENTS, ("hooks", "UserPromptSubmit")),
    ("amp", False, ".amp/settings.json", AMP, ("amp.mcpServers", "engram")),
    ("amp", True, "~/.config/amp/settings.json", AMP, ("amp.mcpServers", "engram")),
    ("kimi", True, "~/.kimi/mcp.json", STRICT, ("mcpServers", "engram")),
]
ROUND_TRIPS = [
    pytest.param(host, global_, rel, text, keys, id=f"{host}-{rel}-{name}")
    for host, global_, rel, variants, keys in CASES
    for name, text in variants.items()
]


def lookup(value: object, keys: tuple[str, ...]) -> object:
    for key in keys:
        assert isinstance(value, dict) and key in value, (key, value)
        value = value[key]
    return value


@pytest.mark.parametrize(("host", "global_", "rel", "text", "keys"), ROUND_TRIPS)
def test_link_then_unlink_gives_back_the_original_bytes(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
    host: str, global_: bool, rel: str, text: str, keys: tuple[str, ...],
) -> None:  # fmt: skip
    path = target(sandbox, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    before = snapshot(sandbox.home, sandbox.workspace)
    scope = ["--global"] if global_ else []
    code, out = engram(capsys, "link", host, *scope)
    assert code == 0, out
    linked = path.read_bytes()
    assert lookup(read_document(path, DocFormat.JSONC), keys)
    assert ("\r\n" in linked.decode()) == ("\r\n" in text)
    assert linked.startswith(BOM.encode()) == text.startswith(BOM)
    code, out = engram(capsys, "link", host, *scope)
    assert code == 0 and "already linked" in out, out
    code, out = engram(capsys, "unlink", host, *scope)
    assert code == 0, out
    assert snapshot(sandbox.home, sandbox.workspace) == before


ENTRIES = [
    ("copilot", False, ".github/mcp.json", ("mcpServers", "engram"),
     {"type": "local", "command": "engram-mcp", "args": [], "tools": ["*"]}),
    ("copilot", True, "~/.copilot/mcp-config.json", ("mcpServers", "engram"),
     {"type": "local", "command": "engram-mcp", "args": [], "tools": ["*"]}),
    ("qwen", False, ".qwen/settings.json", ("mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("qwen", True, "~/.qwen/settings.json", ("mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("auggie", False, ".augment/settings.json", ("mcpServers", "engram"),
     {"type": "stdio", "command": "engram-mcp", "args": []}),
    ("auggie", True, "~/.augment/settings.json", ("mcpServers", "engram"),
     {"type": "stdio", "command": "engram-mcp", "args": []}),
    ("droid", False, ".factory/mcp.json", ("mcpServers", "engram"),
     {"type": "stdio", "command": "engram-mcp", "args": [], "disabled": False}),
    ("droid", True, "~/.factory/mcp.json", ("mcpServers", "engram"),
     {"type": "stdio", "command": "engram-mcp", "args": [], "disabled": False}),
    ("amp", False, ".amp/settings.json", ("amp.mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("amp", True, "~/.config/amp/settings.json", ("amp.mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("kimi", True, "~/.kimi/mcp.json", ("mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
]  # fmt: skip


@pytest.mark.parametrize(("host", "global_", "rel", "keys", "entry"), ENTRIES)
def test_link_creates_the_hosts_own_entry_and_unlink_removes_every_file(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
    host: str, global_: bool, rel: str, keys: tuple[str, ...], entry: object,
) -> None:  # fmt: skip
    before = snapshot(sandbox.home, sandbox.workspace)
    scope = ["--global"] if global_ else []
    code, out = engram(capsys, "link", host, *scope)
    assert code == 0, out
    assert lookup(json.loads(target(sandbox, rel).read_text()), keys) == entry
    code, out = engram(capsys, "unlink", host, *scope)
    assert code == 0, out
    assert snapshot(sandbox.home, sandbox.workspace) == before


@pytest.mark.parametrize(
    ("host", "rel", "event"),
    [("droid", ".factory/settings.json", "SessionStart"),
     ("qwen", ".qwen/settings.json", "UserPromptSubmit")],
)  # fmt: skip
def test_claude_shaped_hooks_count_their_timeout_in_seconds(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], host: str, rel: str, event: str
) -> None:
    code, out = engram(capsys, "link", host)
    assert code == 0, out
    (group,) = json.loads(target(sandbox, rel).read_text())["hooks"][event]
    assert group["hooks"] == [{"type": "command", "command": f"engram hook {host}", "timeout": 10}]


def test_kimi_workspace_says_where_kimi_reads_servers_and_writes_no_mcp_file(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "kimi")
    assert code == 0, out
    assert "engram link kimi --global" in out
    assert not (sandbox.home / ".kimi").exists()
    assert (sandbox.workspace / "AGENTS.md").is_file()


def test_a_comment_in_a_strict_json_host_file_is_refused_untouched(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    path = target(sandbox, "~/.kimi/mcp.json")
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // mine\n  "mcpServers": {}\n}\n')
    before = path.read_bytes()
    code, out = engram(capsys, "link", "kimi", "--global")
    assert code == 1
    assert "Kimi Code CLI cannot read it (line 2, column 3: a comment" in out
    assert path.read_bytes() == before


def test_droid_keeps_comments_but_refuses_a_trailing_comma(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    # Droid reads comments and rejects trailing commas (`droid doctor --config`, Droid 0.225).
    path = target(sandbox, ".factory/mcp.json")
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // mine\n  "mcpServers": {}\n}\n')
    code, out = engram(capsys, "link", "droid")
    assert code == 0, out
    assert path.read_text().startswith('{\n  // mine\n  "mcpServers": {')
    path.write_text('{\n  "mcpServers": {},\n}\n')
    before = path.read_bytes()
    code, out = engram(capsys, "link", "droid", "--force")
    assert code == 1 and "a trailing comma" in out, out
    assert path.read_bytes() == before


VIBE = {
    "empty": "",
    "comments-other-server": (
        "# my vibe config\n"
        'active_model = "devstral" # inline\n\n'
        "[[mcp_servers]]\n"
        'name = "other"\n'
        'transport = "stdio"\n'
        'command = "other"\n\n'
        "[tools.bash]\n"
        'permission = "ask"\n'
    ),
    "crlf-bom": BOM
    + 'active_model = "x"\r\n\r\n[[mcp_servers]]\r\nname = "o"\r\ntransport = "http"\r\nurl = "http://127.0.0.1:1"\r\n',
    "inline-array": 'mcp_servers = [{name = "o", transport = "stdio", command = "o"}]\n# tail\n',
    "empty-inline-array": "mcp_servers = []\n",
}


@pytest.mark.parametrize("name", sorted(VIBE))
def test_vibe_appends_its_own_table_and_unlink_restores_every_byte(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = sandbox.home / ".vibe" / "config.toml"
    path.parent.mkdir()
    path.write_bytes(VIBE[name].encode())
    before = snapshot(sandbox.home, sandbox.workspace)
    code, out = engram(capsys, "link", "vibe", "--global")
    assert code == 0, out
    servers = read_document(path, DocFormat.TOML)["mcp_servers"]  # type: ignore[index]
    assert {"name": "engram", "transport": "stdio", "command": "engram-mcp", "args": []} in servers
    code, out = engram(capsys, "link", "vibe", "--global")
    assert "already linked" in out
    assert len(read_document(path, DocFormat.TOML)["mcp_servers"]) == len(servers)  # type: ignore[index, arg-type]
    code, out = engram(capsys, "unlink", "vibe", "--global")
    assert code == 0, out
    assert snapshot(sandbox.home, sandbox.workspace) == before


def test_vibe_leaves_an_engram_server_it_did_not_write(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sandbox.home / ".vibe" / "config.toml"
    path.parent.mkdir()
    text = '[[mcp_servers]]\nname = "engram"\ntransport = "stdio"\ncommand = "/opt/engram-mcp"\n'
    path.write_text(text)
    code, out = engram(capsys, "link", "vibe", "--global")
    assert code == 0, out
    assert "already has an engram server Engram did not write; left alone" in out
    assert path.read_text() == text
    code, out = engram(capsys, "unlink", "vibe", "--global")
    assert path.read_text() == text
    code, out = engram(capsys, "link", "vibe", "--global", "--force")
    assert code == 0, out
    (server,) = read_document(path, DocFormat.TOML)["mcp_servers"]  # type: ignore[index]
    assert server["command"] == "engram-mcp"  # type: ignore[index]


def test_vibe_workspace_writes_no_project_config(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "vibe")
    assert code == 0, out
    assert "engram link vibe --global" in out
    assert not (sandbox.workspace / ".vibe").exists()


# The start of the config.toml Kimi writes on its first run (kimi-cli-x 1.44.4): `hooks = []`.
KIMI_CONFIG = (
    'default_model = ""\ndefault_thinking = false\ntheme = "dark"\nhooks = []\n'
    "merge_all_available_skills = true\n\n[models]\n\n[providers]\n\n[loop_control]\n"
    "max_steps_per_turn = 5000\n"
)


@pytest.mark.parametrize("text", [KIMI_CONFIG, KIMI_CONFIG.replace("\n", "\r\n"), "# mine\n"])
def test_kimi_hooks_go_into_kimis_own_config_and_come_back_out(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    config = target(sandbox, "~/.kimi/config.toml")
    config.parent.mkdir()
    config.write_bytes(text.encode())
    before = snapshot(sandbox.home, sandbox.workspace)
    code, out = engram(capsys, "link", "kimi", "--global")
    assert code == 0, out
    hooks = read_document(config, DocFormat.TOML)["hooks"]  # type: ignore[index]
    assert [h["event"] for h in hooks] == [  # type: ignore[index, union-attr]
        "SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"
    ]  # fmt: skip
    assert all(
        h == {"event": h["event"], "command": "engram hook kimi", "timeout": 10} for h in hooks
    )  # type: ignore[index, union-attr]
    code, out = engram(capsys, "unlink", "kimi", "--global")
    assert code == 0, out
    assert snapshot(sandbox.home, sandbox.workspace) == before


def test_kimi_hooks_wait_for_kimi_to_write_its_config(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "kimi", "--global")
    assert code == 0, out
    assert "Kimi hooks skipped: ~/.kimi/config.toml does not exist yet" in out
    assert not target(sandbox, "~/.kimi/config.toml").exists()
    assert target(sandbox, "~/.kimi/mcp.json").is_file()
