"""How a freshly issued raw token reaches the user, once: printed, or written to a private file
(``--token-file``: 0600, never through a symlink) so it need not pass through a terminal or a
shell pipe. ``engram cloud config --token-file`` reads it back."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from engram.errors import EngramError

TokenFileOption = Annotated[
    Path | None,
    typer.Option(
        "--token-file",
        help="Write the token to this file (mode 0600) instead of printing it.",
        dir_okay=False,
    ),
]


def show_token(raw: str | None, token: Mapping[str, Any] | None, token_file: Path | None) -> None:
    """Hand ``raw`` to the user: print it after one line naming it, or write it to
    ``token_file`` and say where."""
    from engram.store.datadir import write_private_file

    if raw is None or token is None:
        return
    label = f"token {token.get('name') or token['id']} ({token['id']})"
    if token_file is None:
        typer.echo(f"{label} — shown once, store it now:")
        typer.echo(raw)
        return
    path = token_file.expanduser().absolute()
    write_private_file(path, raw + "\n")
    typer.echo(f"{label} written to {path} (mode 0600) — keep it secret")


def read_token_file(path: Path) -> str:
    """The token kept in ``path`` (its first line).

    Raises:
        EngramError: ``cloud.token_file`` when it cannot be read, is empty or readable by others.
    """
    path = path.expanduser()
    try:
        info = os.stat(path)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad(path, f"cannot be read ({exc.__class__.__name__})") from None
    if info.st_mode & 0o077:
        raise _bad(path, "is readable by other users (chmod 600 it)")
    token = (text.strip().splitlines() or [""])[0].strip()
    if not token:
        raise _bad(path, "is empty")
    return token


def _bad(path: Path, why: str) -> EngramError:
    return EngramError("cloud.token_file", f"the token file {path} {why}", "issue a new token")
