"""A separate process that links one value, for the permission and concurrency tests.

Usage: python link_driver.py DATA_DIR FILE KEY [--hold SECONDS]
Sets mcpServers.<KEY> in FILE (JSONC) through the engine as host KEY; prints the error line and
exits 1 on an EngramError, exactly as the CLI does.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engram.edit.engine import apply
from engram.edit.ledger import Ledger
from engram.edit.plan import DocFormat, LinkPlan, Scope, SetValue
from engram.errors import EngramError


def main(argv: list[str]) -> int:
    data_dir, file, key = Path(argv[0]), Path(argv[1]), argv[2]
    edit = SetValue(file, DocFormat.JSONC, ("mcpServers", key), {"command": "engram-mcp"})
    plan = LinkPlan(key, Scope.WORKSPACE, [edit], root=file.parent)
    try:
        apply([plan], Ledger.at(data_dir))
    except EngramError as err:
        print(f"error: {err.one_line()} [{err.code}]", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
