"""Which PostgreSQL server binaries the embedded team database runs: the ``pgserver`` wheel's
(part of the ``[cloud]`` extra; located, never imported) or the system's, of a given major version.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from engram.errors import EngramError

_SYSTEM_BIN_GLOB = "/usr/lib/postgresql/*/bin"


@dataclass(frozen=True)
class PostgresBinaries:
    """A folder holding ``initdb`` and ``postgres`` of one major version."""

    bindir: Path
    major: str
    source: str  # "pgserver" or "system"

    @property
    def root(self) -> Path:
        """The folder that holds everything the binaries load (pgserver's libraries sit in
        ``site-packages/pgserver.libs``, three levels above its ``bin``)."""
        return self.bindir.parents[2] if self.source == "pgserver" else self.bindir.parent

    def tool(self, name: str) -> str:
        """The absolute path of one binary."""
        return str(self.bindir / name)


def _pgserver_bindir() -> Path | None:
    # Located without importing pgserver: its __init__ starts background machinery.
    spec = find_spec("pgserver")
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "pginstall" / "bin"
        if (candidate / "postgres").exists():
            return candidate
    return None


def _candidates() -> Iterator[tuple[Path, str]]:
    bundled = _pgserver_bindir()
    if bundled is not None:
        yield bundled, "pgserver"
    for folder in sorted(Path("/").glob(_SYSTEM_BIN_GLOB.lstrip("/")), reverse=True):
        yield folder, "system"
    found = shutil.which("initdb")
    if found:
        yield Path(found).resolve().parent, "system"


def _major_of(bindir: Path) -> str | None:
    try:
        out = subprocess.run(
            [str(bindir / "postgres"), "--version"], capture_output=True, text=True, timeout=20
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\b(\d+)(?:\.\d+)?", out)
    return match.group(1) if match else None


def find_binaries(major: str | None = None) -> PostgresBinaries:
    """The first PostgreSQL whose ``initdb`` and ``postgres`` run (of ``major`` when given).

    Raises:
        EngramError: ``cloud.postgres_missing`` when none fits.
    """
    seen: list[str] = []
    for bindir, source in _candidates():
        if not (bindir / "initdb").exists() or not (bindir / "postgres").exists():
            continue
        found = _major_of(bindir)
        if found is None:
            continue
        seen.append(found)
        if major is None or found == major:
            return PostgresBinaries(bindir, found, source)
    if major is not None and seen:
        raise EngramError(
            "cloud.postgres_missing",
            f"the team database was made by PostgreSQL {major}, but only {', '.join(sorted(set(seen)))} is installed",
            f"install PostgreSQL {major} (or the pgserver version that ships it)",
        )
    raise EngramError(
        "cloud.postgres_missing",
        "no PostgreSQL server binaries found for the embedded team database",
        "install the cloud extra (it ships PostgreSQL: pgserver), or set ENGRAM_DATABASE_URL",
    )
