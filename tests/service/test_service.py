"""`engram service`: rendered units are valid for their supervisor; install/uninstall/status.

Every test runs with a temporary HOME and `--no-start` / `--no-stop`: the real user's systemd,
launchd or Task Scheduler is never asked to do anything.
"""

from __future__ import annotations

import json
import plistlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.serve.conftest import free_port, start_server

ENGRAM = Path(sys.executable).with_name("engram")


def engram(sandbox: Sandbox, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ENGRAM), *args],
        capture_output=True,
        text=True,
        env=sandbox.env(**env),
        cwd=sandbox.workspace,
        timeout=60,
    )


def test_systemd_unit_verifies(sandbox: Sandbox) -> None:
    done = engram(sandbox, "service", "install", "--platform", "linux", "--no-start")
    assert done.returncode == 0, done.stderr
    unit = sandbox.home / ".config/systemd/user/engram.service"
    text = unit.read_text()
    assert f"ExecStart={ENGRAM} serve" in text
    assert f"Environment=ENGRAM_DATA_DIR={sandbox.data_dir}" in text
    assert "Restart=on-failure" in text
    assert "WantedBy=default.target" in text
    assert shutil.which("systemd-analyze"), (
        "systemd-analyze is needed (scripts/install-system-deps)"
    )
    verify = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert verify.returncode == 0, verify.stderr


def test_systemd_unit_quotes_odd_paths(sandbox: Sandbox, tmp_path: Path) -> None:
    data = tmp_path / "my data %h $HOME"
    done = engram(
        sandbox,
        "service",
        "install",
        "--platform",
        "linux",
        "--no-start",
        ENGRAM_DATA_DIR=str(data),
        ENGRAM_PORT="8123",
    )
    assert done.returncode == 0, done.stderr
    unit = sandbox.home / ".config/systemd/user/engram.service"
    text = unit.read_text()
    assert "Environment=ENGRAM_PORT=8123" in text
    assert '"ENGRAM_DATA_DIR=' in text and "%%h $$HOME" in text
    verify = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert verify.returncode == 0, verify.stderr


def test_launchd_plist_round_trips(sandbox: Sandbox) -> None:
    done = engram(
        sandbox, "service", "install", "--platform", "macos", "--no-start", ENGRAM_PORT="9001"
    )
    assert done.returncode == 0, done.stderr
    path = sandbox.home / "Library/LaunchAgents/dev.engram.serve.plist"
    plist = plistlib.loads(path.read_bytes())
    assert plist["Label"] == "dev.engram.serve"
    assert plist["ProgramArguments"] == [str(ENGRAM), "serve"]
    assert plist["KeepAlive"] is True and plist["RunAtLoad"] is True
    assert plist["WorkingDirectory"] == str(sandbox.home)
    assert plist["EnvironmentVariables"] == {
        "ENGRAM_DATA_DIR": str(sandbox.data_dir),
        "ENGRAM_PORT": "9001",
    }
    assert plist["StandardErrorPath"] == f"{sandbox.data_dir}/serve.err.log"
    assert plistlib.loads(plistlib.dumps(plist)) == plist


def test_task_scheduler_xml_parses(sandbox: Sandbox) -> None:
    done = engram(sandbox, "service", "install", "--platform", "windows", "--no-start")
    assert done.returncode == 0, done.stderr
    path = sandbox.data_dir / "service/engram-task.xml"
    root = ET.fromstring(path.read_bytes())
    ns = {"t": "http://schemas.microsoft.com/windows/2004/02/mit/task"}
    assert root.find("t:Actions/t:Exec/t:Command", ns).text == str(ENGRAM)  # type: ignore[union-attr]
    assert root.find("t:Actions/t:Exec/t:Arguments", ns).text == "serve"  # type: ignore[union-attr]
    assert root.find("t:Triggers/t:LogonTrigger", ns) is not None
    assert root.find("t:Settings/t:RestartOnFailure/t:Count", ns).text == "5"  # type: ignore[union-attr]


def test_uninstall_removes_only_what_engram_wrote(sandbox: Sandbox) -> None:
    unit = sandbox.home / ".config/systemd/user/engram.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/usr/bin/true\n")
    refused = engram(sandbox, "service", "install", "--platform", "linux", "--no-start")
    assert refused.returncode == 1 and "not written by Engram" in refused.stderr
    assert unit.read_text() == "[Service]\nExecStart=/usr/bin/true\n"
    kept = engram(sandbox, "service", "uninstall", "--platform", "linux", "--no-stop")
    assert kept.returncode == 1 and unit.exists()
    unit.unlink()
    assert (
        engram(sandbox, "service", "install", "--platform", "linux", "--no-start").returncode == 0
    )
    again = engram(sandbox, "service", "install", "--platform", "linux", "--no-start")
    assert again.returncode == 0
    removed = engram(sandbox, "service", "uninstall", "--platform", "linux", "--no-stop")
    assert removed.returncode == 0 and not unit.exists()
    nothing = engram(sandbox, "service", "uninstall", "--platform", "linux", "--no-stop")
    assert nothing.returncode == 0 and "no service installed" in nothing.stdout


def test_status_says_whether_the_daemon_answers(sandbox: Sandbox) -> None:
    port = str(free_port())
    down = engram(sandbox, "service", "status", "--platform", "linux", "--json", ENGRAM_PORT=port)
    report = json.loads(down.stdout)
    assert report["installed"] is False and report["running"] is False
    assert report["address"] == f"http://127.0.0.1:{port}"
    engram(sandbox, "service", "install", "--platform", "linux", "--no-start")
    server = start_server(sandbox, port)
    try:
        up = engram(sandbox, "service", "status", "--platform", "linux", ENGRAM_PORT=port)
        assert up.returncode == 0
        assert "service: installed" in up.stdout
        assert f"daemon: running on http://127.0.0.1:{port}" in up.stdout
    finally:
        server.stop()


@pytest.mark.parametrize("bad", ["beos", "Linux"])
def test_unknown_platform_is_a_clear_error(sandbox: Sandbox, bad: str) -> None:
    done = engram(sandbox, "service", "install", "--platform", bad, "--no-start")
    assert done.returncode == 1
    assert "unknown platform" in done.stderr and "Traceback" not in done.stderr
