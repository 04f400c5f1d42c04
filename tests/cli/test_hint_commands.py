"""Every command line and flag that Engram's own messages and docs tell a user to run must exist.

The test reads every string literal under ``engram/`` (docstrings aside) and every page under
``docs/``, picks out each command a message names — a backticked ``engram …``, "run engram …",
or a docs code line starting with ``engram`` — and walks it through
the real typer app: each sub-command must exist and each ``--flag`` must be an option of the
command it follows. Flags a remedy names on their own (``pass --from NAME``) must be an option
of some Engram command. A new hint that names a command or flag that is not there fails here.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import typer

from engram.cli.app import build_app

PACKAGE = Path(__file__).resolve().parents[2] / "engram"
DOCS = PACKAGE.parent / "docs"
COMMAND = re.compile(r"`(engram [^`]*)`|\b(?:run|use|try|then|rerun) (engram [^;,.()'\"—]*)")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# Calls whose text is shown to a user as what to do next.
REMEDY_CALLS = {"EngramError", "UsageError", "BadParameter"}
REMEDY_KEYWORDS = {"remedy", "hint", "error_hint", "next_step", "fix"}


def literal_text(node: ast.AST) -> str | None:
    """A string literal's text (an f-string's placeholders become ``{}``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def messages() -> Iterator[tuple[str, str]]:
    """``(where, text)`` for every non-docstring string literal under engram/."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # Docstrings, and the pieces of an f-string (read whole through the f-string itself).
        skip = docstrings(tree) | {
            id(part) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for part in n.values
        }
        for node in ast.walk(tree):
            text = literal_text(node)
            if text is not None and id(node) not in skip:
                yield f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}", text


def remedies() -> Iterator[tuple[str, str]]:
    """``(where, text)`` for the remedy/hint argument of every error or hint call."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            parts = [k.value for k in node.keywords if k.arg in REMEDY_KEYWORDS]
            if name in REMEDY_CALLS:
                parts += node.args[2:3] if name == "EngramError" else node.args[:1]
            for part in parts:
                for piece in ast.walk(part):
                    text = literal_text(piece)
                    if text:
                        yield f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", text


def mentioned_commands() -> list[tuple[str, str]]:
    """Command lines named by messages under engram/ and by the pages under docs/."""
    found = []
    for where, text in messages():
        for match in COMMAND.finditer(text):
            found.append((where, (match.group(1) or match.group(2)).strip()))
    return found + documented_commands()


DOC_LINE = re.compile(r"`(engram [^`]*)`|^\s*\$?\s*(engram [^\n#]*)", re.MULTILINE)
# Only lines whose first word could be a command or a flag (not prose like "engram CLI").
COMMAND_WORD = re.compile(r"^engram (-|[a-z][a-z-]*(\s|$))")


def documented_commands() -> list[tuple[str, str]]:
    """``engram …`` lines in docs/ (migrating.md's first column names the Go tool's commands)."""
    found = []
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if path.name == "migrating.md":
            text = "\n".join(row.split("|", 2)[-1] for row in text.splitlines())
        for match in DOC_LINE.finditer(text):
            line = (match.group(1) or match.group(2)).strip()
            if COMMAND_WORD.match(line):
                found.append((str(path.relative_to(DOCS.parent)), line))
    return found


ROOT = typer.main.get_command(build_app())


def resolve(words: list[str]) -> tuple[list[click.Command], int]:
    """The commands a line names (``a|b`` alternatives give one each) and the words used."""
    commands: list[click.Command] = [ROOT]
    context = click.Context(ROOT)
    used = 0
    for word in words:
        if not all(is_group(c) for c in commands) or word.startswith("-"):
            break
        names = word.split("|")
        if not all(n in c.list_commands(context) for c in commands for n in names):  # type: ignore[attr-defined]
            break
        commands = [c.get_command(context, n) for c in commands for n in names]  # type: ignore[attr-defined]
        used += 1
    return commands, used


def is_group(command: object) -> bool:
    """Whether a command has sub-commands (typer's groups are not always click.Group)."""
    return hasattr(command, "list_commands")


def options_of(command: click.Command) -> set[str]:
    """The command's own options; a pass-through command (``engram mcp``) adds the flags its
    ``--help`` prints."""
    found = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    if command.context_settings.get("ignore_unknown_options") and command.name:
        found |= set(FLAG.findall(passed_through_help(command.name)))
    return found | {"--help", "-h"}


@functools.cache
def passed_through_help(name: str) -> str:
    """What ``engram NAME --help`` prints, from a real process."""
    code = "import sys; from engram.cli.app import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, name, "--help"], capture_output=True, text=True, check=False
    )
    return done.stdout + done.stderr


def every_option(command: click.Command = ROOT) -> set[str]:
    found = options_of(command)
    if is_group(command):
        for name in command.list_commands(click.Context(command)):
            sub = command.get_command(click.Context(command), name)
            if sub is not None:
                found |= every_option(sub)
    return found


def test_the_scan_finds_the_hints_it_guards() -> None:
    lines = {line for _, line in mentioned_commands()}
    assert any(line.startswith("engram projects list") for line in lines)
    assert any("--global" in line for line in lines)
    assert sum(1 for _ in remedies()) > 50


@pytest.mark.parametrize(("where", "line"), mentioned_commands())
def test_every_command_a_message_names_exists(where: str, line: str) -> None:
    words = line.replace("\\|", "|").split()[1:]
    commands, used = resolve(words)
    rest = words[used:]
    root_flag = bool(words) and words[0].startswith("-")
    assert root_flag or used, f"{where}: `{line}` names no Engram command"
    if any(is_group(c) for c in commands) and rest:
        # After a group only a sub-command may follow (placeholders like <sub> aside).
        assert not re.fullmatch(r"[a-z][a-z-|]*", rest[0]), f"{where}: `{line}`: no {rest[0]!r}"
    for command in commands:
        known = options_of(command)
        missing = {flag for flag in FLAG.findall(" ".join(rest)) if flag not in known}
        assert not missing, f"{where}: `{line}`: {command.name} has no {sorted(missing)}"


def test_every_flag_a_remedy_names_exists() -> None:
    known = every_option()
    wrong = [
        f"{where}: {flag}"
        for where, text in remedies()
        for flag in FLAG.findall(text)
        if flag not in known
    ]
    assert not wrong, wrong


@pytest.mark.parametrize(
    "line",
    [
        "engram status",
        "engram projects mergee --from a",
        "engram cloud nope",
        "engram link claude --nope",
        "engram mcp --nope",
    ],
)
def test_a_made_up_command_or_flag_is_caught(line: str) -> None:
    with pytest.raises(AssertionError):
        test_every_command_a_message_names_exists("made up", line)
