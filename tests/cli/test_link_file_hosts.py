"""`engram link` / `unlink` for VS Code, Cline, Kilo Code, Crush, Continue, Goose, Kiro, Zed and
Claude Desktop on files a user might really have: every byte comes back after unlink.

JSON and JSONC files reuse the odd files of ``test_link.py`` (comments, trailing commas, CRLF,
BOM, tabs, other servers); YAML files (Goose, Continue) get comments everywhere, CRLF, BOM,
anchors, aliases and merge keys, flow style, quoting and a missing final newline. Hosts that
parse strictly refuse a file holding what they cannot read, and nothing is written.
"""

from __future__ import annotations

import pytest

from engram.edit import read_document
from engram.edit.plan import DocFormat
from engram.testing import Sandbox
from tests.cli.test_link import (
    BOM,
    JSONC_TRAILING,
    STRICT_JSON,
    engram,
    server_on_path,
    snapshot,
)

__all__ = ["server_on_path"]  # the autouse fixture: engram-mcp on PATH

GOOSE_YAML = {
    "empty": "",
    "comments-everywhere": (
        "# goose config\n"
        "GOOSE_PROVIDER: anthropic  # inline\n"
        "extensions:\n"
        "  developer:\n"
        "    bundled: true\n"
        "    enabled: true\n"
        "    name: developer\n"
        "    timeout: 300\n"
        "    type: builtin\n"
        "  # old:\n"
        "  #   enabled: false\n"
        "\n"
        "# models\n"
        "GOOSE_MODEL: 'claude-4.5-sonnet'\n"
    ),
    "crlf-bom-four-spaces": BOM
    + 'GOOSE_MODE: "auto"\r\nextensions:\r\n    x:\r\n        cmd: x\r\n',
    "anchors-aliases": (
        "defaults: &d\n  enabled: true\n  timeout: 300\n"
        "extensions:\n  fetch:\n    <<: *d\n    type: stdio\n    cmd: uvx\n    args: [mcp-fetch]\n"
        "copy: *d\n"
    ),
    "flow": "extensions: {developer: {enabled: true, type: builtin}}  # one line\n",
    "no-final-newline": "GOOSE_PROVIDER: openai",
}
CONTINUE_YAML = {
    "empty": "",
    "indented-list": (
        "name: My Config  # mine\nversion: 0.0.1\nschema: v1\n"
        "models:\n  - name: m\n    provider: ollama\n    model: llama3\n"
        "mcpServers:\n  - name: other\n    command: npx\n    args:\n      - -y\n      - other\n"
        "# end\n"
    ),
    "compact-list-crlf": (
        "name: c\r\nversion: 1.0.0\r\nschema: v1\r\nmcpServers:\r\n- name: o\r\n  command: o\r\n"
    ),
    "flow-list": "name: c\nversion: 1.0.0\nschema: v1\nmcpServers: [{name: o, command: o}]\n",
    "anchor-bom": BOM + "name: c\nversion: 1.0.0\nschema: v1\nx: &a {k: 1}\ny: *a\n",
}

CASES = [
    ("vscode", False, ".vscode/mcp.json", ("servers",), JSONC_TRAILING),
    ("vscode", True, "$C/Code/User/mcp.json", ("servers",), JSONC_TRAILING),
    ("cline", True, "~/.cline/data/settings/cline_mcp_settings.json", ("mcpServers",),
     STRICT_JSON),
    ("cline", True,
     "$C/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
     ("mcpServers",), STRICT_JSON),
    ("kilo", False, "kilo.jsonc", ("mcp",), JSONC_TRAILING),
    ("kilo", False, "kilo.json", ("mcp",), JSONC_TRAILING),
    ("kilo", False, ".kilo/kilo.json", ("mcp",), JSONC_TRAILING),
    ("kilo", True, "$C/kilo/kilo.json", ("mcp",), JSONC_TRAILING),
    ("crush", False, ".crush.json", ("mcp",), STRICT_JSON),
    ("crush", False, "crush.json", ("mcp",), STRICT_JSON),
    ("crush", True, "$C/crush/crush.json", ("mcp",), STRICT_JSON),
    ("kiro", False, ".kiro/settings/mcp.json", ("mcpServers",), STRICT_JSON),
    ("kiro", True, "~/.kiro/settings/mcp.json", ("mcpServers",), STRICT_JSON),
    ("zed", False, ".zed/settings.json", ("context_servers",), JSONC_TRAILING),
    ("zed", True, "$C/zed/settings.json", ("context_servers",), JSONC_TRAILING),
    ("claude-desktop", True, "$C/Claude/claude_desktop_config.json", ("mcpServers",),
     STRICT_JSON),
    ("goose", True, "$C/goose/config.yaml", ("extensions",), GOOSE_YAML),
    ("continue", True, "~/.continue/config.yaml", ("mcpServers",), CONTINUE_YAML),
]  # fmt: skip
ROUND_TRIPS = [
    pytest.param(host, global_, rel, keys, text, id=f"{host}-{rel}-{name}")
    for host, global_, rel, keys, variants in CASES
    for name, text in variants.items()
]


