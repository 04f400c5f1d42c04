"""Grants reach exactly one project (issue 22, point 7).

Grants compare names case- and separator-blind, so a cloud project ``proj_a`` beside ``proj-a``
would let a grant for one reach the other team's memories. Every path that creates a project
refuses a variant of an existing one with the similar-project error; the local store warns
with the same words, from the same normalization.
"""

from __future__ import annotations

import subprocess

from engram.project_names import normalized_name, project_key
from tests.cloud import conftest as cloud_fixtures
from tests.cloud.conftest import ENGRAM, PEPPER, SYNC_TOKEN, CloudServer
from tests.cloud.entries import observation
from tests.reliability.conftest import Run

postgres = cloud_fixtures.postgres
database_url = cloud_fixtures.database_url
start_server = cloud_fixtures.start_server
cloud = cloud_fixtures.cloud

VARIANTS = ("proj_a", "proj a", "Proj__A", "proj.a")


def _push(cloud: CloudServer, token: str, project: str, seq: int) -> tuple[int, dict[str, object]]:
    body = {
        "project": project,
        "entries": [observation("dev", seq, project=normalized_name(project))],
    }
    answer = cloud.client(token).post("/sync/mutations/push", json=body)
    return answer.status_code, answer.json()


def _admin_token(database_url: str) -> str:
    env = {"ENGRAM_DATABASE_URL": database_url, "ENGRAM_CLOUD_TOKEN_PEPPER": PEPPER,
           "PATH": "/usr/bin:/bin"}  # fmt: skip
    done = subprocess.run(
        [str(ENGRAM), "cloud", "bootstrap", "admin", "--username", "root", "--issue-token"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_a_variant_of_an_existing_cloud_project_is_never_created(
    cloud: CloudServer, database_url: str
) -> None:
    assert _push(cloud, SYNC_TOKEN, "proj-a", 1)[0] == 200
    for seq, name in enumerate(VARIANTS, start=2):
        status, envelope = _push(cloud, SYNC_TOKEN, name, seq)
        assert status == 409, (name, envelope)
        assert envelope["error_code"] == "similar_project"
        assert "similar existing projects: proj-a" in str(envelope["error"])
    assert _push(cloud, SYNC_TOKEN, "PROJ-A", 9)[0] == 200  # normalizes to proj-a itself

    admin = cloud.client(_admin_token(database_url))
    bob = admin.post("/admin/users", json={"username": "bob", "role": "member"}).json()
    granted = admin.post(f"/admin/users/{bob['principal_id']}/grants", json={"project": "proj_a"})
    assert granted.status_code == 409 and granted.json()["error_code"] == "similar_project"
    paused = admin.post("/admin/projects/proj a/sync", json={"enabled": False})
    assert paused.status_code == 409
    listed = admin.get("/admin/projects").json()
    names = [p["name"] for p in (listed if isinstance(listed, list) else listed["projects"])]
    assert names == ["proj-a"]


def test_local_and_cloud_share_one_normalization(engram: Run) -> None:
    assert engram("save", "a note", "text", "--project", "proj-a").returncode == 0
    for name in VARIANTS[:2]:
        done = engram("save", "other", "text", "--project", name)
        assert "similar existing projects: proj-a" in done.stderr, (name, done.stderr)
        assert project_key(name) == project_key("proj-a")
