"""docs/team.md, run verbatim: Engram installed the README's way into an empty home, then every
command of both walkthroughs, in the page's order, each block in the terminal it names (a bash
session per terminal: its exported variables and folder carry over). The block marked "runs
until stopped" (`engram cloud serve`) runs in the background until the end. The only change:
the page's port 8080 becomes a free one, so parallel test runs never meet.

So the page cannot drift: a command that changes or breaks fails this test.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.e2e.conftest import ANSI, NPM_BIN, REPO, VENV_BIN
from tests.e2e.readme_install import readme_install_argv

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAGE = REPO / "docs" / "team.md"
BLOCK = re.compile(
    r"<!-- terminal: (?P<name>[\w-]+)(?P<rest>[^>]*)-->\n```sh\n(?P<code>.*?)```", re.S
)
CACHE = NPM_BIN.parents[2]


@dataclass
class Block:
    terminal: str
    code: str
    background: bool


def page_blocks() -> list[Block]:
    text = PAGE.read_text(encoding="utf-8")
    blocks = [
        Block(m["name"], m["code"], "runs until stopped" in m["rest"]) for m in BLOCK.finditer(text)
    ]
    # Every sh block of the page belongs to a terminal: none is left out of the test.
    assert len(blocks) == text.count("```sh\n"), "an sh block in docs/team.md has no terminal"
    return blocks


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Terminals:
    """One bash session per terminal name, replayed block by block."""

    def __init__(self, sandbox: Sandbox, port: int) -> None:
        self.home = sandbox.home
        self.port = port
        self.bin = self.home / ".local" / "bin"
        self.state = sandbox.root / "terminals"
        self.state.mkdir()
        self.background: list[subprocess.Popen[str]] = []
        env = sandbox.env(
            PATH=os.pathsep.join([str(self.bin), "/usr/local/bin", "/usr/bin", "/bin"]),
            UV_CACHE_DIR=str(CACHE / "uv"),
            UV_TOOL_DIR=str(self.home / ".local/share/uv/tools"),
            UV_TOOL_BIN_DIR=str(self.bin),
            UV_PYTHON_DOWNLOADS="never",
            NO_COLOR="1",
            CI="1",
            GIT_AUTHOR_NAME="Demo",
            GIT_AUTHOR_EMAIL="demo@example.com",
            GIT_COMMITTER_NAME="Demo",
            GIT_COMMITTER_EMAIL="demo@example.com",
        )
        for key in ("ENGRAM_DATA_DIR", "PYTHONPATH", "VIRTUAL_ENV"):
            env.pop(key, None)  # a fresh machine: the data dir is ~/.engram unless a block says
        self.env = env

    def install(self) -> None:
        argv = readme_install_argv()
        done = subprocess.run(
            [str(VENV_BIN / "uv"), *argv[1:], "--quiet"],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=REPO,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr

    def _script(self, block: Block) -> str:
        state, where = self.state / f"{block.terminal}.env", self.state / f"{block.terminal}.pwd"
        code = block.code.replace("8080", str(self.port))
        prologue = f"set -euo pipefail\n[ -f {state} ] && source {state}\n"
        prologue += f'cd "$(cat {where} 2>/dev/null || echo "$HOME")"\n'
        if block.background:
            return prologue + f"exec {code.strip()}\n"
        return (
            prologue + code + f"\nexport -p | grep -v ' PWD=\\| OLDPWD=' > {state}\npwd > {where}\n"
        )

    def run(self, block: Block) -> str:
        if block.background:
            log = open(self.state / f"{block.terminal}.log", "w")  # noqa: SIM115
            self.background.append(
                subprocess.Popen(
                    ["bash", "-c", self._script(block)],
                    env={**self.env, "ENGRAM_PORT": str(self.port)},
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
            self._wait_healthy(log.name)
            return ""
        done = subprocess.run(
            ["bash", "-c", self._script(block)],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        out = ANSI.sub("", done.stdout + done.stderr)
        assert "Traceback" not in out, out
        assert done.returncode == 0, f"[{block.terminal}] {block.code}\n{out}"
        return out

    def _wait_healthy(self, log: str) -> None:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert self.background[-1].poll() is None, Path(log).read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        raise AssertionError(Path(log).read_text())

    def stop(self) -> None:
        for process in self.background:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=60)


@pytest.fixture
def terminals(sandbox: Sandbox) -> Iterator[Terminals]:
    shells = Terminals(sandbox, free_port())
    shells.install()
    yield shells
    shells.stop()


def test_every_command_of_docs_team_md_works_verbatim(terminals: Terminals) -> None:
    outputs: list[tuple[Block, str]] = []
    for block in page_blocks():
        outputs.append((block, terminals.run(block)))
    said = "\n".join(out for _, out in outputs)
    # What the page promises each step shows.
    searches = [out for block, out in outputs if "engram search" in block.code]
    assert "Deploy with make release" in searches[0]  # Bob sees Alice's git-synced memory
    assert "test_checkout times out" in searches[1]  # and Alice sees Bob's
    assert "exponential backoff" in searches[2]  # Bob sees Alice's memory through the cloud
    assert "bob" in said and "created member bob" in said
    for token in (terminals.home / "alice.token", terminals.home / "bob.token"):
        assert token.read_text().startswith("egc_"), token.read_text()
    # The server and its database stop with Ctrl-C/SIGTERM; nothing is left running.
    state = terminals.home / ".engram" / "team-server" / "postgres.json"
    pid = int(json.loads(state.read_text())["pid"])
    terminals.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