def target(sandbox: Sandbox, rel: str):  # type: ignore[no-untyped-def]
    if rel.startswith("~/"):
        return sandbox.home / rel[2:]
    if rel.startswith("$C/"):
        return sandbox.home / ".config" / rel[3:]
    return sandbox.workspace / rel


def registered(path, keys: tuple[str, ...]) -> object:  # type: ignore[no-untyped-def]
    fmt = DocFormat.YAML if path.suffix == ".yaml" else DocFormat.JSONC
    node = read_document(path, fmt)
    for key in keys:
        assert isinstance(node, dict)
        node = node[key]
    if isinstance(node, list):  # Continue: an item named engram
        return next(item for item in node if item.get("name") == "engram")
    assert isinstance(node, dict)
    return node["engram"]


@pytest.mark.parametrize(("host", "global_", "rel", "keys", "text"), ROUND_TRIPS)
def test_link_then_unlink_gives_back_the_original_bytes(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
    host: str, global_: bool, rel: str, keys: tuple[str, ...], text: str,
) -> None:  # fmt: skip
    path = target(sandbox, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    before = snapshot(sandbox.home, sandbox.workspace)
    scope = ["--global"] if global_ else []

    code, out = engram(capsys, "link", host, *scope)
    assert code == 0, out
    linked = path.read_bytes()
    assert registered(path, keys)  # the host finds an engram entry where it looks
    assert ("\r\n" in linked.decode()) == ("\r\n" in text)
    assert linked.startswith(BOM.encode()) == text.startswith(BOM)

    code, out = engram(capsys, "link", host, *scope)
    assert code == 0 and "already linked" in out
    assert path.read_bytes() == linked

    code, out = engram(capsys, "unlink", host, *scope)
    assert code == 0, out
    assert snapshot(sandbox.home, sandbox.workspace) == before


CREATED = [
    ("vscode", False, ".vscode/mcp.json"),
    ("vscode", True, "$C/Code/User/mcp.json"),
    ("cline", False, ".clinerules/engram.md"),
    ("cline", True, "~/.cline/data/settings/cline_mcp_settings.json"),
    ("kilo", False, ".kilo/kilo.jsonc"),
    ("kilo", True, "$C/kilo/kilo.jsonc"),
    ("crush", False, ".crush.json"),
    ("crush", True, "$C/crush/crush.json"),
    ("continue", False, ".continue/mcpServers/engram.yaml"),
    ("continue", True, "~/.continue/config.yaml"),
    ("goose", False, "AGENTS.md"),
    ("goose", True, "$C/goose/config.yaml"),
    ("kiro", False, ".kiro/settings/mcp.json"),
    ("kiro", True, "~/.kiro/steering/engram.md"),
    ("zed", False, ".zed/settings.json"),
    ("zed", True, "$C/zed/AGENTS.md"),
    ("claude-desktop", True, "$C/Claude/claude_desktop_config.json"),
]


@pytest.mark.parametrize(("host", "global_", "rel"), CREATED)
def test_link_creates_files_and_unlink_removes_them_and_their_folders(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], host: str, global_: bool, rel: str
) -> None:
    before = snapshot(sandbox.home, sandbox.workspace)
    scope = ["--global"] if global_ else []
    code, out = engram(capsys, "link", host, *scope)
    assert code == 0, out
    assert target(sandbox, rel).is_file()
    skipped = not global_ and host in ("cline", "goose")  # MCP skipped: extras only
    assert ("skipped" in out) == skipped
    assert ("next:" in out) == ((host, global_) != ("goose", False))  # Cline: turn hooks on
    code, out = engram(capsys, "unlink", host, *scope)
    assert code == 0, out
    assert snapshot(sandbox.home, sandbox.workspace) == before


