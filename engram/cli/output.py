"""How CLI commands print: stable JSON for ``--json``, plain lines otherwise, warnings on stderr.

JSON output is the contract scripts rely on: keys keep the order the memory layer gives them,
non-ASCII text is written as-is, and every document ends with a newline.
"""

from __future__ import annotations

import json
from typing import Any

import typer


def emit_json(data: Any) -> None:
    """Print one JSON document on stdout."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def warn(message: str | None) -> None:
    """Print a warning on stderr (nothing for an empty message)."""
    if message:
        typer.echo(f"warning: {message}", err=True)


def one_line(text: str, width: int = 100) -> str:
    """Text squeezed onto one line and cut at ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``1 mutation``, ``2 mutations``, ``0 mutations`` (``plural_form`` for irregular nouns)."""
    return f"{count} {noun if count == 1 else plural_form or noun + 's'}"
