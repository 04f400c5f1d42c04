"""The governed knowledge a session starts with, kept ready between sessions.

SessionStart shows a project's governed knowledge as ``engram_load`` gives it for an empty
task. Building that pack imports the governed layer (about 25 ms, more than the rest of a
hook), while the knowledge itself changes only when a human approves a change. So the built
pack is kept in ``<data dir>/hooks/governed-packs.json`` (0600) beside the exact inputs it was
built from — every visible memory row except its usage counters, the project's role and rule
variant settings, the budget, the session objective and the config file's stamp — and served
again, without importing the governed layer, while all of them are unchanged. A served pack
counts as a load like a built one: its bodies' usage counters go up the same way.

This module lives outside :mod:`engram.memory.governed` on purpose: importing anything from
that package imports all of it.
"""

from __future__ import annotations

import contextlib
import os
import time

from engram import lean_json
from engram.errors import EngramError
from engram.store.datadir import write_private_file
from engram.store.governed_presence import has_active_memories

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    import sqlite3

CACHE_FILE = "governed-packs.json"  # under <data dir>/hooks/
# The governed settings file (engram.memory.governed.config.CONFIG_FILE; a test keeps them
# equal): a broken one empties the governed section, so its stamp is an input.
CONFIG_FILE = "config.json"
FORMAT = 1  # bump when what a pack is built from changes
KEEP = 32  # projects whose pack is kept


def session_knowledge(
    conn: sqlite3.Connection,
    data_dir: str,
    project: str,
    cwd: str,
    objective: str,
    budget_tokens: int,
) -> str:
    """The fenced governed pack for a session of ``project`` ("" when it has none or nothing
    fits), served from the cache when its inputs are unchanged, else built and kept."""
    if budget_tokens <= 0 or not has_active_memories(conn, project):
        return ""  # most projects have none: nothing to build, nothing to keep
    from engram.store import governed as sql

    inputs = _inputs(conn, data_dir, project, objective, budget_tokens)
    path = os.path.join(data_dir, "hooks", CACHE_FILE)
    packs = _read(path)
    served = _served(packs.get(project), inputs)
    if served is not None:
        text, bodies = served
        with sql.immediate(conn):
            sql.bump_counter(conn, bodies, "usage_count")
        return text
    built = _build(conn, data_dir, project, cwd, objective, budget_tokens)
    if built is None:
        return ""  # a bad governed config must not cost the session its journal pack
    packs.pop(project, None)
    packs[project] = {"inputs": inputs, "pack": built[0], "bodies": list(built[1])}
    while len(packs) > KEEP:
        packs.pop(next(iter(packs)))
    _write(path, packs)
    return built[0]


def _served(kept: object, inputs: str) -> tuple[str, list[int]] | None:
    """The kept pack and its body rowids when it was built from ``inputs`` (and is whole)."""
    if not isinstance(kept, dict) or kept.get("inputs") != inputs:
        return None
    text, bodies = kept.get("pack"), kept.get("bodies")
    if not isinstance(text, str) or not isinstance(bodies, list):
        return None
    if not all(isinstance(rowid, int) and not isinstance(rowid, bool) for rowid in bodies):
        return None
    return text, bodies


def _inputs(
    conn: sqlite3.Connection, data_dir: str, project: str, objective: str, budget: int
) -> str:
    """Everything the pack is built from, as one canonical string."""
    from engram.store import governed as sql

    today = time.strftime("%Y-%m-%d", time.gmtime())  # what KnowledgeBase.today() says
    rows = [
        {key: value for key, value in row.items() if key not in sql.COUNTERS}  # never shown
        for row in sql.list_visible(conn, project, today)
    ]
    settings = [sql.get_setting(conn, project, name) for name in ("roles", "rule_variant")]
    try:
        info = os.stat(os.path.join(data_dir, CONFIG_FILE))
        stamp: list[int] | None = [info.st_mtime_ns, info.st_size, info.st_ino]
    except OSError:
        stamp = None
    parts = [FORMAT, project, budget, objective, settings, stamp, rows]
    return lean_json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _build(
    conn: sqlite3.Connection, data_dir: str, project: str, cwd: str, objective: str, budget: int
) -> tuple[str, tuple[int, ...]] | None:
    """The pack and the rowids shown as bodies, through the governed layer; None when its
    config is broken."""
    from pathlib import Path

    from engram.memory.fence import fenced
    from engram.memory.governed.base import KnowledgeBase
    from engram.memory.governed.config import load_config
    from engram.memory.governed.load import load
    from engram.memory.governed.workspace import Workspace

    workspace = Workspace(Path(cwd or ".").resolve(), project)
    try:
        kb = KnowledgeBase(conn, workspace, load_config(Path(data_dir)))
        loaded = load(kb, "", budget_tokens=budget, objective=objective)
    except EngramError:
        return None
    if not loaded.body_keys and not loaded.card_ids:
        return "", loaded.body_rowids
    return fenced(loaded.text), loaded.body_rowids


def _read(path: str) -> dict[str, object]:
    """The kept packs ({} when there are none or the file is damaged: they are rebuilt)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = lean_json.loads(handle.read())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: str, packs: dict[str, object]) -> None:
    """Keep ``packs`` (atomically, 0600); a failure only costs the next session a rebuild."""
    with contextlib.suppress(OSError):
        write_private_file(path, lean_json.dumps(packs, ensure_ascii=False, separators=(",", ":")))
