"""``engram export [file]`` and ``engram import <file>``: versioned JSON backups."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from engram.cli.output import emit_json, plural
from engram.errors import EngramError


def export_command(
    file: Annotated[
        Path | None, typer.Argument(help="Where to write the backup (default: stdout).")
    ] = None,
    project: Annotated[
        str | None, typer.Option("--project", help="Export this project (default: current).")
    ] = None,
    all_projects: Annotated[bool, typer.Option("--all", help="Export every project.")] = False,
) -> None:
    """Export memories (sessions, observations with pins, prompts, relations) to JSON."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.backup import export_backup

    with open_store(reading=True) as store:
        backup = export_backup(store, read_project(store, project, all_projects))
    text = json.dumps(backup, indent=2, ensure_ascii=False) + "\n"
    if file is None:
        sys.stdout.write(text)
        return
    _write_atomically(file, text)
    typer.echo(
        f"exported {len(backup['observations'])} observations, {len(backup['sessions'])}"
        f" sessions, {len(backup['prompts'])} prompts, {len(backup['relations'])} relations"
        f" to {file}",
        err=True,
    )


def _write_atomically(path: Path, text: str) -> None:
    """Write through a temp file in the same folder so a failed export leaves no half file."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        os.fchmod(fd, 0o600)  # an export is the whole store: private like the store itself
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):  # e.g. the folder is a file: there is no temp
            temp.unlink(missing_ok=True)
        raise EngramError(
            "backup.write_failed",
            f"cannot write {path}: {exc.strerror}",
            "choose a writable path",
        ) from exc


def import_command(
    file: Annotated[
        Path,
        typer.Argument(help="A backup written by `engram export` (or the --from tool's store)."),
    ],
    from_tool: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Read another tool's store: claude-mem, basic-memory or mcp-memory-service.",
        ),
    ] = None,
    project: Annotated[
        str | None,
        typer.Option("--project", help="With --from: put every memory in this project."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Import a backup in one transaction (a bad file changes nothing), or --from a peer tool."""
    from engram.cli.selection import open_store
    from engram.memory.backup import import_backup

    if from_tool is not None:
        _import_from_tool(from_tool, file, project, as_json)
        return
    if project is not None:
        raise typer.BadParameter("--project goes with --from (a backup keeps its own projects)")

    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        raise EngramError(
            "backup.unreadable", f"cannot read {file}: {why}", "pass an existing backup file"
        ) from exc
    with open_store() as store:
        result = import_backup(store, text, source=str(file))
    if as_json:
        emit_json(result.to_dict())
        return
    typer.echo(
        f"imported {counts(result.observations, result.sessions, result.prompts)},"
        f" {plural(result.relations, 'relation')} ({result.skipped} already present)"
    )
    if result.unowned:
        typer.echo(
            f"{result.unowned} of them belong to no project (the Go tool's legacy rows): "
            "assign one with `engram projects rescue-ownership --project <name> --session <id>`"
        )


def counts(observations: int, sessions: int, prompts: int) -> str:
    """``4 observations, 1 session, 0 prompts``."""
    return (
        f"{plural(observations, 'observation')}, {plural(sessions, 'session')},"
        f" {plural(prompts, 'prompt')}"
    )


def _import_from_tool(tool: str, path: Path, project: str | None, as_json: bool) -> None:
    from engram.cli.selection import detect, open_store
    from engram.importers.run import import_from

    default = ""
    if project is None:
        with contextlib.suppress(EngramError):
            default = detect(None).project

    def progress(read: int, total: int) -> None:
        if total > 500:
            typer.echo(f"{tool}: {read} of {total} records read", err=True)

    with open_store() as store:
        summary = import_from(
            store, tool, path, project=project, default_project=default, progress=progress
        )
    if as_json:
        emit_json(summary.to_dict())
        return
    typer.echo(
        f"imported {counts(summary.observations, summary.sessions, summary.prompts)}"
        f" from {tool} {path} ({plural(summary.read, 'record')} read,"
        f" {summary.skipped} already present)"
    )


def register(app: typer.Typer) -> None:
    """Add ``export`` and ``import`` to the root app."""
    app.command("export")(export_command)
    app.command("import")(import_command)
