"""``engram serve`` answers numbers SQLite cannot hold with a 400 JSON error, not a 500.

Found by the independent error sweep: ``GET /observations/<2**70>`` answered 500 "the local
store failed to answer", and a JSON body holding a 5,000-digit number answered 500
``http.internal`` with a traceback in the server log.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.serve.conftest import Client, save

ENGRAM = Path(sys.executable).with_name("engram")

pytest_plugins = ["tests.serve.conftest"]

HUGE = str(2**70)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", f"/observations/{HUGE}"),
        ("PATCH", f"/observations/{HUGE}"),
        ("DELETE", f"/observations/{HUGE}"),
        ("PUT", f"/observations/{HUGE}/pin"),
        ("DELETE", f"/observations/{HUGE}/pin"),
        ("DELETE", f"/prompts/{HUGE}"),
        ("GET", f"/timeline?observation_id={HUGE}"),
        ("GET", f"/conflicts?offset={HUGE}"),
    ],
)
def test_an_id_too_large_is_a_400_with_a_remedy(http: Client, method: str, path: str) -> None:
    kept = save(http, "huge-ids", "Keep me", "unchanged")
    body = {"title": "changed"} if method == "PATCH" else None
    reply = http.request(method, path, body)
    assert reply.status == 400, reply.raw
    assert reply.json["code"] == "store.value_out_of_range"
    assert reply.json["remedy"]
    assert http.get(f"/observations/{kept}").json["title"] == "Keep me"


@pytest.mark.parametrize("path", ["/observations", "/prompts", "/sessions", "/import"])
def test_a_json_number_of_thousands_of_digits_is_bad_json(http: Client, path: str) -> None:
    body = b'{"title": "t", "content": ' + b"1" * 5000 + b"}"
    reply = http.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    assert reply.status == 400, reply.raw
    assert reply.json["code"] in {"http.bad_json", "backup.not_json"}


def test_cli_import_of_a_number_of_thousands_of_digits_is_one_line(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    backup = tmp_path / "backup.json"
    backup.write_text('{"version": ' + "9" * 5000 + "}", encoding="utf-8")
    result = subprocess.run(
        [str(ENGRAM), "import", str(backup)],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("path", "field"),
    [("/observations", "title"), ("/observations", "content"), ("/prompts", "content")],
)
def test_a_lone_surrogate_in_a_field_is_a_400(http: Client, path: str, field: str) -> None:
    session = "surrogate-s"
    body = {"title": "t", "content": "c", "session_id": session, "project": "surrogates"}
    raw = json.dumps(body).replace(f'"{body[field]}"', '"a\\udcffb"', 1).encode()
    reply = http.request("POST", path, body=raw, headers={"Content-Type": "application/json"})
    assert reply.status == 400, reply.raw
    assert reply.json["code"] == "http.bad_text"
    listed = http.get("/observations?project=surrogates")  # nothing saved: no such project
    assert listed.status == 404 or listed.json in ([], {"observations": []}), listed.raw
