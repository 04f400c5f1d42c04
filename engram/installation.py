"""How this Engram was installed: by ``uv tool``, by ``pipx``, into a virtualenv, or into the
interpreter itself; and from where (the package index, or a local clone). The CLI's
missing-extra messages and doctor's PATH remedies say the command that fits."""

from __future__ import annotations

import json
import os
import sys
from importlib import metadata
from urllib.parse import unquote, urlparse

DISTRIBUTION = "engram-keeper"


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
    return f"{sys.executable} -m pip install {'-e ' if editable else ''}{spec}"
