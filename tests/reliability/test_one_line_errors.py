"""One-line errors everywhere (issue 10, point 9): huge ids, a held lock, a full disk, a
read-only database or data dir. The CLI prints one line with a remedy and exits non-zero; the
MCP server answers a named tool error (never ``server.internal``); a hook fails open inside
the timeout Engram installs in the host."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engram.hooks.render import HOOK_TIMEOUT_SECONDS
from engram.testing import Sandbox
from tests.reliability.conftest import ENGRAM, Run, assert_one_line_error
from tests.server.mcp_process import ENGRAM_MCP, LiveServer, call, initialize, run_server

HUGE = 10**30
BIG_TEXT = "0123456789abcdef" * 8000  # 128 KB, over any small file-size limit


def _assert_named_tool_error(answer: dict[str, Any], code: str = "") -> None:
    assert answer.get("isError") is True, answer
    text = json.dumps(answer)
    assert "server.internal" not in text and "Traceback" not in text, text
    if code:
        assert code in text, text


def test_huge_ids_are_one_line_errors(sandbox: Sandbox, engram: Run) -> None:
    assert engram("save", "t", "c", "--project", "demo").returncode == 0
    for command in (
        ["timeline", str(HUGE), "--project", "demo"],
        ["delete", str(HUGE), "--project", "demo"],
    ):
        assert_one_line_error(engram(*command))
    tools = [
        ("mem_get_observation", {"id": HUGE, "project": "demo"}),
        ("mem_timeline", {"observation_id": HUGE, "project": "demo"}),
        ("mem_pin", {"id": HUGE}),
        ("mem_delete", {"id": HUGE, "expected_project": "demo"}),
        ("mem_update", {"id": HUGE, "expected_project": "demo", "title": "x"}),
    ]
    lines = [*initialize()] + [call(i, n, a) for i, (n, a) in enumerate(tools, 1)]
    answer = run_server(sandbox, lines, "--project", "demo")
    for i in range(1, len(tools) + 1):
        _assert_named_tool_error(answer.result(i))


@pytest.fixture
def held_lock(sandbox: Sandbox, engram: Run) -> Iterator[None]:
    """Another process holds the database's write lock for the whole test."""
    assert engram("save", "before", "kept", "--project", "demo").returncode == 0
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN EXCLUSIVE')\nprint('held', flush=True)\ntime.sleep(600)\n",
            str(sandbox.data_dir / "engram.db"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    try:
        yield
    finally:
        holder.kill()
        holder.wait(timeout=30)


def test_held_lock_is_one_line_for_cli_mcp_and_hooks(
    sandbox: Sandbox, engram: Run, held_lock: None
) -> None:
    # Started together: each waits out the busy timeout on its own.
    server = LiveServer(sandbox, "--project", "demo")
    cli = subprocess.Popen(
        [str(ENGRAM), "save", "during", "lock", "--project", "demo"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
    )
    event = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s",
        "prompt": "hi",
        "cwd": str(sandbox.workspace),
    }
    hook = subprocess.run(
        [str(ENGRAM), "hook", "claude"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=sandbox.env(ENGRAM_PROJECT="demo"),
        cwd=sandbox.workspace,
        timeout=HOOK_TIMEOUT_SECONDS,  # the host would kill a slower hook
    )
    assert hook.returncode == 0 and "Traceback" not in hook.stderr
    assert len(hook.stderr.strip().splitlines()) == 1 and "locked" in hook.stderr
    try:
        for line in initialize():
            server.send(line)
        answer = server.send(call(1, "mem_save", {"title": "during", "content": "lock"}))
        assert answer is not None
        _assert_named_tool_error(answer["result"], "store.busy")
    finally:
        server.close()
    out, err = cli.communicate(timeout=120)
    assert_one_line_error(subprocess.CompletedProcess(cli.args, cli.returncode, out, err))
    assert "locked" in err


def _limited(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _tiny_filesystem(folder: Path) -> bool:
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], capture_output=True
    )
    return done.returncode == 0


@pytest.mark.parametrize("how", ["file size limit", "full filesystem"])
def test_full_disk_is_one_line_and_loses_nothing(sandbox: Sandbox, how: str) -> None:
    data = sandbox.root / "small-disk"
    limit = None
    if how == "full filesystem" and (os.geteuid() != 0 or not _tiny_filesystem(data)):
        pytest.skip("mounting a small filesystem needs root")
    env = sandbox.env(ENGRAM_DATA_DIR=str(data / "engram"))
    try:
        first = subprocess.run(
            [str(ENGRAM), "save", "kept", "small", "--project", "demo"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert first.returncode == 0, first.stderr
        if how == "file size limit":
            limit = (data / "engram" / "engram.db").stat().st_size + 4096
        results = []
        for n in range(12):  # fill the disk, or pass the file size limit
            results.append(
                subprocess.run(
                    [str(ENGRAM), "save", f"big {n}", BIG_TEXT, "--project", "demo"],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=120,
                    preexec_fn=_limited(limit) if limit else None,
                )
            )
        failed = [r for r in results if r.returncode != 0]
        assert failed, "the disk never filled"
        for result in failed:
            assert_one_line_error(result)
        with contextlib.closing(sqlite3.connect(data / "engram" / "engram.db")) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            titles = [r[0] for r in conn.execute("SELECT title FROM observations")]
        assert "kept" in titles
    finally:
        if how == "full filesystem":
            subprocess.run(["umount", "-l", str(data)], check=False)  # lazy: never left mounted


def _as_user(uid: int) -> list[str]:
    if os.geteuid() != 0:
        return []
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


@pytest.fixture
def user_folder() -> Iterator[tuple[int, Path]]:
    """A folder the store's user can reach: ``nobody``'s when we are root (root ignores
    permission bits, so read-only means something only for another user)."""
    import pwd
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="engram-ro-"))
    folder.chmod(0o755)
    uid = os.geteuid()
    if uid == 0:
        uid = pwd.getpwnam("nobody").pw_uid
        os.chown(folder, uid, uid)
    try:
        yield uid, folder
    finally:
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(folder)


@pytest.mark.parametrize("what", ["database", "data dir"])
def test_read_only_store_is_one_line(
    sandbox: Sandbox, user_folder: tuple[int, Path], what: str
) -> None:
    uid, folder = user_folder
    data = folder / "data"
    env = sandbox.env(ENGRAM_DATA_DIR=str(data), HOME=str(folder))
    save = [*_as_user(uid), str(ENGRAM), "save", "t", "c", "--project", "demo"]
    made = subprocess.run(save, capture_output=True, text=True, env=env, timeout=120, cwd="/")
    assert made.returncode == 0, made.stderr
    if what == "database":
        for name in ("engram.db", "engram.db-wal", "engram.db-shm"):
            if (data / name).exists():
                (data / name).chmod(0o400)
    else:
        data.chmod(0o500)
    result = subprocess.run(save, capture_output=True, text=True, env=env, timeout=120, cwd="/")
    assert_one_line_error(result)
    mcp = subprocess.run(
        [*_as_user(uid), ENGRAM_MCP, "--project", "demo"],
        input="\n".join([*initialize(), call(1, "mem_save", {"title": "x", "content": "y"})])
        + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd="/",
    )
    answers = [json.loads(line) for line in mcp.stdout.splitlines()]
    first = next(a for a in answers if a.get("id") == 1)
    _assert_named_tool_error(first["result"])


def test_unreachable_data_dir_is_one_line(sandbox: Sandbox, user_folder: tuple[int, Path]) -> None:
    uid, folder = user_folder
    locked = folder / "locked"
    locked.mkdir(mode=0o700)
    if os.geteuid() == 0:
        os.chown(locked, 0, 0)  # root's, unreadable by nobody
    else:
        locked.chmod(0o000)
    env = sandbox.env(ENGRAM_DATA_DIR=str(locked / "data"), HOME=str(folder))
    for command in (["save", "t", "c", "--project", "demo"], ["stats"]):
        result = subprocess.run(
            [*_as_user(uid), str(ENGRAM), *command],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            cwd="/",
        )
        assert_one_line_error(result)
