"""The git working-tree transport: the ``.engram/`` folder of a repository.

Engram only writes files here; committing, pulling and pushing are the user's git. Layout::

    .engram/
    ├── manifest.json          index of chunks, one line each (merge=union)
    ├── chunks/<id>.jsonl.gz   immutable chunk files
    ├── .gitattributes         manifest.json merge=union
    └── .gitignore             local files that must never be committed
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.edit.atomic import write_atomic
from engram.errors import EngramError
from engram.memory.git_repo import find_git_repo
from engram.sync.chunk import SUFFIX, EncodedChunk
from engram.sync.manifest import ManifestEntry, append_entry, empty_manifest, parse_manifest

GIT_TARGET = "git"
GITIGNORE = (
    "# Written by Engram: local files that must never be committed.\n*.db\n*.db-*\n*.tmp\nlocal/\n"
)
GITATTRIBUTES = (
    "# Written by Engram: two clones that each add a chunk merge without conflict.\n"
    "manifest.json merge=union\n"
)


@dataclass(frozen=True, slots=True)
class SyncFolder:
    """The ``.engram`` folder of one repository (``path``); ``repo_root`` is its parent."""

    repo_root: Path

    @property
    def path(self) -> Path:
        """``<repo>/.engram``."""
        return self.repo_root / ".engram"

    @property
    def chunks_dir(self) -> Path:
        """``<repo>/.engram/chunks``."""
        return self.path / "chunks"

    @property
    def manifest_path(self) -> Path:
        """``<repo>/.engram/manifest.json``."""
        return self.path / "manifest.json"

    def prepare(self) -> None:
        """Create the folder, its ``.gitignore``/``.gitattributes`` and an empty manifest."""
        try:
            self.chunks_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _write_error(self.chunks_dir, exc) from exc
        for name, text in ((".gitignore", GITIGNORE), (".gitattributes", GITATTRIBUTES)):
            if not (self.path / name).exists():
                write_atomic(self.path / name, text)
        if not self.manifest_path.exists():
            write_atomic(self.manifest_path, empty_manifest())

    def manifest(self) -> list[ManifestEntry]:
        """The manifest's entries (none when there is no manifest)."""
        try:
            return parse_manifest(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as exc:
            raise EngramError(
                "sync.bad_manifest",
                f"cannot read {self.manifest_path}: {getattr(exc, 'strerror', None) or exc}",
                "restore it from git (git checkout -- .engram/manifest.json)",
            ) from exc

    def chunk_files(self) -> dict[str, Path]:
        """Chunk files on disk by id (files with any other name are ignored)."""
        try:
            entries = list(self.chunks_dir.iterdir())
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise EngramError(
                "sync.bad_folder",
                f"cannot list {self.chunks_dir}: {exc.strerror or exc}",
                "make .engram/chunks a readable folder (restore it from git)",
            ) from exc
        # Every *.jsonl.gz counts, so a misnamed file is refused by name instead of ignored.
        return {
            entry.name[: -len(SUFFIX)]: entry
            for entry in entries
            if entry.name.endswith(SUFFIX) and not entry.name.startswith(".")
        }

    def holds_go_chunks(self) -> bool:
        """Whether the Go tool syncs here too: a Go chunk file, or a manifest in its layout."""
        from engram.sync.formats.go_chunk import is_go_chunk_id
        from engram.sync.formats.go_manifest import is_go_manifest

        if any(is_go_chunk_id(chunk_id) for chunk_id in self.chunk_files()):
            return True
        try:
            return is_go_manifest(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            return False

    def manifest_text(self) -> str:
        """The manifest's text (``""`` when there is none)."""
        try:
            return self.manifest_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except (OSError, UnicodeDecodeError) as exc:
            raise EngramError(
                "sync.bad_manifest",
                f"cannot read {self.manifest_path}: {getattr(exc, 'strerror', None) or exc}",
                "restore it from git (git checkout -- .engram/manifest.json)",
            ) from exc

    def write_chunk(
        self, chunk: EncodedChunk, entry: ManifestEntry, go_entry: dict[str, Any] | None = None
    ) -> Path:
        """Write a new chunk file (never overwriting one) and list it in the manifest.

        A manifest in the Go tool's layout gets ``go_entry`` (the entry in Go's fields), every
        entry it already held kept as it was; ours gets ``entry`` as one more line.
        """
        from engram.sync.formats.go_manifest import append_go_entry, is_go_manifest

        self.prepare()
        target = self.chunks_dir / chunk.file_name
        if not target.exists():
            _write_bytes(target, chunk.data)
        current = self.manifest_text()
        if chunk.id in {e.id for e in parse_manifest(current)}:
            return target
        if is_go_manifest(current):
            listed = go_entry if go_entry is not None else json.loads(entry.to_line())
            write_atomic(self.manifest_path, append_go_entry(current, listed))
        else:
            write_atomic(self.manifest_path, append_entry(current, entry))
        return target


def locate(cwd: Path) -> SyncFolder:
    """The sync folder for ``cwd``: at the top of its git repository, else in ``cwd``."""
    repo = find_git_repo(cwd.resolve())
    return SyncFolder(Path(repo.root) if repo is not None else cwd.resolve())


def _write_bytes(path: Path, data: bytes) -> None:
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _write_error(path, exc) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _write_error(path, exc) from exc


def _write_error(path: Path, exc: OSError) -> EngramError:
    return EngramError(
        "sync.write_failed",
        f"cannot write {path}: {exc.strerror or exc}",
        "check that the repository folder is writable",
    )
