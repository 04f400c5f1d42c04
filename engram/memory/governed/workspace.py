"""The workspace a governed call is bound to, and the gitignored files Engram keeps in it.

``<workspace>/.engram/pending-approvals.json`` holds open proposals (token hashes only) and
``<workspace>/.engram/working/`` the working-tier note files. Both are listed in
``<workspace>/.engram/.gitignore`` before either is written, so neither reaches a commit.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from engram.errors import EngramError
from engram.memory.project import require_single, resolve_project

ENGRAM_DIR = ".engram"
PENDING_FILE = "pending-approvals.json"
WORKING_DIR = "working"
IGNORED = (PENDING_FILE, f"{WORKING_DIR}/", "*.lock")


@dataclass(frozen=True, slots=True)
class Workspace:
    """A resolved workspace: absolute path and the project its memories belong to."""

    path: Path
    project: str

    @property
    def engram_dir(self) -> Path:
        """``<workspace>/.engram``."""
        return self.path / ENGRAM_DIR

    @property
    def pending_file(self) -> Path:
        """``<workspace>/.engram/pending-approvals.json``."""
        return self.engram_dir / PENDING_FILE

    @property
    def working_dir(self) -> Path:
        """``<workspace>/.engram/working``."""
        return self.engram_dir / WORKING_DIR

    def prepare(self) -> None:
        """Create ``.engram/`` and make sure its ``.gitignore`` lists Engram's private files."""
        self.engram_dir.mkdir(parents=True, exist_ok=True)
        ignore = self.engram_dir / ".gitignore"
        existing = ignore.read_text(encoding="utf-8") if ignore.exists() else ""
        lines = existing.splitlines()
        missing = [entry for entry in IGNORED if entry not in lines]
        if missing:
            prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
            write_atomic(ignore, prefix + "".join(f"{entry}\n" for entry in missing))


def resolve_workspace(
    path: Path | None = None, project: str | None = None, process_override: str | None = None
) -> Workspace:
    """The workspace for a call: ``path`` (default: cwd) and its project.

    The project follows the usual precedence (explicit, process override, ``ENGRAM_PROJECT``,
    detection from the workspace folder); an ambiguous folder is an error naming candidates.
    """
    root = (path or Path.cwd()).resolve()
    if not root.is_dir():
        raise EngramError(
            "governed.no_workspace",
            f"workspace {root} is not a directory",
            "run from your project folder",
        )
    detection = resolve_project(project, root, process_override=process_override)
    return Workspace(root, require_single(detection))


def write_atomic(path: Path, text: str, mode: int = 0o600) -> None:
    """Replace ``path`` with ``text`` through a temp file + fsync + rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
