"""`engram link` / `engram unlink` on real files: every host, every scope, the user's bytes kept.

Each case starts from a config a user might really have (comments, trailing commas, CRLF, a BOM,
tabs, unusual key order, other servers), links, links again, and unlinks; the file must come
back byte for byte, and files or folders Engram created must be gone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from engram.cli.app import main
from engram.edit import read_document
from engram.edit.plan import DocFormat
from engram.testing import Sandbox

BOM = "\ufeff"

STRICT_JSON = {
    "plain": '{"mcpServers": {"other": {"command": "other-mcp", "args": ["--x"]}}}\n',
    "crlf-bom-tabs": BOM
    + '{\r\n\t"zeta": 1,\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "o"}\r\n\t},\r\n\t"alpha": [1, 2]\r\n}\r\n',
    "empty-servers": '{\n    "mcpServers": {}\n}',
    "no-servers": '{"theme": "dark"}',
    "unicode": '{\n  "name": "caf\\u00e9 \u00e9t\u00e9",\n  "mcpServers": {"a": {"command": "a // not a comment"}}\n}\n',
}
JSONC = {
    **STRICT_JSON,
    "comments": '// my settings\n{\n  /* servers */\n  "mcpServers": {\n    "other": {"command": "o"} // keep\n  },\n  "ui": {"theme": "x"}\n}\n',
}
JSONC_TRAILING = {
    **JSONC,
    "trailing-commas": '{\n  // comment\n  "mcp": {\n    "other": {"type": "local", "command": ["o"],},\n  },\n}\n',
    "crlf-comments": BOM
    + '{\r\n\t// c\r\n\t"$schema": "https://opencode.ai/config.json",\r\n\t"mcp": {},\r\n}\r\n',
}
TOML = {
    "plain": 'model = "o3"\n',
    "comments-other-server": (
        "# my codex config\n"
        'model = "o3" # inline\n\n'
        "[mcp_servers.other]\n"
        'command = "other"\n'
        'args = ["-v"]\n\n'
        "[profiles.fast]\n"
        'model = "o4-mini"\n'
    ),
    "crlf": 'approval_policy = "never"\r\n\r\n[mcp_servers.x]\r\ncommand = "x"\r\n',
    "empty": "",
}

CASES = [
    ("claude", False, ".mcp.json", STRICT_JSON),
    ("cursor", False, ".cursor/mcp.json", STRICT_JSON),
    ("cursor", True, "~/.cursor/mcp.json", STRICT_JSON),
    ("gemini", False, ".gemini/settings.json", JSONC),
    ("gemini", True, "~/.gemini/settings.json", JSONC),
    ("opencode", False, "opencode.json", JSONC_TRAILING),
    ("opencode", False, "opencode.jsonc", JSONC_TRAILING),
    ("opencode", True, "~/.config/opencode/opencode.json", JSONC_TRAILING),
    ("opencode", True, "~/.config/opencode/opencode.jsonc", JSONC_TRAILING),
    ("windsurf", True, "~/.codeium/windsurf/mcp_config.json", STRICT_JSON),
    ("antigravity", False, ".agents/mcp_config.json", STRICT_JSON),
    ("antigravity", True, "~/.gemini/config/mcp_config.json", STRICT_JSON),
    ("antigravity", True, "~/.gemini/antigravity/mcp_config.json", STRICT_JSON),
    ("codex", True, "~/.codex/config.toml", TOML),
]
ROUND_TRIPS = [
    pytest.param(host, global_, rel, name, text, id=f"{host}-{rel}-{name}")
    for host, global_, rel, variants in CASES
    for name, text in variants.items()
]


@pytest.fixture(autouse=True)
def server_on_path(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """``engram-mcp`` on PATH, as after ``pipx install engram-keeper``: link registers the name."""
    bin_dir = Path(sys.executable).parent
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def engram(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run the CLI in-process; return its exit code and everything it printed."""
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out + out.err


def target(sandbox: Sandbox, rel: str) -> Path:
    return sandbox.home / rel[2:] if rel.startswith("~/") else sandbox.workspace / rel


def snapshot(*roots: Path) -> dict[str, bytes | None]:
    """Every file and folder below ``roots`` (Engram's own data dir excluded)."""
    return {
        str(p): (p.read_bytes() if p.is_file() else None)
        for root in roots
        for p in sorted(root.rglob("*"))
        if ".engram" not in p.parts
    }


def entry(path: Path) -> object:
    fmt = DocFormat.TOML if path.suffix == ".toml" else DocFormat.JSONC
    doc = read_document(path, fmt)
    assert isinstance(doc, dict)
    if path.suffix == ".toml":
        return doc["mcp_servers"]["engram"]  # type: ignore[index]
    if path.name.startswith("opencode"):
        return doc["mcp"]["engram"]  # type: ignore[index]
    return doc["mcpServers"]["engram"]  # type: ignore[index]


@pytest.mark.parametrize(("host", "global_", "rel", "name", "text"), ROUND_TRIPS)
def test_link_then_unlink_gives_back_the_original_bytes(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
    host: str, global_: bool, rel: str, name: str, text: str,
) -> None:  # fmt: skip
    path = target(sandbox, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    before = snapshot(sandbox.home, sandbox.workspace)
    scope = ["--global"] if global_ else []

    code, out = engram(capsys, "link", host, *scope)
    assert code == 0, out
    linked = path.read_bytes()
    assert entry(path)  # the host finds an engram entry where it looks
    assert ("\r\n" in linked.decode()) == ("\r\n" in text)
    assert linked.startswith(BOM.encode()) == text.startswith(BOM)

    code, out = engram(capsys, "link", host, *scope)
    assert code == 0 and "already linked" in out
    assert path.read_bytes() == linked

    code, out = engram(capsys, "unlink", host, *scope)
    assert code == 0, out
    assert snapshot(sandbox.home, sandbox.workspace) == before


# Where link creates the config when the host has none yet (OpenCode: opencode.json in a
# workspace, opencode.jsonc globally, as OpenCode itself creates it).
CREATED = [
    ("claude", False, ".mcp.json"),
    ("cursor", False, ".cursor/mcp.json"),
    ("cursor", True, "~/.cursor/mcp.json"),
    ("gemini", False, ".gemini/settings.json"),
    ("gemini", True, "~/.gemini/settings.json"),
    ("opencode", False, "opencode.json"),
    ("opencode", True, "~/.config/opencode/opencode.jsonc"),
    ("windsurf", True, "~/.codeium/windsurf/mcp_config.json"),
    ("antigravity", False, ".agents/mcp_config.json"),
    ("antigravity", True, "~/.gemini/config/mcp_config.json"),
    ("codex", True, "~/.codex/config.toml"),
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
    assert "created" in out
    code, out = engram(capsys, "unlink", host, *scope)
    assert code == 0, out
    assert snapshot(sandbox.home, sandbox.workspace) == before
