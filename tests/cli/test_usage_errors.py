"""Usage mistakes answer with one line on stderr (what is wrong, where to look), exit 2, and
change nothing; `engram` alone still shows its help."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.cli.conftest import Run

ENGRAM = str(Path(sys.executable).parent / "engram")


@pytest.mark.parametrize(
    ("args", "says", "help_of"),
    [
        (["search"], "Missing argument 'query'", "engram search"),
        (["save", "--type", "bogus", "t", "c"], "'bogus' is not one of 'manual'", "engram save"),
        (["bogus"], "No such command 'bogus'", "engram"),
        (["search", "x", "--limit", "abc"], "Invalid value for '--limit'", "engram search"),
        (["search", "x", "--nope"], "No such option: --nope", "engram search"),
        (["projects", "merge"], "Missing option '--from'", "engram projects merge"),
        (["conflicts", "scan", "--concurrency", "x"], "Invalid value for '--concurrency'", None),
    ],
)
def test_a_usage_mistake_is_one_line_and_exit_2(
    engram: Run, sandbox: Sandbox, args: list[str], says: str, help_of: str | None
) -> None:
    done = engram(*args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and says in lines[0]
    assert "Value error," not in lines[0]
    if help_of is not None:
        assert lines[0].endswith(f"see `{help_of} -h`")
    assert not (sandbox.data_dir / "engram.db").exists()  # nothing was opened or written


def test_engram_alone_still_shows_its_help(engram: Run) -> None:
    done = engram()
    assert done.returncode == 2
    assert "Usage: engram" in done.stderr and "Commands" in done.stderr


def test_an_exit_code_chosen_by_a_command_comes_through(engram: Run) -> None:
    # `engram help` for an unknown command is an error of its own (exit 1), not a usage error.
    done = engram("help", "projects", "nope")
    assert done.returncode == 1 and done.stderr.startswith("error: no command")


def test_a_reader_that_went_away_gets_silence(sandbox: Sandbox) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `engram help | head -0`: nobody reads the answer
    try:
        done = subprocess.run(
            [ENGRAM, "help"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=sandbox.env(),
            cwd=sandbox.workspace,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 1
    assert done.stderr == ""


def test_a_closed_stdout_is_an_error_not_a_silent_success(sandbox: Sandbox) -> None:
    done = subprocess.run(
        f"exec {ENGRAM} stats >&-",
        shell=True,
        stderr=subprocess.PIPE,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("error: standard output is closed")


def test_a_misspelt_host_gets_a_did_you_mean() -> None:
    import subprocess
    import sys
    from pathlib import Path

    engram = Path(sys.executable).with_name("engram")
    done = subprocess.run([str(engram), "link", "claud"], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.startswith("error: unknown host 'claud' — did you mean 'claude'? choose")
    done = subprocess.run([str(engram), "link", "xyzzy"], capture_output=True, text=True)
    assert "did you mean" not in done.stderr
