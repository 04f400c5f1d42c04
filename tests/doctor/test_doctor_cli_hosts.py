"""``engram doctor --host``: an alias means its host; an unknown host is a clear error."""

from __future__ import annotations

import json
import subprocess
import sys

from engram.testing import Sandbox


def doctor(sandbox: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "import sys; from engram.cli.entry import main; sys.exit(main())"]
    return subprocess.run(
        [*cmd, *args], capture_output=True, text=True, env=sandbox.env(), cwd=sandbox.workspace
    )


def test_an_unknown_host_is_an_error(sandbox: Sandbox) -> None:
    result = doctor(sandbox, "doctor", "--host", "nosuchhost")
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and "unknown host 'nosuchhost'" in result.stderr


def test_an_alias_selects_its_host(sandbox: Sandbox) -> None:
    link = doctor(sandbox, "link", "gemini")
    assert link.returncode == 0, link.stderr
    result = doctor(sandbox, "doctor", "--json", "--host", "gemini-cli", "--check", "host")
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert "host.registration" in codes, result.stdout
