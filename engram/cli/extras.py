"""Optional extras: which one a missing module belongs to, and the command that adds it the way
this Engram was installed (uv tool, pipx, a virtualenv's pip, or the system's pip; from the
package index or from a clone), keeping the extras already there.

Usage::

    missing_extra_error(exc)   # EngramError for a ModuleNotFoundError of an extra, else None
"""

from __future__ import annotations

from engram import installation
from engram.errors import EngramError

install_method = installation.install_method
EXTRAS = installation.EXTRAS
installed_extras = installation.installed_extras
install_command = installation.command_adding
WHAT = {"cloud": "Engram Cloud", "tui": "the terminal UI", "semantic": "semantic recall"}


def extra_of(module: str | None) -> str | None:
    """The extra whose package provides ``module`` (``psycopg.pq`` -> ``cloud``), or None."""
    top = (module or "").split(".")[0]
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)


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
