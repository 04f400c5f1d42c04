"""How this Engram was installed: by ``uv tool``, by ``pipx``, into a virtualenv, or into the
interpreter itself; and from where (the package index, or a local clone). The CLI's
missing-extra messages and doctor's PATH remedies say the command that fits."""

from __future__ import annotations

import json
import os
import sys
from importlib import metadata
from importlib.util import find_spec
from urllib.parse import unquote, urlparse

DISTRIBUTION = "engram-keeper"
# The top-level modules each extra brings (pyproject.toml's optional dependencies).
EXTRAS: dict[str, tuple[str, ...]] = {
    "cloud": ("psycopg", "psycopg_pool", "pgserver"),
    "tui": ("textual",),
    "semantic": ("wordllama", "numpy", "tokenizers"),
}


def installed_extras() -> list[str]:
    """The extras whose first module can be found (nothing is imported)."""
    found = []
    for extra, modules in EXTRAS.items():
        try:
            if find_spec(modules[0]) is not None:
                found.append(extra)
        except (ImportError, ValueError):
            continue
    return found


def command_adding(extra: str, prefix: str | None = None) -> str:
    """The one command that adds ``extra`` and keeps the extras installed now."""
    return install_command([*installed_extras(), extra], prefix)


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


def install_source() -> tuple[str, bool]:
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


def install_command(extras: list[str], prefix: str | None = None) -> str:
    """The one command that (re)installs Engram with ``extras`` the way it is installed now."""
    source, editable = install_source()
    spec = f"'{source}[{','.join(sorted(set(extras)))}]'" if extras else f"'{source}'"
    method = install_method(prefix)
    if method == "uv-tool":
        return f"uv tool install --compile-bytecode {spec}"
    if method == "pipx":
        return f"pipx install --force {spec}"
    editable_flag = "-e " if editable else ""
    if method == "venv" and _installer() == "uv":  # a uv-made venv has no pip
        return f"uv pip install --python {sys.executable} {editable_flag}{spec}"
    return f"{sys.executable} -m pip install {editable_flag}{spec}"


def _installer() -> str:
    try:
        return (metadata.distribution(DISTRIBUTION).read_text("INSTALLER") or "").strip()
    except metadata.PackageNotFoundError:
        return ""
