"""``engram migrate``: convert a Go engram store (or apply pending migrations) in place."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from engram.cli.output import emit_json, plural

if TYPE_CHECKING:
    from engram.memory.store_migration import MigrationOutcome


def migrate_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Convert the database to this Engram's schema (a Go store is backed up first)."""
    from engram.memory.store_migration import migrate_store

    outcome = migrate_store()
    if as_json:
        emit_json(outcome.to_dict())
        return
    if outcome.state == "missing":
        typer.echo(f"no database at {outcome.path} yet: nothing to migrate")
    elif outcome.state == "current":
        typer.echo(f"{outcome.path} is already at schema version {outcome.schema_version}")
    elif outcome.state == "migrated":
        typer.echo(
            f"migrated {outcome.path} from schema version {outcome.from_version} to "
            f"{outcome.schema_version}"
        )
    else:
        _print_conversion(outcome)


def _print_conversion(outcome: MigrationOutcome) -> None:
    copied = outcome.copied
    typer.echo(
        f"converted the Go engram store ({outcome.go_flavour} schema) {outcome.path} to schema "
        f"version {outcome.schema_version}"
    )
    typer.echo(f"backup (verified): {outcome.backup}  (-wal/-shm beside it where present)")
    names = {"user_prompts": "prompts", "memory_relations": "relations"}
    typer.echo(
        "kept: " + ", ".join(f"{n} {names.get(t, t).replace('_', ' ')}" for t, n in copied.items())
    )
    if outcome.placeholder_sessions:
        typer.echo(
            f"{plural(outcome.placeholder_sessions, 'session')} the Go rows named but did not hold were "
            "recreated, so every row keeps its session"
        )
    if outcome.kept_tables:
        typer.echo("kept as they were (no counterpart here): " + ", ".join(outcome.kept_tables))


def register(app: typer.Typer) -> None:
    """Add ``migrate`` to the root app."""
    app.command("migrate")(migrate_command)