STRICT = [
    ("cline", True, "~/.cline/data/settings/cline_mcp_settings.json", "a comment"),
    ("crush", False, ".crush.json", "a trailing comma"),
    ("kiro", False, ".kiro/settings/mcp.json", "a comment"),
    ("claude-desktop", True, "$C/Claude/claude_desktop_config.json", "a trailing comma"),
]


@pytest.mark.parametrize(("host", "global_", "rel", "problem"), STRICT)
def test_a_strict_json_host_is_refused_when_the_file_holds_what_it_cannot_parse(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
    host: str, global_: bool, rel: str, problem: str,
) -> None:  # fmt: skip
    path = target(sandbox, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (
        '{\n  // mine\n  "mcpServers": {}\n}\n'
        if problem == "a comment"
        else '{\n  "mcp": {"x": {"command": "x"},},\n}\n'
    )
    path.write_text(text)
    before = snapshot(sandbox.home, sandbox.workspace)
    code, out = engram(capsys, "link", host, *(["--global"] if global_ else []))
    assert code == 1
    assert "refused" in out and problem in out and "nothing was written" in out
    assert snapshot(sandbox.home, sandbox.workspace) == before


@pytest.mark.parametrize(
    ("host", "rel", "text", "says"),
    [
        ("goose", "$C/goose/config.yaml", "extensions:\n\tdeveloper: {}\n", "tabs"),
        ("goose", "$C/goose/config.yaml", "a: 1\n---\nb: 2\n", "document"),
        ("goose", "$C/goose/config.yaml", "shared: &s {a: 1}\nextensions: *s\n", "anchor &s"),
        ("continue", "~/.continue/config.yaml", "mcpServers: [a\n", "config.yaml:2"),
        ("continue", "~/.continue/config.yaml", "mcpServers: {a: 1}\n", "not a list"),
    ],
)
def test_a_yaml_config_the_host_cannot_read_is_never_written(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], host: str, rel: str, text: str, says: str
) -> None:
    path = target(sandbox, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    before = snapshot(sandbox.home, sandbox.workspace)
    code, out = engram(capsys, "link", host, "--global")
    assert code == 1
    assert out.startswith("error: ") and out.count("\n") == 1, out
    assert says in out
    assert snapshot(sandbox.home, sandbox.workspace) == before


def test_continue_keeps_a_hand_written_engram_server_unless_forced(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    config = sandbox.home / ".continue/config.yaml"
    config.parent.mkdir(parents=True)
    mine = (
        "name: c\nversion: 1.0.0\nschema: v1\n"
        "mcpServers:\n  - name: engram  # my own build\n    command: /opt/engram-dev\n"
    )
    config.write_text(mine)
    code, out = engram(capsys, "link", "continue", "--global")
    assert code == 1 and "name: engram" in out and "--force" in out
    assert config.read_text() == mine  # no second engram server
    code, out = engram(capsys, "link", "continue", "--global", "--force")
    assert code == 0, out
    servers = read_document(config, DocFormat.YAML)["mcpServers"]  # type: ignore[index]
    assert [s["command"] for s in servers] == [registered(config, ("mcpServers",))["command"]]  # type: ignore[index]
    code, out = engram(capsys, "unlink", "continue", "--global")
    assert code == 0, out
    back = read_document(config, DocFormat.YAML)
    assert back["mcpServers"] == [{"name": "engram", "command": "/opt/engram-dev"}]  # type: ignore[index]
