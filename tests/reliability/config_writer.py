"""Another program editing ``.mcp.json`` while Engram links: the racing writer.

Usage: python config_writer.py FILE STYLE STOP_FILE MAX_WRITES
Each write reads the file, adds one key ``mcpServers.user-<n>`` to what it read and writes it
back, ``in-place`` (truncate, pause, write: what most editors' "save" does) or ``rename``
(temporary file + rename). Stops when STOP_FILE exists or after MAX_WRITES; prints how many
keys it added.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def _read(file: Path) -> dict[str, Any]:
    while True:  # Engram replaces atomically: a read is either the old or the new file
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, FileNotFoundError):
            time.sleep(0.001)
            continue
        assert isinstance(data, dict)
        return data


def _write(file: Path, text: str, style: str) -> None:
    if style == "in-place":
        with open(file, "w", encoding="utf-8") as handle:  # truncates first
            handle.flush()
            time.sleep(0.003)
            handle.write(text)
        return
    temp = file.with_name(f".{file.name}.writer-tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, file)


def main(argv: list[str]) -> int:
    file, style, stop, limit = Path(argv[0]), argv[1], Path(argv[2]), int(argv[3])
    written = 0
    while written < limit and not stop.exists():
        data = _read(file)
        data.setdefault("mcpServers", {})[f"user-{written}"] = {"command": f"tool-{written}"}
        _write(file, json.dumps(data, indent=2) + "\n", style)
        written += 1
        time.sleep(0.01)
    print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
