"""The link ledger: exactly what Engram wrote into which file, per host and scope.

``<data_dir>/links.json`` (written atomically) lists every link: host, scope, the workspace or
home it was made in, the registered server command and the Engram version, and one entry per
thing written (file, kind, path or block id, sha256 of the value written, what Engram created
around it). Unlink removes only what still hashes to what Engram wrote; doctor compares the
hashes to find drift; upgrade re-pins the recorded command.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engram.edit.atomic import make_dirs, read_text, write_atomic
from engram.edit.plan import JSONValue
from engram.errors import EngramError

LEDGER_NAME = "links.json"
LEDGER_VERSION = 1

# Entry kinds.
JSON_VALUE = "json_value"
JSON_LIST_ITEM = "json_list_item"
TOML_VALUE = "toml_value"
TOML_LIST_ITEM = "toml_list_item"
YAML_VALUE = "yaml_value"
YAML_LIST_ITEM = "yaml_list_item"
LIST_KINDS = (JSON_LIST_ITEM, YAML_LIST_ITEM, TOML_LIST_ITEM)
VALUE_KINDS = (JSON_VALUE, TOML_VALUE, YAML_VALUE)
MD_BLOCK = "md_block"
OWNED_FILE = "owned_file"


def fingerprint(value: JSONValue) -> str:
    """sha256 of a value's canonical JSON (key order and spacing don't matter)."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def text_fingerprint(text: str) -> str:
    """sha256 of text (line endings normalised to LF)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()


@dataclass
class Entry:
    """One thing Engram wrote.

    Args:
        file: absolute path of the file.
        kind: ``json_value``, ``json_list_item``, ``toml_value``, ``yaml_value``,
            ``yaml_list_item``, ``md_block`` or ``owned_file``.
        sha256: fingerprint of the value / item / block content / file content written.
        format: ``json``, ``jsonc``, ``toml``, ``yaml`` or ``markdown``/``file``.
        path: keys of the value or list (JSON / TOML).
        item: the list element (``json_list_item`` / ``yaml_list_item``).
        block_id: the managed block's id (``md_block``).
        created_file: Engram created the file (removed again once nothing else is in it).
        created_dirs: folders Engram created for it (removed again when empty).
        undo: how to restore the original bytes (format-specific, see the editors).
    """

    file: str
    kind: str
    sha256: str
    format: str = ""
    path: list[str] = field(default_factory=list)
    item: JSONValue = None
    block_id: str = ""
    created_file: bool = False
    created_dirs: list[str] = field(default_factory=list)
    undo: dict[str, Any] = field(default_factory=dict)

    def identity(self) -> tuple[str, str, str, str, str]:
        """What makes two entries the same thing in the same file."""
        item = fingerprint(self.item) if self.kind in LIST_KINDS else ""
        return (self.file, self.kind, "\x00".join(self.path), self.block_id, item)


@dataclass
class Link:
    """Engram registered with one host, in one scope, for one workspace (or the home).

    Args:
        host: canonical host name.
        scope: ``workspace`` or ``global``.
        root: the workspace folder, or the home folder for ``global``.
        command: the registered server command (argv), for upgrade re-pinning.
        version: the Engram version that wrote it.
        entries: everything written, in the order it was applied.
    """

    host: str
    scope: str
    root: str
    command: list[str] = field(default_factory=list)
    version: str = ""
    entries: list[Entry] = field(default_factory=list)

    def find(self, identity: tuple[str, str, str, str, str]) -> Entry | None:
        """This link's entry with that identity."""
        return next((e for e in self.entries if e.identity() == identity), None)

    def put(self, entry: Entry) -> None:
        """Add ``entry``, replacing an entry with the same identity."""
        for i, existing in enumerate(self.entries):
            if existing.identity() == entry.identity():
                self.entries[i] = entry
                return
        self.entries.append(entry)

    def drop(self, identity: tuple[str, str, str, str, str]) -> None:
        """Forget the entry with that identity."""
        self.entries = [e for e in self.entries if e.identity() != identity]


@dataclass
class Ledger:
    """Every link Engram has made, loaded from and saved to ``path``."""

    path: Path
    links: list[Link] = field(default_factory=list)

    @classmethod
    def at(cls, data_dir: Path) -> Ledger:
        """Load ``<data_dir>/links.json`` (an empty ledger when it does not exist)."""
        return cls.load(data_dir / LEDGER_NAME)

    @classmethod
    def load(cls, path: Path) -> Ledger:
        """Load the ledger file ``path``; ``edit.bad_ledger`` when it is unreadable."""
        text = read_text(path)
        if text is None or not text.strip():
            return cls(path)
        try:
            data = json.loads(text)
            links = [_link_from(raw) for raw in data.get("links", [])]
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as err:
            raise EngramError(
                "edit.bad_ledger",
                f"the link ledger {path} is damaged ({err})",
                "restore it from a backup or delete it (Engram then forgets what it linked)",
                file=str(path),
            ) from None
        return cls(path, links)

    def refresh(self) -> None:
        """Re-read the file, dropping unsaved changes (another process may have saved since)."""
        self.links = Ledger.load(self.path).links

    def save(self) -> None:
        """Write the ledger atomically (mode 0600: it lists the user's config paths)."""
        make_dirs(self.path.parent, 0o700)
        data = {"version": LEDGER_VERSION, "links": [asdict(link) for link in self.links]}
        previous = read_text(self.path)
        write_atomic(self.path, json.dumps(data, indent=2) + "\n", 0o600, expect=previous)

    def link(self, host: str, scope: str, root: str, *, create: bool = False) -> Link | None:
        """The link for ``host`` / ``scope`` / ``root``; made (unsaved) when ``create``."""
        for link in self.links:
            if (link.host, link.scope, link.root) == (host, scope, root):
                return link
        if not create:
            return None
        link = Link(host, scope, root)
        self.links.append(link)
        return link

    def find_links(self, host: str, scope: str, root: str | None = None) -> list[Link]:
        """Links for ``host`` and ``scope`` (in ``root``, or in every root when None)."""
        return [
            link
            for link in self.links
            if link.host == host and link.scope == scope and (root is None or link.root == root)
        ]

    def others_using(self, link: Link, entry: Entry) -> list[Link]:
        """Other links that also wrote ``entry`` (a shared AGENTS.md block, a shared file)."""
        identity = entry.identity()
        return [
            other for other in self.links if other is not link and other.find(identity) is not None
        ]

    def entries_for_file(self, file: str) -> list[Entry]:
        """Every entry, from any link, that touches ``file``."""
        return [entry for link in self.links for entry in link.entries if entry.file == file]

    def prune(self) -> None:
        """Drop links that no longer own anything."""
        self.links = [link for link in self.links if link.entries]


def _link_from(raw: dict[str, Any]) -> Link:
    entries = [Entry(**entry) for entry in raw.get("entries", [])]
    return Link(
        raw["host"],
        raw["scope"],
        raw["root"],
        list(raw.get("command", [])),
        raw.get("version", ""),
        entries,
    )
