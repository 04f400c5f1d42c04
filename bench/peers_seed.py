"""Where each compared server keeps its data, and how the search bench fills it.

Each server gets a scratch folder (its own HOME too, so nothing touches the user's). Search
stores are seeded in each server's own storage format: Engram through its save operation,
the Node server as its JSONL graph file, basic-memory as Markdown notes it indexes itself.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from pathlib import Path

import corpus

PROJECT = "peers"


def _base_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "BASIC_MEMORY"))}
    home = folder / "home"
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    return env


def engram_env(folder: Path) -> dict[str, str]:
    """Engram's data dir and project inside ``folder``."""
    return {
        **_base_env(folder),
        "ENGRAM_DATA_DIR": str(folder / "engram"),
        "ENGRAM_PROJECT": PROJECT,
    }


def seed_engram(folder: Path, items: list[corpus.SyntheticObservation]) -> None:
    """Every item saved through Engram's save operation (no conflict surfacing: bulk data)."""
    from engram.memory.save import save_observation
    from engram.store.db import Store

    with Store.open(folder / "engram") as store:
        for i, item in enumerate(items):
            save_observation(
                store,
                title=f"{item.title} {i}",
                content=item.content,
                project=PROJECT,
                type=item.type,
                surface_conflicts=False,
            )


def node_env(folder: Path) -> dict[str, str]:
    """The Node server's JSONL graph file inside ``folder``."""
    return {**_base_env(folder), "MEMORY_FILE_PATH": str(folder / "memory.jsonl")}


def seed_node(folder: Path, items: list[corpus.SyntheticObservation]) -> None:
    """One entity per item, written as the server's own JSONL lines."""
    lines = [
        json.dumps(
            {
                "type": "entity",
                "name": f"{item.title} {i}",
                "entityType": item.type,
                "observations": [item.content],
            }
        )
        for i, item in enumerate(items)
    ]
    (folder / "memory.jsonl").write_text("\n".join(lines), encoding="utf-8")


def basic_env(folder: Path) -> dict[str, str]:
    """basic-memory's home (config, index) and notes folder inside ``folder``."""
    return {
        **_base_env(folder),
        "BASIC_MEMORY_HOME": str(folder / "notes"),
        "BASIC_MEMORY_CONFIG_DIR": str(folder / "home" / ".basic-memory"),
    }


def seed_basic(folder: Path, items: list[corpus.SyntheticObservation]) -> None:
    """One Markdown note per item, indexed by basic-memory's own start-up sync (its MCP
    server indexes the project folder in the background, in no set order; we wait until its
    index holds every note)."""
    from peers_setup import basic_memory
    from stdio_client import StdioServer

    notes = folder / "notes" / "notes"
    notes.mkdir(parents=True, exist_ok=True)
    for i, item in enumerate(items):
        title = f"{item.title} {i}"
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
        body = item.content
        text = f"---\ntitle: {title}\ntype: note\npermalink: notes/{slug}\n---\n\n{body}\n"
        (notes / f"{slug}.md").write_text(text, encoding="utf-8")
    argv = basic_memory()
    assert argv is not None
    server = StdioServer(argv, basic_env(folder), folder)
    try:
        server.open_session()
        index = folder / "home" / ".basic-memory" / "memory.db"
        deadline = time.monotonic() + 3 * 3600
        while time.monotonic() < deadline:
            if _indexed_notes(index) >= len(items):
                return
            time.sleep(5)
        raise RuntimeError("basic-memory did not index the seeded notes within three hours")
    finally:
        server.close()


def _indexed_notes(index: Path) -> int:
    """How many notes basic-memory's own SQLite index holds (read-only; 0 before it exists)."""
    try:
        conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT count(*) FROM entity").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
