"""``engram tui`` and ``engram obsidian-export`` from the command line, as real subprocesses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

ENGRAM = str(Path(sys.executable).with_name("engram"))


def run(sandbox: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENGRAM, *args],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
        check=False,
    )


def python(sandbox: Sandbox, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
        check=False,
    )


def test_tui_without_textual_is_a_one_line_error(sandbox: Sandbox) -> None:
    done = python(
        sandbox,
        "import sys; sys.modules['textual'] = None\n"
        "from engram.cli.entry import main\n"
        "sys.exit(main(['tui', '--all']))",
    )
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(
        "error: the terminal UI needs the 'tui' extra, which is not installed — "
    )
    assert "tui" in line.split("[")[-1], line  # the command that adds it names the extra
    assert done.stdout == ""


def test_other_commands_never_import_textual(sandbox: Sandbox) -> None:
    assert run(sandbox, "save", "A note", "body", "--project", "acme").returncode == 0
    done = python(
        sandbox,
        "import sys\n"
        "from engram.cli.entry import main\n"
        "for args in (['--help'], ['tui', '--help'], ['stats', '--all'],"
        " ['obsidian-export', '--all', '--out', 'vault']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_tui_refuses_an_unknown_project(sandbox: Sandbox) -> None:
    done = run(sandbox, "tui", "--project", "nope")
    assert done.returncode == 1
    assert done.stderr.startswith("error: unknown project 'nope'")
    assert len(done.stderr.splitlines()) == 1


def test_obsidian_export_reports_and_keeps_edits(sandbox: Sandbox) -> None:
    for title in ("First note", "Second note"):
        assert run(sandbox, "save", title, f"{title} body", "--project", "acme").returncode == 0
    out = sandbox.root / "vault"
    first = run(sandbox, "obsidian-export", "--project", "acme", "--out", str(out))
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(f"exported 5 notes to {out}: 5 new, 0 updated")
    # Engram.md, the project, its session and the two observations.
    mine = out / "observations" / "acme" / "1 First note.md"
    mine.write_text(mine.read_text(encoding="utf-8") + "\nmine\n", encoding="utf-8")
    second = run(sandbox, "obsidian-export", "--project", "acme", "--out", str(out))
    assert second.stdout.splitlines() == [
        f"exported 5 notes to {out}: 0 new, 0 updated, 4 unchanged, 0 removed",
        "kept 1 note you edited (not overwritten):",
        "  observations/acme/1 First note.md",
    ]
    assert mine.read_text(encoding="utf-8").endswith("\nmine\n")


def test_obsidian_export_into_a_file_is_a_one_line_error(sandbox: Sandbox) -> None:
    assert run(sandbox, "save", "A note", "body", "--project", "acme").returncode == 0
    target = sandbox.root / "plain.txt"
    target.write_text("keep me", encoding="utf-8")
    done = run(sandbox, "obsidian-export", "--all", "--out", str(target))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"error: {target} exists and is not a folder"
        " — pass --out with a folder (a vault, or a folder inside one)"
    ]
    assert target.read_text(encoding="utf-8") == "keep me"
