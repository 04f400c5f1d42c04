"""Code citations over ``engram serve`` in a real git repository: a save through
``POST /observations`` records them, ``GET /search`` carries the code status and
``GET /review/stale`` lists the stale memory with its reason and fixes."""

from __future__ import annotations

from engram.testing import Sandbox
from tests.memory.citation_repo import commit, git, make_repo
from tests.serve.conftest import save, start_server


def test_stale_over_http(sandbox: Sandbox) -> None:
    repo = make_repo(sandbox.workspace)
    server = start_server(sandbox)
    try:
        client = server.client
        gone = save(client, "shop", "Queue rule", "jobs go through svc/queue.go:Enqueue")
        kept = save(client, "shop", "Settings rule", "rules read by app/settings.py")
        git(repo, "rm", "-q", "svc/queue.go")
        sha = commit(repo, "drop queue")
        hits = {h["id"]: h for h in client.get("/search?q=rule&project=shop").json}
        assert hits[gone]["state"] == "stale"
        assert hits[gone]["code"]["reasons"] == [f"svc/queue.go deleted in {sha}"]
        assert hits[kept]["code"]["state"] == "current"
        listed = client.get("/review/stale?project=shop")
        assert listed.status == 200
        assert [(r["id"], r["reasons"]) for r in listed.json] == [
            (gone, [f"svc/queue.go deleted in {sha}"])
        ]
        assert len(listed.json[0]["fixes"]) == 2
    finally:
        server.stop()
