"""TUI benchmark: launch to the first painted dashboard and to the first page of search
results, in a store of 1M observations as a ratio to the same in a store of 1k (same run).

Run it (not a test; the 1M store is built once by bench/store_bench.py and cached)::

    .venv/bin/python bench/tui_bench.py                      # 1k and 1M, 5 rounds each
    .venv/bin/python bench/tui_bench.py --sizes 1k,100k --rounds 3

Two measurements per size, rounds alternating between the sizes so that load on the machine
falls on both alike:

- **in process**: from opening the store and starting the Textual app headless (Textual's own
  test driver, 110x34) until the dashboard shows its counts and the app is idle (painted);
  then, with the query typed in the search box, from pressing Enter until the first page of
  results is shown and the app is idle.
- **real terminal**: the installed ``engram tui --all`` started in tmux (its own server,
  ``tmux -L``); from the spawn until capture-pane shows the dashboard's observation count,
  then from sending ``/``, the query and Enter until it shows ``showing 1-``. This includes
  Python's start-up and the imports, the same at every size.

Printed: median and best in ms per size, and the ratio of the largest size to the smallest.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import store_bench

from engram.store.db import Store
from engram.tui.app import EngramApp
from engram.tui.screens.dashboard import DashboardScreen
from engram.tui.screens.results import SearchResultsScreen

QUERY = "cache timeout"
SIZE = (110, 34)
ENGRAM = str(Path(sys.executable).with_name("engram"))


async def _until(check: Callable[[], bool], limit_s: float = 120.0) -> None:
    deadline = time.perf_counter() + limit_s
    while not check():
        if time.perf_counter() > deadline:
            raise TimeoutError("the screen never showed what was waited for")
        await asyncio.sleep(0.002)


async def in_process(data_dir: Path) -> tuple[float, float]:
    """(ms to the painted dashboard, ms from Enter to the first page of results)."""
    started = time.perf_counter()
    store = Store.open(data_dir)
    app = EngramApp(store, project=None)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _until(
                lambda: isinstance(app.screen, DashboardScreen) and app.screen.has_class("counted")
            )
            await pilot.pause()
            dashboard = time.perf_counter() - started
            typed = ["space" if char == " " else char for char in QUERY]
            await pilot.press("slash", *typed)
            await pilot.pause()
            started = time.perf_counter()
            await pilot.press("enter")
            await _until(
                lambda: isinstance(app.screen, SearchResultsScreen) and app.screen.page is not None
            )
            await pilot.pause()
            search = time.perf_counter() - started
    finally:
        store.close()
    return dashboard * 1000, search * 1000


def _tmux(socket: str, *args: str) -> str:
    return subprocess.run(
        ["tmux", "-L", socket, *args], capture_output=True, text=True, check=True, timeout=60
    ).stdout


def _wait_screen(socket: str, text: str, limit_s: float = 120.0) -> None:
    deadline = time.perf_counter() + limit_s
    while text not in _tmux(socket, "capture-pane", "-p", "-t", "tui"):
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{text!r} never appeared")
        time.sleep(0.01)


def in_terminal(data_dir: Path, observations: int) -> tuple[float, float]:
    """The real command in tmux: (ms to the dashboard's count, ms to the first results)."""
    socket = f"engram-tui-bench-{os.getpid()}"
    env = f"ENGRAM_DATA_DIR={data_dir} ENGRAM_NO_UPDATE_CHECK=1 TERM=xterm-256color"
    config = Path(tempfile.mkdtemp()) / "tmux.conf"
    config.write_text(f"set -g default-size {SIZE[0]}x{SIZE[1]}\n", encoding="utf-8")
    started = time.perf_counter()
    _tmux(
        socket,
        "-f",
        str(config),
        "new-session",
        "-d",
        "-s",
        "tui",
        "-x",
        "110",
        "-y",
        "34",
        f"env -u COLUMNS -u LINES {env} {ENGRAM} tui --all",
    )
    try:
        _wait_screen(socket, f"{observations:,}")
        dashboard = time.perf_counter() - started
        started = time.perf_counter()
        _tmux(socket, "send-keys", "-t", "tui", "/")
        _wait_screen(socket, "words to find")
        _tmux(socket, "send-keys", "-t", "tui", QUERY, "Enter")
        _wait_screen(socket, "showing 1-")
        search = time.perf_counter() - started
    finally:
        where = subprocess.run(
            ["tmux", "-L", socket, "display", "-p", "#{socket_path}"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        ).stdout.strip()
        subprocess.run(["tmux", "-L", socket, "kill-server"], check=False, timeout=60)
        if where:
            Path(where).unlink(missing_ok=True)  # kill-server leaves the socket file behind
        shutil.rmtree(config.parent, ignore_errors=True)
    return dashboard * 1000, search * 1000


def main(argv: list[str] | None = None) -> int:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1k,1m", help="store sizes, smallest first")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-terminal", action="store_true", help="skip the tmux runs")
    parser.add_argument("--cache", type=Path, default=store_bench.CACHE, help="built stores")
    args = parser.parse_args(argv)
    sizes = [store_bench.parse_size(text) for text in args.sizes.split(",")]
    stores = {size: store_bench.build(size, args.cache) for size in sizes}
    for data_dir in stores.values():  # apply pending migrations outside the timings
        Store.open(data_dir).close()
    kinds = ["in process"] + ([] if args.no_terminal else ["real terminal"])
    samples: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for size, data_dir in stores.items():
            samples.setdefault(("in process", size), []).append(asyncio.run(in_process(data_dir)))
            if not args.no_terminal:
                samples.setdefault(("real terminal", size), []).append(in_terminal(data_dir, size))
    _report(kinds, sizes, samples, args.rounds)
    return 0


def _report(
    kinds: list[str],
    sizes: list[int],
    samples: dict[tuple[str, int], list[tuple[float, float]]],
    rounds: int,
) -> None:
    print(f"\nquery {QUERY!r}, {rounds} rounds, terminal {SIZE[0]}x{SIZE[1]}")
    print("| measurement | size | dashboard median / best ms | first results median / best ms |")
    print("|---|---:|---:|---:|")
    medians: dict[tuple[str, int], tuple[float, float]] = {}
    for kind in kinds:
        for size in sizes:
            dash = [d for d, _ in samples[(kind, size)]]
            found = [s for _, s in samples[(kind, size)]]
            medians[(kind, size)] = (statistics.median(dash), statistics.median(found))
            print(
                f"| {kind} | {size:,} | {statistics.median(dash):.0f} / {min(dash):.0f}"
                f" | {statistics.median(found):.0f} / {min(found):.0f} |"
            )
    small, large = sizes[0], sizes[-1]
    for kind in kinds:
        (d0, s0), (d1, s1) = medians[(kind, small)], medians[(kind, large)]
        print(
            f"{kind}: {large:,} vs {small:,} observations — dashboard {d1 / d0:.2f}x,"
            f" first search results {s1 / s0:.2f}x (medians)"
        )


if __name__ == "__main__":
    sys.exit(main())
