"""Files in the way are one-line errors: an export path under a file, a damaged clone binding.

Found by the independent error sweep: ``engram export FILE/sub`` printed a traceback (the clean-up
of a temp file that was never created raised), and a clone binding holding non-UTF-8 bytes or a
number of thousands of digits made every command in that repository print a traceback.
"""

from __future__ import annotations

import subprocess

import pytest

from engram.memory.git_repo import BINDING_FILE
from engram.testing import Sandbox
from tests.reliability.conftest import Run


def _assert_one_line_error(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("warning:")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and " — " in lines[0]


def test_export_to_a_path_under_a_file_is_one_line(engram: Run, sandbox: Sandbox) -> None:
    assert engram("save", "Keep me", "unchanged").returncode == 0
    blocker = sandbox.workspace / "notes.txt"
    blocker.write_text("mine\n", encoding="utf-8")
    result = engram("export", str(blocker / "backup.json"))
    _assert_one_line_error(result)
    assert blocker.read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe not text", b'{"label": ' + b"7" * 5000 + b"}", b"[" * 100_000],
    ids=["not-utf8", "huge-number", "deep-nesting"],
)
def test_a_damaged_clone_binding_is_one_line(engram: Run, sandbox: Sandbox, content: bytes) -> None:
    repo = sandbox.workspace / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".git" / BINDING_FILE).write_bytes(content)
    result = engram("save", "Title", "body", cwd=repo)
    _assert_one_line_error(result)
    assert (repo / ".git" / BINDING_FILE).read_bytes() == content
