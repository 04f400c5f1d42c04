"""``engram init`` pins a directory's project name in .engram/config.json."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

from engram.testing import Sandbox

Run = Callable[..., subprocess.CompletedProcess[str]]


def test_init_writes_the_config_and_refuses_to_overwrite(sandbox: Sandbox, engram: Run) -> None:
    first = engram("init", "Acme--API")
    assert first.returncode == 0, first.stderr
    config = sandbox.workspace / ".engram" / "config.json"
    assert json.loads(config.read_text()) == {"project_name": "acme-api"}
    assert "normalized" in first.stderr

    again = engram("init", "other")
    assert again.returncode == 1
    assert again.stderr.count("\n") == 1 and "--force" in again.stderr
    assert json.loads(config.read_text()) == {"project_name": "acme-api"}

    forced = engram("init", "other", "--force")
    assert forced.returncode == 0
    assert json.loads(config.read_text()) == {"project_name": "other"}


def test_init_without_a_name_uses_the_folder_name(sandbox: Sandbox, engram: Run) -> None:
    folder = sandbox.workspace / "My-Tool"
    folder.mkdir()
    assert engram("init", cwd=folder).returncode == 0
    assert json.loads((folder / ".engram" / "config.json").read_text()) == {
        "project_name": "my-tool"
    }


def test_init_rejects_a_path_as_a_name(sandbox: Sandbox, engram: Run) -> None:
    result = engram("init", "team/app")
    assert result.returncode == 1
    assert result.stderr.startswith("error: invalid project name")
    assert not (sandbox.workspace / ".engram").exists()
