"""The Codex plugin (a local marketplace) ships the same hooks and skill that link installs."""

from __future__ import annotations

import json

from engram.assets import asset_path
from engram.hooks import render

PLUGIN = asset_path("plugin", "codex", "plugins", "engram")


def test_codex_plugin_hooks_match_link() -> None:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert hooks == {event: [group] for event, group in render.hook_groups("codex").items()}


def test_codex_plugin_skill_is_the_shipped_skill() -> None:
    shipped = render.skill_files()["memory-protocol/SKILL.md"]
    assert (PLUGIN / "skills" / "memory-protocol" / "SKILL.md").read_text() == shipped


def test_marketplace_points_at_the_plugin_folder() -> None:
    market = json.loads(
        asset_path("plugin", "codex", ".agents", "plugins", "marketplace.json").read_text()
    )
    (entry,) = market["plugins"]
    assert entry["source"] == {"source": "local", "path": "./plugins/engram"}
    manifest = json.loads((PLUGIN / ".codex-plugin" / "plugin.json").read_text())
    assert manifest["name"] == entry["name"] == "engram"
