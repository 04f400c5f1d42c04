"""Other memory tools' stores, imported as Engram observations: ``engram import --from TOOL``.

One module per tool, each reading the tool's own store and yielding records of the backup
format (:mod:`engram.store.backup`'s field lists) that the backup import already validates:

- :mod:`.claude_mem` — claude-mem's SQLite database (``~/.claude-mem/claude-mem.db``).
- :mod:`.basic_memory` — a basic-memory project folder of Markdown notes.
- :mod:`.mcp_memory_service` — mcp-memory-service's SQLite (sqlite-vec backend) database.

:mod:`.run` drives any of them: batches, progress, the summary. Ids are derived from each
source record, so a second import of the same store adds nothing. The core never imports
this package; only the CLI does.
"""

from __future__ import annotations

TOOLS: dict[str, str] = {
    "claude-mem": "engram.importers.claude_mem",
    "basic-memory": "engram.importers.basic_memory",
    "mcp-memory-service": "engram.importers.mcp_memory_service",
}
