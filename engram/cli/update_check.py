"""Once a day, ask the package index whether a newer Engram is out, and say so in one line.

The check reads the index's JSON API (``https://pypi.org/pypi/engram-keeper/json``, or
``ENGRAM_UPDATE_INDEX_URL``), at most once per 24 hours (the time of the last check is kept in
``<data dir>/update-check.json``), with a short timeout. It is silent when offline or when the
answer is not understood, never fails a command, and is skipped entirely when
``ENGRAM_NO_UPDATE_CHECK`` is set and for ``version``, ``help``, ``hook``, ``mcp`` and
completion (commands that hosts and scripts run).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path

DEFAULT_INDEX_URL = "https://pypi.org/pypi/engram-keeper/json"
INTERVAL_S = 24 * 60 * 60
TIMEOUT_S = 1.5
SKIPPED_COMMANDS = frozenset({"version", "help", "hook", "mcp", "serve", None})
STATE_FILE = "update-check.json"


def release_key(version: str) -> tuple[int, ...]:
    """``"1.10.2"`` as ``(1, 10, 2)``; pre-release suffixes sort below nothing (ignored)."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:4])


def newer_release(
    installed: str, env: Mapping[str, str], data_dir: Path, now: float | None = None
) -> str | None:
    """The newer release on the index, or None (up to date, checked recently, offline, off)."""
    if env.get("ENGRAM_NO_UPDATE_CHECK"):
        return None
    now = time.time() if now is None else now
    state = data_dir / STATE_FILE
    try:
        last = json.loads(state.read_text(encoding="utf-8")).get("checked_at", 0)
    except (OSError, ValueError, AttributeError, RecursionError):
        last = 0
    if isinstance(last, int | float) and 0 <= now - last < INTERVAL_S:
        return None
    latest = _latest(env.get("ENGRAM_UPDATE_INDEX_URL") or DEFAULT_INDEX_URL)
    if latest is None:
        return None  # offline or a strange answer: try again next time
    try:
        if not data_dir.exists():  # Engram's data dir is private whoever creates it
            data_dir.mkdir(parents=True, mode=0o700)
            data_dir.chmod(0o700)
        state.write_text(json.dumps({"checked_at": now, "latest": latest}), encoding="utf-8")
    except OSError:
        pass
    return latest if release_key(latest) > release_key(installed) else None


def _latest(url: str) -> str | None:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer:
            body = json.loads(answer.read(1_000_000))
        version = body["info"]["version"]
    except Exception:  # offline, refused, timed out, not JSON: stay silent
        return None
    return version if isinstance(version, str) and release_key(version) else None


def notice(installed: str, latest: str) -> str:
    """The one line shown on stderr."""
    return (
        f"engram {latest} is available (you have {installed}): "
        "`uv tool upgrade engram-keeper` or `pipx upgrade engram-keeper`, then `engram upgrade` "
        "(ENGRAM_NO_UPDATE_CHECK=1 turns this check off)"
    )


def maybe_notify(command: str | None, installed: str) -> None:
    """Run the daily check for ``command`` and print the notice on stderr when there is one."""
    if command in SKIPPED_COMMANDS:
        return
    env = os.environ
    try:
        from engram.store.datadir import resolve_data_dir

        data_dir = resolve_data_dir(env)
    except Exception:
        return
    latest = newer_release(installed, env, data_dir)
    if latest:
        import sys

        print(notice(installed, latest), file=sys.stderr)
