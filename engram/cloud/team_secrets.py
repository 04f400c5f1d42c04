"""The embedded team server's secrets and the settings they give the cloud app.

``<data dir>/team-server/secrets.json`` (0600) holds the database password, the JWT secret and the
token pepper, made once; :func:`server_environment` completes ``engram cloud serve``'s environment
with them, so tokens issued by ``bootstrap`` verify on every restart.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from engram.errors import EngramError
from engram.store.datadir import write_private_file

if TYPE_CHECKING:
    from engram.cloud.embedded_postgres import EmbeddedPostgres

SECRET_NAMES = ("database_password", "jwt_secret", "token_pepper")


def load_secrets(folder: Path, *, create: bool = True) -> dict[str, str]:
    """The team server's secrets, generated once and kept in ``secrets.json`` (0600).

    Raises:
        EngramError: ``cloud.secrets_unreadable`` when the file exists but is damaged or
            readable by others; ``cloud.embedded_missing`` when it is missing and ``create`` is
            False.
    """
    path = folder / "secrets.json"
    try:
        info = path.lstat()
    except FileNotFoundError:
        if not create:
            raise EngramError(
                "cloud.embedded_missing",
                f"no team server has been set up in {folder}",
                "run `engram cloud serve` once (it creates the database and its secrets)",
            ) from None
        made = {name: secrets.token_urlsafe(32) for name in SECRET_NAMES}
        make_private_folder(folder)
        write_private_file(path, json.dumps(made, indent=2) + "\n")
        return made
    if not path.is_file() or path.is_symlink() or info.st_mode & 0o077:
        raise _secrets_refused(path, "is not a private regular file (it must be mode 0600)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise _secrets_refused(path, f"cannot be read ({exc.__class__.__name__})") from None
    if not isinstance(data, dict) or not all(
        isinstance(data.get(name), str) and len(data[name]) >= 32 for name in SECRET_NAMES
    ):
        raise _secrets_refused(path, "is missing a secret")
    return {name: str(data[name]) for name in SECRET_NAMES}


def _secrets_refused(path: Path, why: str) -> EngramError:
    return EngramError(
        "cloud.secrets_unreadable",
        f"{path} {why}",
        "restore it from a backup; without it the team database cannot be opened",
    )


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` (and its parents) mode 0700, tightening it when it exists."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)


_KEPT = {"ENGRAM_JWT_SECRET": "jwt_secret", "ENGRAM_CLOUD_TOKEN_PEPPER": "token_pepper"}


def server_environment(pg: EmbeddedPostgres, env: Mapping[str, str]) -> dict[str, str]:
    """``env`` completed for a server over ``pg``: its DSN, the kept JWT secret and token
    pepper (so tokens issued by ``bootstrap`` verify), and every project allowed unless the
    user narrowed it.

    Raises:
        EngramError: ``cloud.secret_mismatch`` when the environment sets a secret that differs
            from the one this team server was set up with (tokens would stop verifying).
    """
    merged = dict(env)
    merged["ENGRAM_DATABASE_URL"] = pg.dsn
    kept = pg.secrets
    for variable, name in _KEPT.items():
        given = merged.get(variable, "").strip()
        if given and given != kept[name]:
            raise EngramError(
                "cloud.secret_mismatch",
                f"{variable} differs from the one this team server keeps in {pg.folder / 'secrets.json'}",
                f"unset {variable} (the embedded team server uses its own), or set ENGRAM_DATABASE_URL",
            )
        merged[variable] = kept[name]
    if not merged.get("ENGRAM_CLOUD_ALLOWED_PROJECTS", "").strip():
        merged["ENGRAM_CLOUD_ALLOWED_PROJECTS"] = "*"
    return merged
