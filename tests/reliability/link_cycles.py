"""Link and unlink Claude Code N times in one process, through the same planner and engine
``engram link claude`` / ``engram unlink claude`` use (without paying interpreter start-up
and command parsing 100 times).

Usage: python link_cycles.py CYCLES   (in the workspace, with the sandbox's environment)
Prints each refused run's one-line error to stderr, then ``failed commands: N`` to stdout.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from engram.edit.engine import apply, reverse
from engram.edit.ledger import Ledger
from engram.edit.plan import Scope
from engram.errors import EngramError
from engram.hosts import HostContext
from engram.hosts.command import resolve_server_command
from engram.hosts.registry import find_host
from engram.store.datadir import resolve_data_dir


def main(argv: list[str]) -> int:
    env = dict(os.environ)
    ctx = HostContext(
        scope=Scope.WORKSPACE,
        home=Path(env["HOME"]),
        workspace=Path.cwd(),
        data_dir=resolve_data_dir(env),
        server=resolve_server_command(env),
        env=env,
    )
    host, ledger = find_host("claude"), Ledger.at(ctx.data_dir)
    failures = 0
    for _ in range(int(argv[0])):
        for step in ("link", "unlink"):
            try:
                if step == "link":
                    apply([host.link_plan(ctx)], ledger)
                else:
                    reverse(host.name, ctx.scope, ledger, root=ctx.root)
            except EngramError as exc:
                print(f"error: {exc.one_line()} [{exc.code}]", file=sys.stderr)
                failures += 1
    print(f"failed commands: {failures}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
