"""The layering of DESIGN.md: the surfaces reach the store only to open it."""

from __future__ import annotations

import ast
from pathlib import Path

import engram

# What a surface (CLI, MCP server) may take from engram.store: opening a Store, locating the
# data dir, the record types the memory operations return, and the one-line meaning of a
# SQLite failure (a held lock, a full disk) for its last-resort error answer. Never a table
# module.
ALLOWED = {
    "engram.store.db",
    "engram.store.datadir",
    "engram.store.records",
    "engram.store.errors",
}


def _store_imports(package: str) -> list[str]:
    root = Path(engram.__file__).parent / package
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == "engram.store":
                    names = [f"engram.store.{alias.name}" for alias in node.names]
                else:
                    names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                if name.startswith("engram.store") and name not in ALLOWED:
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno} {name}")
    return found


def test_server_and_cli_do_not_read_store_tables() -> None:
    assert _store_imports("server") == []
    assert _store_imports("cli") == []
    assert _store_imports("http") == []
    assert _store_imports("tui") == []
