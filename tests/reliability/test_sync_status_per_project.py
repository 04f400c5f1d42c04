"""``GET /sync/status?project=P`` reports P's own state: a project paused on the cloud shows
paused, and a second project on the same server keeps syncing and never shows that pause."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx

from engram.testing import Sandbox
from tests.cloud.conftest import ADMIN_TOKEN, SYNC_TOKEN, CloudServer
from tests.cloud.laptops import Laptop
from tests.cloud.test_autosync import Serve, _autosync_env, _get, _until, serve  # noqa: F401


def test_another_projects_pause_never_shows(
    sandbox: Sandbox,
    cloud: CloudServer,
    tmp_path: Path,
    serve: Serve,  # noqa: F811
) -> None:
    laptop = Laptop(tmp_path / "a", sandbox.env())
    for project in ("aaa-paused", "zzz-open"):
        laptop.ok("cloud", "enroll", project)
    cloud.client(ADMIN_TOKEN).post("/admin/projects/aaa-paused/sync", json={"enabled": False})
    url, _ = serve(laptop, **_autosync_env(cloud))
    laptop.ok("save", "blocked fact", "server paused", "--project", "aaa-paused")
    laptop.ok("save", "open fact", "travels", "--project", "zzz-open")

    def paused() -> Any:
        status = _get(f"{url}/sync/status?project=aaa-paused")
        return status if status and status["reason_code"] == "paused" else None

    _until(paused, "the paused project's own reason")

    def pushed() -> bool:
        pulled = httpx.get(
            f"{cloud.url}/sync/mutations/pull?project=zzz-open",
            headers={"Authorization": f"Bearer {SYNC_TOKEN}"},
        )
        return pulled.status_code == 200 and "open fact" in pulled.text

    _until(pushed, "the open project's memory on the server despite the other's pause")
    for _ in range(10):  # across several worker cycles
        other = _get(f"{url}/sync/status?project=zzz-open")
        assert other["reason_code"] != "paused", other
        assert "paus" not in (other["reason_message"] + other["last_error"]).lower(), other
        assert _get(f"{url}/sync/status?project=aaa-paused")["reason_code"] == "paused"
