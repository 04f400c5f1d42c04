"""Eight processes saving at once into one data dir lose nothing."""

from __future__ import annotations

import subprocess
import sys

from engram.store.db import Store
from engram.testing import Sandbox

PROCESSES = 8
SAVES_EACH = 500

WRITER = """
import sys
from engram.memory.save import save_observation
from engram.store.db import Store

worker = int(sys.argv[1])
store = Store.open()
for n in range(int(sys.argv[2])):
    save_observation(
        store,
        title=f"worker {worker} note {n}",
        content=f"body of note {n} from worker {worker}",
        project=f"proj-{worker % 3}",
        surface_conflicts=False,
    )
store.close()
"""


def test_concurrent_writers_lose_no_rows(sandbox: Sandbox) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(worker), str(SAVES_EACH)],
            env=sandbox.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(PROCESSES)
    ]
    failures = []
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            failures.append(err[-2000:])
    assert failures == []
    with Store.open(sandbox.data_dir) as store:
        conn = store.connection
        assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 4000
        assert conn.execute("SELECT count(DISTINCT title) FROM observations").fetchone()[0] == 4000
        indexed = conn.execute(
            "SELECT count(*) FROM observations_fts WHERE observations_fts MATCH 'worker'"
        ).fetchone()[0]
        assert indexed == 4000
        assert store.integrity_check() == "ok"
