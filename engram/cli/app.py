"""The ``engram`` root command.

Each command group lives in its own module under ``engram.cli`` and exposes
``register(app: typer.Typer) -> None``. Command modules import heavy dependencies (the store,
pydantic models, the MCP SDK) inside the command functions, so ``engram --help`` and every
``--help`` answer without opening the store.

Exit codes: 0 success, 1 error (an :class:`~engram.errors.EngramError`), 2 usage.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from typing import Annotated, Any

import typer

from engram import __version__
from engram.errors import EngramError

# click's exceptions, wherever this typer keeps them (newer releases vendor click).
_CLICK = sys.modules[typer.BadParameter.__module__]

# Command modules, in help order. Each defines register(app).
COMMAND_MODULES: list[str] = [
    "memories",
    "observations",
    "recall",
    "review",
    "embed",
    "backup",
    "migrate",
    "sync",
    "projects",
    "project_cleanup",
    "conflicts",
    "governed",
    "browse",
    "obsidian",
    "link",
    "setup",
    "doctor",
    "selftest",
    "upgrade",
    "hook",
    "mcp",
    "serve",
    "cloud",
    "service",
]

app = typer.Typer(
    name="engram",
    help="Memory for AI coding agents that outlives a session.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"engram {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_print_version,
            is_eager=True,
            help="Show the installed Engram version and exit.",
        ),
    ] = False,
) -> None:
    """Memory for AI coding agents that outlives a session."""
    import os

    if not ctx.resilient_parsing and not os.environ.get("_ENGRAM_COMPLETE"):
        from engram.cli.update_check import maybe_notify

        maybe_notify(ctx.invoked_subcommand, __version__)


@app.command("help")
def help_command(
    ctx: typer.Context,
    command: Annotated[
        list[str] | None,
        typer.Argument(
            help="A command (and subcommand), e.g. `projects merge`.", show_default=False
        ),
    ] = None,
) -> None:
    """Show help for Engram or for one command (`engram help projects merge`)."""
    root_ctx = ctx.find_root()
    group: Any = root_ctx.command
    parent: Any = root_ctx
    for name in command or []:
        lookup = getattr(group, "get_command", None)
        sub = lookup(parent, name) if lookup is not None else None
        if sub is None:
            raise EngramError(
                "cli.unknown_command",
                f"no command {' '.join(command or [])!r}",
                "run `engram help` for the list of commands",
            )
        parent = type(ctx)(sub, info_name=name, parent=parent)
        group = sub
    typer.echo(group.get_help(parent))


@app.command("version")
def version_command() -> None:
    """Show the installed Engram version."""
    typer.echo(f"engram {__version__}")


def build_app() -> typer.Typer:
    """Register every command module on the root app (idempotent)."""
    if not getattr(app, "_engram_registered", False):
        for name in COMMAND_MODULES:
            importlib.import_module(f"engram.cli.{name}").register(app)
        app._engram_registered = True  # type: ignore[attr-defined]
    return app


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run the CLI and turn EngramError into one line + exit 1."""
    # Started with stdout closed (`engram stats >&-`): the answer would vanish. A supervisor may
    # start the server that way, which is fine.
    if sys.stdout is None and (argv or sys.argv[1:])[:1] != ["serve"]:
        typer.echo(
            "error: standard output is closed, so the answer would be lost"
            " — run it again with stdout open (or redirected to a file or /dev/null)",
            err=True,
        )
        return 1
    command = typer.main.get_command(build_app())
    try:
        # Not standalone: usage errors come here to be said on one line, and typer.Exit(code)
        # comes back as the return value.
        code = command.main(args=argv, prog_name="engram", standalone_mode=False)
    except _CLICK.NoArgsIsHelpError as exc:  # `engram` or a group alone: its help, as before
        exc.show()
        return int(exc.exit_code)
    except _CLICK.UsageError as exc:
        typer.echo(f"error: {usage_line(exc)}", err=True)
        return int(exc.exit_code)
    except _CLICK.ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        return int(exc.exit_code)
    except typer.Abort:  # end of input at a prompt
        typer.echo("\nerror: aborted (no answer was given)", err=True)
        return 1
    except BrokenPipeError:  # `engram list | head -1`: the reader left; say nothing
        _silence_stdout()
        return 1
    except EngramError as exc:
        typer.echo(f"error: {exc.one_line()}", err=True)
        return 1
    except UnicodeEncodeError:
        # Non-UTF-8 bytes on the command line arrive as lone surrogates that SQLite cannot
        # store; the write they were meant for never started.
        typer.echo(
            "error: an argument is not valid UTF-8 text; nothing was changed"
            " — pass UTF-8 text (check the terminal's locale)",
            err=True,
        )
        return 1
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except OSError as exc:  # e.g. stdout on a full disk: the output is incomplete
        where = f" ({exc.filename})" if exc.filename else ""
        typer.echo(
            f"error: {exc.strerror or exc}{where}; any output above is incomplete"
            " — check free space, the path and its permissions, then retry",
            err=True,
        )
        return 1
    except ModuleNotFoundError as exc:  # an optional extra that is not installed
        from engram.cli.extras import missing_extra_error

        missing = missing_extra_error(exc)
        if missing is None:
            raise
        typer.echo(f"error: {missing.one_line()}", err=True)
        return 1
    except Exception as exc:
        from engram.store.errors import as_user_error

        mapped = as_user_error(exc)
        if mapped is None:
            raise
        typer.echo(f"error: {mapped.one_line()}", err=True)
        return 1
    return code if isinstance(code, int) and not isinstance(code, bool) else 0


def usage_line(exc: Any) -> str:
    """A usage error on one line, with the help to look at (click prints four)."""
    message = " ".join(exc.format_message().split()).rstrip(".")
    message = message.replace("Value error, ", "")  # pydantic's prefix on typer's coercions
    where = exc.ctx.command_path if exc.ctx is not None else "engram"
    return f"{message} — see `{where} -h`"


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    import os

    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
