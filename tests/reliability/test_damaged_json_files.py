"""A damaged JSON file Engram reads is a one-line error (or ignored), never a traceback.

Found by the independent error sweep: JSON nested 100,000 deep or holding a number of 5,000
digits (CPython refuses to parse either) in these files made commands print a traceback.
Every file is left byte-for-byte as it was.
"""

from __future__ import annotations

import subprocess

import pytest

from engram.testing import Sandbox
from tests.reliability.conftest import Run

HUGE = b'{"a": ' + b"7" * 5000 + b"}"
DEEP = b"[" * 100_000

CASES = [
    ("repo", ".engram/config.json", HUGE, ["stats"]),
    ("repo", ".engram/manifest.json", DEEP, ["sync", "--status"]),
    ("repo", ".mcp.json", HUGE, ["link", "claude"]),
    ("repo", ".gemini/settings.json", HUGE, ["link", "gemini"]),
    ("data", "cloud.json", DEEP, ["cloud", "status"]),
    ("data", "links.json", DEEP, ["unlink", "claude"]),
    ("data", "project-bindings.json", DEEP, ["init", "p", "--confirm"]),
    ("data", "update-check.json", DEEP, ["stats"]),
]


@pytest.mark.parametrize(
    ("where", "name", "content", "args"), CASES, ids=[f"{c[1]}-{c[3][0]}" for c in CASES]
)
def test_a_damaged_json_file_is_no_traceback(
    engram: Run, sandbox: Sandbox, where: str, name: str, content: bytes, args: list[str]
) -> None:
    repo = sandbox.workspace / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert engram("save", "seed", "body", cwd=repo).returncode == 0
    target = (repo if where == "repo" else sandbox.data_dir) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    env = None
    if name == "update-check.json":  # the check runs, against an index that refuses at once
        env = {"ENGRAM_NO_UPDATE_CHECK": "", "ENGRAM_UPDATE_INDEX_URL": "http://127.0.0.1:9/"}
    result = engram(*args, cwd=repo, env=env)
    assert "Traceback" not in result.stderr + result.stdout
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if not line.startswith("warning:")]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert target.read_bytes() == content
