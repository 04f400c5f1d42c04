"""``GET /sync/status`` on a real ``engram serve`` reports the store's real sync state."""

from __future__ import annotations

import subprocess
import sys

from engram.testing import Sandbox
from tests.serve.conftest import Client, save


def test_sync_status_follows_a_git_sync(sandbox: Sandbox, api: Client) -> None:
    save(api, "acme", "cache policy", "warm the cache at deploy")
    before = api.get("/sync/status?project=acme")
    assert before.status == 200, before.json
    assert before.json["project"] == "acme"
    assert before.json["enabled"] is False
    assert before.json["pending_mutations"] >= 2  # the session and the observation

    done = subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", "sync", "--project", "acme"],
        cwd=sandbox.workspace,
        env=sandbox.env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr

    after = api.get("/sync/status?project=acme").json
    assert after["enabled"] is True
    assert after["pending_mutations"] == 0
    assert after["last_sync_at"] and after["phase"] == "idle"
    assert (after["deferred_count"], after["dead_count"]) == (0, 0)

    refused = api.get("/sync/status?all_projects=true")
    assert refused.status == 400
    assert refused.json["code"] == "unsupported_project_scope"
