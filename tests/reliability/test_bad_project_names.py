"""Project names that are not text, or empty, are refused with one line and change nothing.

Found by the independent error sweep: ``engram init $'\\xff'`` wrote a project name of lone
surrogates into ``.engram/config.json`` (exit 0), and ``engram cloud enroll ''`` enrolled an
empty project ("project  enrolled", exit 0).
"""

from __future__ import annotations

import json
import os
import subprocess

from engram.testing import Sandbox
from tests.reliability.conftest import ENGRAM

NOT_UTF8 = b"\xff\xfe-app"


def _run(sandbox: Sandbox, *args: bytes | str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [os.fsencode(str(ENGRAM)), *(os.fsencode(a) if isinstance(a, str) else a for a in args)],
        capture_output=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
    )


def _assert_one_line_error(result: subprocess.CompletedProcess[bytes]) -> None:
    assert result.returncode == 1, result
    lines = result.stderr.decode("utf-8", "replace").splitlines()
    lines = [line for line in lines if not line.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and " — " in lines[0], lines


def test_init_refuses_a_name_that_is_not_utf8(sandbox: Sandbox) -> None:
    result = _run(sandbox, "init", NOT_UTF8)
    _assert_one_line_error(result)
    assert not (sandbox.workspace / ".engram").exists()


def test_save_refuses_a_project_that_is_not_utf8(sandbox: Sandbox) -> None:
    _assert_one_line_error(_run(sandbox, "save", "Title", "body", "--project", NOT_UTF8))
    listed = _run(sandbox, "projects", "list", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout) in ([], {"projects": []})


def test_cloud_enroll_refuses_an_empty_name_and_normalizes_others(sandbox: Sandbox) -> None:
    _assert_one_line_error(_run(sandbox, "cloud", "enroll", ""))
    assert _run(sandbox, "cloud", "enroll", "My-App").returncode == 0
    status = _run(sandbox, "cloud", "status", "--json")
    assert status.returncode == 0, status.stderr
    text = status.stdout.decode()
    assert '"my-app"' in text and '"My-App"' not in text and '""' not in text
