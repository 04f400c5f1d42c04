"""Per-project cloud remotes and ``engram cloud status``."""

from __future__ import annotations

from pathlib import Path

from engram.cloud.scratch_postgres import ScratchPostgres
from engram.testing import Sandbox
from tests.cloud.conftest import SYNC_TOKEN, CloudServer, StartServer, free_port, server_env
from tests.cloud.laptops import Laptop

# Legacy tokens are at least 32 characters (the cloud refuses shorter ones).
TEAM_TOKEN = "team-token-0123456789abcdef0123456"
OLD_TOKEN = "old-token-0123456789abcdef01234567"
NEW_TOKEN = "new-token-0123456789abcdef01234567"


def _keys(server: CloudServer, token: str, project: str) -> set[str]:
    body = server.client(token).get("/sync/mutations/pull", params={"project": project}).json()
    return {m["key"] for m in body["mutations"]}


def test_a_routed_project_uses_only_its_own_server_and_token(
    sandbox: Sandbox,
    cloud: CloudServer,
    start_server: StartServer,
    postgres: ScratchPostgres,
    tmp_path: Path,
) -> None:
    other_db = postgres.create_database(f"remote_{tmp_path.name[:20]}")
    team_cloud = start_server(server_env(other_db, ENGRAM_CLOUD_TOKEN=TEAM_TOKEN))
    laptop = Laptop(tmp_path / "a", sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN))
    laptop.ok("cloud", "config", "--server", cloud.url)
    laptop.ok("save", "team fact", "for the team cloud", "--project", "team-app")
    laptop.ok("save", "own fact", "for the global cloud", "--project", "mine")
    for project in ("team-app", "mine"):
        laptop.ok("cloud", "enroll", project)
    laptop.ok("cloud", "config", "--project", "team-app", "--server", team_cloud.url)
    no_token = laptop.run("sync", "--cloud", "--project", "team-app")
    assert no_token.returncode == 1 and no_token.stderr.startswith("error: auth_required")
    routed = laptop.ok(
        "cloud",
        "config",
        "--project",
        "team-app",
        "--server",
        team_cloud.url,
        "--token",
        TEAM_TOKEN,
    )
    assert f"now syncs with {team_cloud.url}" in routed
    laptop.ok("sync", "--cloud", "--project", "team-app")
    laptop.ok("sync", "--cloud", "--project", "mine")
    assert len(_keys(team_cloud, TEAM_TOKEN, "team-app")) == 2  # its session + observation
    assert _keys(cloud, SYNC_TOKEN, "team-app") == set()
    assert len(_keys(cloud, SYNC_TOKEN, "mine")) == 2
    status = laptop.ok("cloud", "status")
    assert f"Cloud: {cloud.url}" in status
    assert f"Remote for team-app: {team_cloud.url} token team…" in status
    assert "Local daemon: not running" in status
    assert TEAM_TOKEN not in status and SYNC_TOKEN not in status
    # Back to the global remote: the project's history is re-queued there in full.
    laptop.ok("cloud", "config", "--project", "team-app", "--clear")
    laptop.ok("sync", "--cloud", "--project", "team-app")
    assert _keys(cloud, SYNC_TOKEN, "team-app") == _keys(team_cloud, TEAM_TOKEN, "team-app")


def test_a_rotated_token_on_the_same_server_re_queues_the_project(
    sandbox: Sandbox,
    start_server: StartServer,
    postgres: ScratchPostgres,
    tmp_path: Path,
) -> None:
    # The team's server is rebuilt behind the same URL with a fresh database and new tokens:
    # rotating the token must send the project's whole history there again.
    port = free_port()
    old = start_server(
        server_env(
            postgres.create_database(f"old_{tmp_path.name[:20]}"), ENGRAM_CLOUD_TOKEN=OLD_TOKEN
        ),
        port=port,
    )
    laptop = Laptop(tmp_path / "a", sandbox.env())
    laptop.ok("save", "team fact", "kept across the rebuild", "--project", "team-app")
    laptop.ok("cloud", "enroll", "team-app")
    laptop.ok("cloud", "config", "--project", "team-app", "--server", old.url, "--token", OLD_TOKEN)
    history = _keys(old, OLD_TOKEN, "team-app")
    assert len(history) == 2  # its session + observation
    old.stop()
    new = start_server(
        server_env(
            postgres.create_database(f"new_{tmp_path.name[:20]}"), ENGRAM_CLOUD_TOKEN=NEW_TOKEN
        ),
        port=port,
    )
    assert new.url == old.url and _keys(new, NEW_TOKEN, "team-app") == set()
    laptop.ok("cloud", "config", "--project", "team-app", "--server", new.url, "--token", NEW_TOKEN)
    assert _keys(new, NEW_TOKEN, "team-app") == history
