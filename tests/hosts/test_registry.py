"""Hosts are pluggy plugins: built-ins and third-party ones load the same way, all documented."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pluggy
import pytest

from engram.errors import EngramError
from engram.hosts import hookspecs
from engram.hosts.base import McpHost
from engram.hosts.registry import (
    DEFAULT_PLUGINS,
    all_hosts,
    collect_hosts,
    find_host,
    plugin_manager,
)
from engram.testing import Sandbox

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SEVEN = ["claude", "codex", "gemini", "cursor", "opencode", "windsurf", "antigravity"]
# Hosts whose CLIs do not run here (or need an account): verified by their files.
FILE_HOSTS = [
    "claude-desktop",
    "cline",
    "continue",
    "crush",
    "goose",
    "kilo",
    "kiro",
    "vscode",
    "zed",
]
BUILT_IN = SEVEN + FILE_HOSTS


def test_the_built_in_hosts_load_in_order() -> None:
    # the first seven first, then each later host in its own module, one host per module
    assert list(all_hosts())[:7] == SEVEN
    assert len(all_hosts()) == len(DEFAULT_PLUGINS) >= 13
    assert set(BUILT_IN) <= set(all_hosts())


def test_no_stray_hook_implementations() -> None:
    plugin_manager().check_pending()


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("claude-code", "claude"),
        ("Gemini-CLI", "gemini"),
        ("cascade", "windsurf"),
        ("codex-cli", "codex"),
    ],
)
def test_aliases_find_their_host(alias: str, name: str) -> None:
    assert find_host(alias).name == name


def test_unknown_host_lists_the_known_ones() -> None:
    with pytest.raises(EngramError) as err:
        find_host("vim")
    assert err.value.code == "hosts.unknown"
    assert all(name in err.value.remedy for name in SEVEN)


def test_two_plugins_claiming_one_name_is_an_error() -> None:
    pm = plugin_manager()

    class Twin:
        @hookspecs.hookimpl
        def register_hosts(self, register: object) -> None:
            register(find_host("cursor"))  # type: ignore[operator]

    pm.register(Twin())
    with pytest.raises(EngramError) as err:
        collect_hosts(pm)
    assert err.value.code == "hosts.duplicate_name"


def test_every_hookspec_is_documented_with_its_signature() -> None:
    page = (DOCS / "plugins.md").read_text()
    specs = [
        (name, fn)
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(fn, "engram_spec")
    ]
    assert specs
    for name, fn in specs:
        params = ", ".join(inspect.signature(fn).parameters)
        assert f"`{name}({params})`" in page, f"{name} is not documented in docs/plugins.md"


@pytest.mark.parametrize("name", list(all_hosts()))
def test_every_host_has_a_page_naming_its_files_and_aliases(name: str) -> None:
    host = find_host(name)
    page = DOCS / "hosts" / f"{name}.md"
    text = page.read_text()
    assert host.title in text
    for alias in host.aliases:
        assert f"`{alias}`" in text, f"{page} does not mention alias {alias}"
    if isinstance(host, McpHost):
        for target in host.mcp.values():
            for location in target.candidates:
                assert str(location) in text, f"{page} does not name {location}"
    assert f"[{name}](hosts/{name}.md)" in (DOCS / "link.md").read_text()


def test_a_third_party_host_loads_from_the_engram_entry_point_group(sandbox: Sandbox) -> None:
    site = sandbox.root / "site"
    (site / "fakehost-1.0.dist-info").mkdir(parents=True)
    (site / "fakehost-1.0.dist-info/METADATA").write_text(
        "Metadata-Version: 2.1\nName: fakehost\nVersion: 1.0\n"
    )
    (site / "fakehost-1.0.dist-info/entry_points.txt").write_text(
        "[engram]\nfakehost = fakehost_plugin\n"
    )
    (site / "fakehost_plugin.py").write_text(
        textwrap.dedent(
            """
            from engram.edit.plan import DocFormat, Scope
            from engram.hosts import Base, Location, McpHost, McpTarget
            from engram.hosts.hookspecs import hookimpl

            class Fake(McpHost):
                name = "fakehost"
                title = "Fake Host"
                mcp = {Scope.WORKSPACE: McpTarget((Location(Base.WORKSPACE, ".fake.json"),), DocFormat.JSON)}

                def mcp_entry(self, ctx, keys):
                    return {"command": ctx.server.command}

            @hookimpl
            def register_hosts(register):
                register(Fake())
            """
        )
    )

    def engram(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "engram.cli.app", *args],
            capture_output=True,
            text=True,
            env=sandbox.env(PYTHONPATH=os.pathsep.join([str(site), str(REPO)]), **env),
            cwd=sandbox.workspace,
            timeout=60,
        )

    linked = engram("link", "fakehost")
    assert linked.returncode == 0, linked.stderr
    assert re.search(r'"command": ".*engram-mcp"', (sandbox.workspace / ".fake.json").read_text())
    narrowed = engram("link", "fakehost", ENGRAM_LOAD_PLUGINS="")
    assert narrowed.returncode == 1 and "unknown host 'fakehost'" in narrowed.stderr
    allowed = engram("unlink", "fakehost", ENGRAM_LOAD_PLUGINS="fakehost")
    assert allowed.returncode == 0, allowed.stderr
    assert not (sandbox.workspace / ".fake.json").exists()


def test_pluggy_project_name_is_engram() -> None:
    assert isinstance(hookspecs.hookimpl, pluggy.HookimplMarker)
    assert hookspecs.hookimpl.project_name == "engram"
