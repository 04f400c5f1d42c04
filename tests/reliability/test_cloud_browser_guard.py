"""``engram cloud serve`` guards browsers like ``engram serve``: one shared Host/Origin check.

On a loopback bind (either mode) and in insecure mode, a web page open in the user's browser
cannot write through a cross-origin ``text/plain`` POST, nor read through DNS rebinding.
"""

from __future__ import annotations

import json

import httpx2 as httpx
import psycopg

from tests.cloud.conftest import SYNC_TOKEN, StartServer, server_env
from tests.cloud.entries import observation
from tests.serve.conftest import start_server as start_local

EVIL = "http://evil.example"


def _insecure(database_url: str, **extra: str) -> dict[str, str]:
    return server_env(
        database_url,
        ENGRAM_CLOUD_INSECURE_NO_AUTH="1",
        ENGRAM_CLOUD_TOKEN="",
        ENGRAM_JWT_SECRET="",
        ENGRAM_CLOUD_ADMIN="",
        **extra,
    )


def _stored(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM cloud_mutations").fetchone()
    return int(row[0]) if row else 0


def test_insecure_cloud_refuses_a_cross_origin_text_plain_write(
    start_server: StartServer, database_url: str
) -> None:
    server = start_server(_insecure(database_url))
    body = json.dumps({"project": "p", "entries": [observation("web", 1)]})
    page = {"Content-Type": "text/plain", "Origin": EVIL}
    refused = httpx.post(f"{server.url}/sync/mutations/push", content=body, headers=page)
    assert refused.status_code == 403
    assert refused.json()["error_code"] == "origin_not_local"
    assert refused.json()["error_class"] == "policy"
    assert _stored(database_url) == 0
    # The same write from a local tool (no Origin) or a local page goes through.
    local = {"Content-Type": "text/plain", "Origin": server.url}
    assert httpx.post(f"{server.url}/sync/mutations/push", content=body, headers=local).is_success
    assert _stored(database_url) == 1


def test_a_rebound_name_cannot_read_the_cloud(start_server: StartServer, database_url: str) -> None:
    insecure = start_server(_insecure(database_url))
    authenticated = start_server(server_env(database_url))
    for server, token in ((insecure, None), (authenticated, SYNC_TOKEN)):
        headers = {"Host": "evil.example:8080"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        rebound = httpx.get(f"{server.url}/sync/pull?project=p", headers=headers)
        assert rebound.status_code == 421, server.url
        assert rebound.json()["error_code"] == "host_not_local"
        dashboard = httpx.get(f"{server.url}/dashboard", headers=headers)
        assert dashboard.status_code == 421
        assert httpx.get(f"{server.url}/health").status_code == 200


def test_a_proxy_name_can_be_allowed(start_server: StartServer, database_url: str) -> None:
    server = start_server(_insecure(database_url, ENGRAM_CLOUD_ALLOWED_HOSTS="team.example"))
    proxied = {"Host": "team.example", "Origin": "https://team.example"}
    assert httpx.get(f"{server.url}/sync/pull?project=p", headers=proxied).status_code == 200
    assert (
        httpx.get(f"{server.url}/sync/pull?project=p", headers={"Host": "x.example"}).status_code
        == 421
    )


def test_both_servers_give_the_same_answer(
    start_server: StartServer, database_url: str, sandbox: object
) -> None:
    from engram.testing import Sandbox

    assert isinstance(sandbox, Sandbox)
    cloud = start_server(_insecure(database_url))
    local = start_local(sandbox)
    try:
        page = {"Origin": EVIL, "Content-Type": "text/plain"}
        local_reply = local.client.post("/observations", body=b"{}", headers=page)
        cloud_reply = httpx.post(f"{cloud.url}/sync/push", content=b"{}", headers=page)
        assert (local_reply.status, cloud_reply.status_code) == (403, 403)
        assert local_reply.json["code"] == "http.origin_not_local"
        assert cloud_reply.json()["error_code"] == "origin_not_local"
        assert local_reply.json["error"] == cloud_reply.json()["error"]
    finally:
        local.stop()
