"""``engram embed``: semantic recall's status, the backfill, and the store's search mode."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from engram.cli.output import emit_json


class SearchMode(StrEnum):
    """``hybrid``: lexical fused with vectors (the default with the extra); ``lexical``."""

    HYBRID = "hybrid"
    LEXICAL = "lexical"


def embed_command(
    backfill: Annotated[
        bool,
        typer.Option(
            "--backfill",
            help="Embed every memory without a vector of the current model (resumable).",
        ),
    ] = False,
    mode: Annotated[
        SearchMode | None,
        typer.Option("--mode", help="Store the search mode for this store: hybrid or lexical."),
    ] = None,
    use: Annotated[
        str | None,
        typer.Option("--use", help="Store which installed embedder to use ('default' resets)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Show semantic recall's status; --backfill embeds existing memories."""
    from engram.cli.selection import open_store
    from engram.memory import embedding

    with open_store() as store:
        if mode is not None:
            embedding.set_mode(store, mode.value)
        if use is not None:
            embedding.set_embedder(store, None if use == "default" else use)
        made = 0
        if backfill:
            made = _backfill(store, quiet=as_json)
        status = embedding.status(store)
    if as_json:
        emit_json({**status.to_dict(), "backfilled": made})
        return
    if backfill:
        typer.echo(f"embedded {made} memories")
    typer.echo(status.reason)
    if status.on:
        typer.echo(f"model {status.model}: {status.embedded} memories embedded")
        typer.echo(f"vector search: {status.backend}")
        typer.echo(status.index)
    for model, count in status.other_models.items():
        typer.echo(
            f"{count} memories carry vectors of {model}, which search does not mix in:"
            " run `engram embed --backfill` to re-embed them"
        )
    if status.on and status.missing:
        typer.echo(f"{status.missing} memories have no vector yet: run `engram embed --backfill`")


def _backfill(store: object, *, quiet: bool) -> int:
    from engram.memory import embedding
    from engram.store.db import Store

    assert isinstance(store, Store)
    if quiet:
        return embedding.backfill(store)
    total = embedding.status(store).missing
    with typer.progressbar(length=max(total, 1), label="embedding", file=None) as bar:
        seen = 0

        def advance(done: int, _total: int) -> None:
            nonlocal seen
            bar.update(done - seen)
            seen = done

        return embedding.backfill(store, progress=advance)


def register(app: typer.Typer) -> None:
    """Add ``engram embed`` to the root app."""
    app.command("embed")(embed_command)
