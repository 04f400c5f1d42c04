"""The real ``engram tui`` command in a real terminal (tmux), read back with capture-pane."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.store.db import Store
from engram.testing import Sandbox
from tests.tui.corpus import ZONE, seed

ENGRAM = str(Path(sys.executable).with_name("engram"))


class Terminal:
    """One tmux server of its own (``tmux -L``), so parallel tests never share one."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "tui")

    def wait_for(self, *texts: str, timeout: float = 30.0) -> str:
        """The screen once it shows every one of ``texts`` (fails with the last screen)."""
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if all(text in shown for text in texts):
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{texts!r} never all appeared; the screen was:\n{shown}")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "tui", *keys)


@pytest.fixture
def terminal(sandbox: Sandbox) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: run scripts/install-system-deps")
    with Store.open() as store:
        seed(store)
    term = Terminal(f"engram-tui-{os.getpid()}-{sandbox.root.name}")
    env = sandbox.env(ENGRAM_TIMEZONE=ZONE, TERM="xterm-256color")
    for sized in ("COLUMNS", "LINES"):  # they would override the pane's size
        env.pop(sized, None)
    command = " ".join(
        [
            *(f"{key}={_quote(value)}" for key, value in env.items() if key.isidentifier()),
            ENGRAM,
            "tui",
            "--all",
        ]
    )
    config = sandbox.root / "tmux.conf"
    config.write_text("set -g remain-on-exit on\nset -g default-size 110x34\n", encoding="utf-8")
    term.tmux(
        "-f",
        str(config),
        "new-session",
        "-d",
        "-s",
        "tui",
        "-x",
        "110",
        "-y",
        "34",
        "-c",
        str(sandbox.workspace),
        f"env -i {command}",
    )
    socket_path = Path(term.tmux("display", "-p", "#{socket_path}").strip())
    try:
        yield term
    finally:
        subprocess.run(["tmux", "-L", term.socket, "kill-server"], check=False, timeout=30)
        socket_path.unlink(missing_ok=True)  # kill-server leaves the socket file behind


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def test_the_real_command_in_tmux(terminal: Terminal) -> None:
    terminal.wait_for("All projects", "57", "observations", "Search memories", "Sessions")
    terminal.keys("r")
    # Saved 12:02 UTC, shown in ENGRAM_TIMEZONE (Europe/Berlin): 13:02.
    terminal.wait_for(
        "showing 1-20 of 57",
        "#57 [discovery] Live: FTS5 ranks title words higher  acme-api · 2026-03-14 13:02",
    )
    terminal.keys("/")
    terminal.wait_for("words to find")
    terminal.keys("token refresh", "Enter")
    terminal.wait_for("Results for “token refresh”", "Fix token refresh race")
    terminal.keys("Enter")
    terminal.wait_for("revision 1", "Two refreshes raced")
    terminal.keys("q")
    terminal.wait_for("Results for")
    terminal.keys("C-c")
    deadline = time.monotonic() + 60
    state = ""
    while not state.startswith("1:"):
        state = terminal.tmux(
            "display", "-p", "-t", "tui", "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}"
        ).strip()
        assert time.monotonic() < deadline, f"pane {state!r}; screen:\n{terminal.screen()}"
        time.sleep(0.2)
    # Ctrl+C quits: the app leaves the terminal, never killed by a signal, never with an error
    # status. (tmux sometimes marks the pane dead without recording the status at all: '1::'.)
    _dead, status, signal = [*state.split(":"), "", ""][:3]
    assert signal == "" and status in ("", "0"), state
    assert "Traceback" not in terminal.screen()
