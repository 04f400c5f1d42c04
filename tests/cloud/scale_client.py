"""One client of the scale test, run as its own process.

usage: python scale_client.py DATA_DIR SERVER_URL TOKEN PROJECT NAME COUNT EVERY

Saves COUNT observations into its own data dir, pushing and pulling with SERVER_URL every EVERY
saves (while the other clients do the same), then pushes what is left.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engram.memory.save import save_observation
from engram.store.db import Store
from engram.sync.cloud.config import Remote
from engram.sync.cloud.enrollment import enroll
from engram.sync.cloud.replicate import sync_once


def main(argv: list[str]) -> int:
    data_dir, server, token, project, name, count, every = argv
    remote = Remote(server, token)
    with Store.open(Path(data_dir)) as store:
        enroll(store, project)
        for index in range(int(count)):
            save_observation(
                store,
                title=f"{name} observation {index}",
                content=f"body {index} written by {name}",
                project=project,
                surface_conflicts=False,
            )
            if (index + 1) % int(every) == 0:
                sync_once(store, remote, project)
        sync_once(store, remote, project, pull_after=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
