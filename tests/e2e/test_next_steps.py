"""The `next:` step link prints is what the real host needs: checked against Gemini CLI and
Codex themselves."""

from __future__ import annotations

import json
import re

import pytest

from engram.testing import Sandbox
from tests.e2e.conftest import Hosts

pytestmark = pytest.mark.e2e


def next_step(linked: str) -> str:
    (step,) = [line.strip() for line in linked.splitlines() if line.strip().startswith("next:")]
    return step


def test_gemini_global_says_to_trust_each_folder_and_that_is_what_gemini_needs(
    sandbox: Sandbox,
) -> None:
    box = Hosts(sandbox)  # nothing trusted yet
    step = next_step(box.engram("link", "gemini", "--global", "--no-hooks").stdout)
    assert "trust each folder you work in" in step
    untrusted = box.host("gemini", "mcp", "list")
    assert re.search(r"engram: engram-mcp .*- Disabled", untrusted.stdout + untrusted.stderr)
    trusted = sandbox.home / ".gemini" / "trustedFolders.json"
    trusted.write_text(json.dumps({str(sandbox.workspace): "TRUST_FOLDER"}))
    listed = box.host("gemini", "mcp", "list")
    assert re.search(r"✓ engram: engram-mcp .*- Connected", listed.stdout + listed.stderr)


def test_codex_without_hooks_has_nothing_to_trust(sandbox: Sandbox) -> None:
    box = Hosts(sandbox)
    step = next_step(box.engram("link", "codex", "--global", "--no-hooks").stdout)
    assert "trust" not in step.replace("nothing to trust", "")
    assert not (sandbox.home / ".codex" / "hooks.json").exists()
    shown = box.host("codex", "mcp", "get", "engram", "--json")
    assert json.loads(shown.stdout)["enabled"] is True
