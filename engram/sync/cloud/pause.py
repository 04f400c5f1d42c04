"""Pausing the autosync of every process of a data dir while ``cloud upgrade bootstrap`` runs.

Two leases in ``sync_state`` do it, so it works across processes (``engram serve``,
``engram-mcp``, the CLI):

1. the bootstrap takes the remote's *pause request* (``<target>#upgrade``);
2. an autosync worker checks for a live pause request before and after each cycle: when there
   is one it gives its sync lease back and reports ``disabled`` / ``upgrade_paused`` (it never
   stops in the middle of a push or pull);
3. the bootstrap then takes the remote's sync lease itself — it waits for the cycle in flight,
   never for longer than a lease lasts (a dead process's lease expires) — and runs;
4. it gives both back when done, failed or interrupted; the workers resume on their next cycle.

A bootstrap that dies without giving them back pauses autosync until the pause expires
(``PAUSE_S``).
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from engram.errors import EngramError
from engram.memory.clock import stamp, stamp_after, utc_now
from engram.store import sync_cloud
from engram.store.db import Store
from engram.sync.cloud.config import Remote

LEASE_S = 120
"""How long an autosync worker's sync lease lasts without renewal."""
PAUSE_S = 900
"""How long a pause request and the bootstrap's sync lease last."""
POLL_S = 0.1


def pause_key(remote: Remote) -> str:
    """The ``sync_state`` key of the remote's pause request."""
    return remote.target_key + "#upgrade"


@contextmanager
def autosync_paused(
    store: Store, remote: Remote, *, wait_s: float = LEASE_S + 10
) -> Iterator[None]:
    """Hold every autosync of this data dir off ``remote`` for the duration of the block.

    Raises:
        EngramError: ``cloud.upgrade_running`` when another bootstrap holds the pause,
            ``cloud.autosync_busy`` when a worker did not let go within ``wait_s``.
    """
    owner = f"upgrade:{os.getpid()}-{uuid.uuid4().hex[:8]}"
    until = stamp_after(utc_now(), timedelta(seconds=PAUSE_S))
    with store.write() as conn:
        if not sync_cloud.take_lease(conn, pause_key(remote), owner, stamp(), until):
            raise EngramError(
                "cloud.upgrade_running",
                "another cloud upgrade bootstrap of this data dir is running",
                "wait for it to finish, then run this command again",
            )
    try:
        _take_sync_lease(store, remote, owner, until, wait_s)
        yield
    finally:
        with store.write() as conn:
            sync_cloud.release_lease(conn, remote.target_key, owner)
            sync_cloud.release_lease(conn, pause_key(remote), owner)


def _take_sync_lease(store: Store, remote: Remote, owner: str, until: str, wait_s: float) -> None:
    deadline = time.monotonic() + wait_s
    told = False
    while True:
        with store.write() as conn:
            if sync_cloud.take_lease(conn, remote.target_key, owner, stamp(), until):
                return
        if time.monotonic() > deadline:
            raise EngramError(
                "cloud.autosync_busy",
                f"the autosync of another process did not pause within {wait_s:.0f} s",
                "stop engram serve / engram-mcp of this data dir, then run this command again",
            )
        if not told:
            print("waiting for the running autosync to pause…", file=sys.stderr)
            told = True
        time.sleep(POLL_S)
