"""Permission problems and concurrent links never leave a half-written file.

Run with real processes. When the suite runs as root (which ignores permission bits), the
linking process drops to the ``nobody`` user so permissions mean what they mean for a user.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engram.testing import Sandbox

DRIVER = Path(__file__).with_name("link_driver.py")
NOBODY = 65534
ORIGINAL = '{\n  // my servers\n  "mcpServers": {\n    "other": {"command": "x"},\n  },\n}\n'

Runner = Callable[..., subprocess.CompletedProcess[str]]


def _as_owner(cmd: list[str]) -> list[str]:
    """``cmd`` run as the unprivileged ``nobody`` when we are root (``setpriv``, util-linux)."""
    if os.geteuid() != 0:
        return cmd
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *cmd]


@pytest.fixture
def base(sandbox: Sandbox) -> Iterator[Path]:
    """A folder the linking process owns (a world-traversable one when we are root)."""
    if os.geteuid() != 0:
        yield sandbox.root / "files"
        return
    folder = Path(tempfile.mkdtemp(prefix="engram-perm-"))
    folder.chmod(0o755)
    os.chown(folder, NOBODY, NOBODY)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(folder)


@pytest.fixture
def run(sandbox: Sandbox, base: Path) -> Runner:
    """Run the link driver as the unprivileged owner of ``base``."""

    def runner(file: Path, key: str = "engram") -> subprocess.CompletedProcess[str]:
        cmd = _as_owner([sys.executable, str(DRIVER), str(base / "data"), str(file), key])
        return subprocess.run(
            cmd, capture_output=True, text=True, env=sandbox.env(), cwd=base, check=False
        )

    return runner


def _own(*paths: Path) -> None:
    if os.geteuid() == 0:
        for path in paths:
            os.chown(path, NOBODY, NOBODY)


def _config(base: Path, folder: str = "ws") -> Path:
    target = base / folder
    target.mkdir(parents=True, exist_ok=True)
    file = target / "opencode.jsonc"
    file.write_text(ORIGINAL)
    _own(target, file)
    return file


def test_read_only_folder_fails_cleanly(base: Path, run: Runner) -> None:
    file = _config(base)
    file.parent.chmod(0o555)
    result = run(file)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "[edit.unwritable]" in result.stderr
    assert str(file) in result.stderr
    assert file.read_text() == ORIGINAL
    assert sorted(p.name for p in file.parent.iterdir()) == ["opencode.jsonc"]


def test_unwritable_file_fails_cleanly(base: Path, run: Runner) -> None:
    file = _config(base)
    file.chmod(0o444)
    result = run(file)
    assert result.returncode == 1 and "[edit.unwritable]" in result.stderr
    assert file.read_text() == ORIGINAL
    assert (file.stat().st_mode & 0o777) == 0o444


def test_file_mode_is_kept(base: Path, run: Runner) -> None:
    file = _config(base)
    file.chmod(0o640)
    assert run(file).returncode == 0
    assert (file.stat().st_mode & 0o777) == 0o640
    assert "engram" in file.read_text()


def test_a_second_link_while_one_holds_the_lock_fails_and_writes_nothing(
    base: Path, run: Runner
) -> None:
    file = _config(base)
    data = base / "data"
    data.mkdir()
    _own(data)
    lock = os.open(data / "links.lock", os.O_RDWR | os.O_CREAT, 0o666)
    os.chmod(data / "links.lock", 0o666)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = run(file)
    finally:
        os.close(lock)
    assert result.returncode == 1 and "[edit.busy]" in result.stderr
    assert file.read_text() == ORIGINAL
    assert run(file).returncode == 0


def test_concurrent_links_never_interleave(base: Path, run: Runner, sandbox: Sandbox) -> None:
    file = _config(base)
    procs = [
        subprocess.Popen(
            _as_owner([sys.executable, str(DRIVER), str(base / "data"), str(file), f"engram{i}"]),
            stderr=subprocess.PIPE,
            text=True,
            env=sandbox.env(),
            cwd=base,
        )
        for i in range(4)
    ]
    outcomes = [(p.wait(timeout=60), p.stderr.read() if p.stderr else "") for p in procs]
    winners = {f"engram{i}" for i, (code, _) in enumerate(outcomes) if code == 0}
    for code, err in outcomes:
        assert code == 0 or "[edit.busy]" in err, err
    assert winners
    text = file.read_text()
    assert text.startswith("{\n  // my servers\n")
    from engram.edit.jsonc.document import load

    servers = load(text)["mcpServers"]  # type: ignore[index]
    assert set(servers) == {"other"} | winners  # type: ignore[arg-type]
    ledger = json.loads((base / "data" / "links.json").read_text())
    assert {link["host"] for link in ledger["links"]} == winners


def test_a_data_dir_that_cannot_take_the_ledger_stops_before_any_write(
    base: Path, run: Runner
) -> None:
    file = _config(base)
    data = base / "data"
    data.mkdir()
    (data / "links.lock").write_text("")
    (data / "links.lock").chmod(0o666)
    _own(data, data / "links.lock")
    data.chmod(0o555)
    result = run(file)
    assert result.returncode == 1 and "[edit.unwritable]" in result.stderr
    assert "ledger" in result.stderr
    assert file.read_text() == ORIGINAL


def test_a_read_only_file_is_left_alone_even_for_root(sandbox: Sandbox) -> None:
    """Root may write anything, but a config with every write bit off is the user's 'hands off'."""
    file = sandbox.workspace / "opencode.jsonc"
    file.write_text(ORIGINAL)
    file.chmod(0o444)
    cmd = [sys.executable, str(DRIVER), str(sandbox.data_dir), str(file), "mcp"]
    result = subprocess.run(cmd, capture_output=True, text=True, env=sandbox.env(), check=False)
    assert result.returncode == 1 and "[edit.unwritable]" in result.stderr
    assert file.read_text() == ORIGINAL
    assert (file.stat().st_mode & 0o777) == 0o444
