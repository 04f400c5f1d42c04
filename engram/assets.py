"""Where the shipped assets (``templates/``, ``skills/``, ``plugin/``) live at run time.

In a wheel they are packaged under ``engram/_assets``; in a source checkout (editable install)
they are the top-level folders beside the package.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def asset_root() -> Path:
    """The folder that holds ``templates``, ``skills`` and ``plugin``."""
    packaged = Path(__file__).parent / "_assets"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent


def asset_path(*parts: str) -> Path:
    """Path of one shipped asset, e.g. ``asset_path("skills", "memory-protocol", "SKILL.md")``."""
    return asset_root().joinpath(*parts)
