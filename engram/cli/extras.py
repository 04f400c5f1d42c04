"""Optional extras: which one a missing module belongs to, and the command that adds it the way
this Engram was installed (uv tool, pipx, a virtualenv's pip, or the system's pip; from the
package index or from a clone), keeping the extras already there.

Usage::

    missing_extra_error(exc)   # EngramError for a ModuleNotFoundError of an extra, else None
"""

from __future__ import annotations

import json
import os
import sys
from importlib import metadata
from importlib.util import find_spec
from urllib.parse import unquote, urlparse

from engram.errors import EngramError

DISTRIBUTION = "engram-keeper"
# The top-level modules each extra brings, in the order their names are listed.
EXTRAS: dict[str, tuple[str, ...]] = {
    "cloud": ("psycopg", "psycopg_pool", "pgserver"),
    "tui": ("textual",),
    "semantic": ("wordllama", "sqlite_vec", "numpy"),
}
WHAT = {"cloud": "Engram Cloud", "tui": "the terminal UI", "semantic": "semantic recall"}


def extra_of(module: str | None) -> str | None:
    """The extra whose package provides ``module`` (``psycopg.pq`` -> ``cloud``), or None."""
    top = (module or "").split(".")[0]
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)


def installed_extras() -> list[str]:
    """The extras whose first module can be found (nothing is imported)."""
    return [extra for extra, mods in EXTRAS.items() if find_spec(mods[0]) is not None]


def _source() -> tuple[str, bool]:
    """What was installed: a local folder (a clone) and whether editable, or the index name."""
    try:
        raw = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        info = json.loads(raw or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return DISTRIBUTION, False
    url = str(info.get("url", ""))
    if url.startswith("file://"):
        editable = bool((info.get("dir_info") or {}).get("editable"))
        return unquote(urlparse(url).path), editable
    return DISTRIBUTION, False


def install_method(prefix: str | None = None) -> str:
    """``uv-tool``, ``pipx``, ``venv`` or ``pip`` for the environment at ``prefix``."""
    prefix = prefix or sys.prefix
    if os.path.exists(os.path.join(prefix, "uv-receipt.toml")):
        return "uv-tool"
    if os.path.exists(os.path.join(prefix, "pipx_metadata.json")):
        return "pipx"
    if prefix != sys.base_prefix:
        return "venv"
    return "pip"


def install_command(extra: str, prefix: str | None = None) -> str:
    """The one command that adds ``extra`` (and keeps the extras installed now)."""
    wanted = sorted({*installed_extras(), extra})
    source, editable = _source()
    spec = f"'{source}[{','.join(wanted)}]'"
    method = install_method(prefix)
    if method == "uv-tool":
        return f"uv tool install --compile-bytecode {spec}"
    if method == "pipx":
        return f"pipx install --force {spec}"
    pip = f"{sys.executable} -m pip install"
    return f"{pip} {'-e ' if editable else ''}{spec}"


def missing_extra_error(exc: ModuleNotFoundError) -> EngramError | None:
    """A one-line error naming the extra a missing module belongs to, or None."""
    extra = extra_of(exc.name)
    if extra is None:
        return None
    return EngramError(
        f"{extra}.not_installed",
        f"{WHAT[extra]} needs the '{extra}' extra, which is not installed",
        install_command(extra),
    )
