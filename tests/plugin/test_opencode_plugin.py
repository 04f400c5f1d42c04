"""The OpenCode plugin, run under node with a fake plugin context, feeds memory to the model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from engram.assets import asset_path
from engram.memory.prompts import recent_prompts
from engram.memory.save import save_observation
from engram.store.db import Store
from engram.testing import Sandbox

# Drives the plugin the way OpenCode does: session.created, a chat message, the system prompt
# transform, then compaction. Prints what reached the model.
HARNESS = """
import { EngramPlugin } from "./engram.mjs";
const hooks = await EngramPlugin({ directory: process.argv[2] });
const id = "ses_1";
await hooks.event({ event: { type: "session.created", properties: { info: { id } } } });
const first = { system: ["base"] };
await hooks["experimental.chat.system.transform"]({ sessionID: id }, first);
await hooks["chat.message"]({ sessionID: id }, { parts: [{ type: "text", text: "fix the cache" }] });
const compacting = { context: [] };
await hooks["experimental.session.compacting"]({ sessionID: id }, compacting);
console.log(JSON.stringify({ system: first.system, compaction: compacting.context }));
"""


def test_plugin_injects_pack_records_prompts_and_feeds_compaction(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    store = Store.open(sandbox.data_dir)
    save_observation(
        store, title="Cache keys include the tenant", content="why", project="workspace"
    )
    store.close()
    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir()
    shutil.copy(asset_path("plugin", "opencode", "engram.js"), plugin_dir / "engram.mjs")
    (plugin_dir / "harness.mjs").write_text(HARNESS)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    result = subprocess.run(
        ["node", str(plugin_dir / "harness.mjs"), str(sandbox.workspace)],
        capture_output=True,
        text=True,
        env=sandbox.env(PATH=path),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["system"][0] == "base"
    assert "Cache keys include the tenant" in seen["system"][1]
    assert "Cache keys include the tenant" in seen["compaction"][0]
    store = Store.open(sandbox.data_dir)
    try:
        assert [p.content for p in recent_prompts(store, project="workspace")] == ["fix the cache"]
    finally:
        store.close()


def test_plugin_stays_silent_when_engram_is_missing(sandbox: Sandbox, tmp_path: Path) -> None:
    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir()
    shutil.copy(asset_path("plugin", "opencode", "engram.js"), plugin_dir / "engram.mjs")
    (plugin_dir / "harness.mjs").write_text(HARNESS)
    node = shutil.which("node")
    assert node is not None
    result = subprocess.run(
        [node, str(plugin_dir / "harness.mjs"), str(sandbox.workspace)],
        capture_output=True,
        text=True,
        env=sandbox.env(PATH=str(tmp_path / "nothing-here")),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"system": ["base"], "compaction": []}
