"""The root command a user expects: --version/-V, `engram help [command]`, shell completion, and
the once-a-day release check (against a local fake package index)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engram import __version__
from engram.testing import Sandbox

ENGRAM = str(Path(sys.executable).parent / "engram")


def run(sandbox: Sandbox, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENGRAM, *args],
        capture_output=True,
        text=True,
        env=sandbox.env(**env),
        cwd=sandbox.workspace,
        timeout=60,
    )


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag(sandbox: Sandbox, flag: str) -> None:
    done = run(sandbox, flag)
    assert done.returncode == 0 and done.stdout == f"engram {__version__}\n"


def test_help_for_the_root_and_for_a_subcommand(sandbox: Sandbox) -> None:
    root = run(sandbox, "help")
    assert root.returncode == 0 and "Commands:" in root.stdout and "link" in root.stdout
    merge = run(sandbox, "help", "projects", "merge")
    assert merge.returncode == 0, merge.stderr
    assert merge.stdout.startswith("Usage: engram projects merge")
    assert run(sandbox, "-h").stdout == run(sandbox, "--help").stdout


def test_help_for_an_unknown_command_is_a_one_line_error(sandbox: Sandbox) -> None:
    done = run(sandbox, "help", "projects", "nope")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: no command 'projects nope' — run `engram help` for the list of commands"
    ]


def test_shell_completion_completes_commands_and_subcommands(sandbox: Sandbox) -> None:
    # The script is for the shell engram runs under (typer asks shellingham, which walks the
    # parent processes): run it from bash, which stays its parent, not from whatever runs pytest.
    script = subprocess.run(
        ["bash", "-c", f"{ENGRAM} --show-completion; exit $?"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert script.returncode == 0, script.stderr
    assert "_ENGRAM_COMPLETE=complete_bash" in script.stdout
    words = run(sandbox, _ENGRAM_COMPLETE="complete_bash", COMP_WORDS="engram proj", COMP_CWORD="1")
    assert words.stdout.split() == ["projects"]
    words = run(
        sandbox, _ENGRAM_COMPLETE="complete_bash", COMP_WORDS="engram projects me", COMP_CWORD="2"
    )
    assert words.stdout.split() == ["merge"]


class FakeIndex:
    """A package index's JSON API on a free loopback port, counting requests."""

    def __init__(self, version: str) -> None:
        self.requests = 0
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests += 1
                body = json.dumps({"info": {"name": "engram-keeper", "version": version}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/pypi/engram-keeper/json"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def index() -> Iterator[FakeIndex]:
    fake = FakeIndex("99.0.0")
    yield fake
    fake.close()


def checking(sandbox: Sandbox, url: str) -> dict[str, str]:
    env = sandbox.env(ENGRAM_UPDATE_INDEX_URL=url)
    env.pop("ENGRAM_NO_UPDATE_CHECK")
    return env


def run_env(sandbox: Sandbox, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENGRAM, *args], capture_output=True, text=True, env=env, cwd=sandbox.workspace, timeout=60
    )


def test_a_newer_release_is_announced_once_a_day(sandbox: Sandbox, index: FakeIndex) -> None:
    env = checking(sandbox, index.url)
    first = run_env(sandbox, env, "stats")
    assert first.returncode == 0, first.stderr
    assert f"engram 99.0.0 is available (you have {__version__})" in first.stderr
    assert index.requests == 1
    again = run_env(sandbox, env, "stats")
    assert again.returncode == 0 and "available" not in again.stderr
    assert index.requests == 1  # checked less than a day ago: no request at all


@pytest.mark.parametrize("args", [["version"], ["--version"], ["help"], ["help", "stats"]])
def test_version_and_help_never_check(sandbox: Sandbox, index: FakeIndex, args: list[str]) -> None:
    done = run_env(sandbox, checking(sandbox, index.url), *args)
    assert done.returncode == 0 and done.stderr == ""
    assert index.requests == 0


def test_the_opt_out_variable_is_honoured(sandbox: Sandbox, index: FakeIndex) -> None:
    env = {**checking(sandbox, index.url), "ENGRAM_NO_UPDATE_CHECK": "1"}
    assert run_env(sandbox, env, "stats").returncode == 0
    assert index.requests == 0


def test_offline_is_silent(sandbox: Sandbox) -> None:
    fake = FakeIndex("99.0.0")
    url = fake.url
    fake.close()  # nothing listens there any more
    done = run_env(sandbox, checking(sandbox, url), "stats")
    assert done.returncode == 0 and done.stderr == ""


def test_an_older_or_equal_release_says_nothing(sandbox: Sandbox) -> None:
    fake = FakeIndex(__version__)
    try:
        done = run_env(sandbox, checking(sandbox, fake.url), "stats")
        assert done.returncode == 0 and done.stderr == ""
        assert fake.requests == 1
    finally:
        fake.close()
