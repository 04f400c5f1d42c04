"""engram-mcp over stdio, measured beside the SDK's own floor in the same run.

Prints, for ``engram-mcp`` and for a minimal one-tool ``MCPServer`` (the floor):

- cold start: spawn -> ``initialize`` answer, median and p95 over N spawns (alternating);
- round trips: ``mem_search`` and ``mem_save`` p50/p95 through one live ``engram-mcp`` process
  on stores of 1k, 10k and 100k synthetic observations, beside the floor's one-tool call;
- the server's CPU per ``mem_search`` (its own /proc rusage) beside the same searches run
  in-process, with the load average beside each size's figures.

Usage:  .venv/bin/python bench/mcp_bench.py [--sizes 1000,10000,100000] [--spawns 15] [--calls 200]
Stores are built once under bench/.cache/ (delete it to rebuild).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mcp_instructions
from processes import cpu_seconds, load_average
from search_worker import SearchWorker

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / ".cache" / "mcp"  # --cache moves it
BIN = Path(sys.executable).parent
ENGRAM_MCP = [str(BIN / "engram-mcp")]
FLOOR_SOURCE = """
from mcp.server.mcpserver import MCPServer

app = MCPServer("floor")


@app.tool()
def echo(text: str) -> str:
    return text


app.run()
"""
# Distinct names: the FTS project filter is a phrase, so names sharing a token cost more.
PROJECTS = ["atlas", "borealis", "cygnus", "draco", "eridani"]
# Calls each process makes before it is measured: past what a process loads on its first
# searches (wordllama tokenizes its first TABLE_QUERIES queries from the token table, then
# loads the tokenizer, ~75 ms of CPU: inside the window that was ~0.25 ms "per call").
WARM_UP_CALLS = 24
# Where each query band starts in the frequency-ranked vocabulary.
BANDS = {"very common": 0, "mid": 200, "rare": 2000}
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def vocabulary(size: int = 5000) -> tuple[list[str], list[float]]:
    """Pronounceable words with Zipf-like weights (word n is about 1/n as common)."""
    rng = random.Random(7)
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < size:
        word = "".join(
            rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(2, 4))
        )
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words, [1.0 / (n + 1) for n in range(size)]


def build_store(count: int, cache: Path) -> Path:
    """A data dir holding ``count`` observations over five projects (built once, cached)."""
    data_dir = cache / f"store-{count}"
    if (data_dir / ".complete").exists():
        return data_dir
    shutil.rmtree(data_dir, ignore_errors=True)
    from engram.memory.save import normalized_hash
    from engram.store import observations, sessions
    from engram.store.db import Store

    words, weights = vocabulary()
    rng = random.Random(count)
    store = Store.open(data_dir)
    now = "2026-01-01 00:00:00"
    types = ["decision", "bugfix", "pattern", "discovery", "config", "learning"]
    with store.write() as conn:
        for project in PROJECTS:
            sessions.create(conn, f"bench-{project}", project=project, directory="", now=now)
        for n in range(count):
            title = " ".join(rng.choices(words, weights, k=rng.randint(3, 7))).capitalize()
            body = " ".join(rng.choices(words, weights, k=rng.randint(30, 120)))
            project = PROJECTS[n % len(PROJECTS)]
            new = observations.NewObservation(
                session_id=f"bench-{project}",
                type=types[n % len(types)],
                title=title,
                content=f"**What** {body}",
                project=project,
                scope="project",
                normalized_hash=normalized_hash(body),
            )
            observations.insert(conn, new, now)
    store.close()
    (data_dir / ".complete").touch()
    return data_dir


def project_folder(cache: Path) -> Path:
    """The folder the server runs in: a git repository of its own whose remote names the first
    project, as a clone has. (The cache sits inside Engram's checkout: without a repository of
    its own, detection found the checkout's repository and every search was filtered to a
    project with no rows.)"""
    folder = cache / "projects" / PROJECTS[0]
    if not (folder / ".git").exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
        remote = f"https://git.example.invalid/team/{PROJECTS[0]}.git"
        subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)
    return folder


def confirm_folder(data_dir: Path, folder: Path) -> None:
    """Bind ``folder`` to its project in ``data_dir``, as `engram init --confirm` run there
    does (a cache left by an older bench may be bound to a folder that no longer exists), and
    check that the server will search the project the in-process baseline searches."""
    from engram.memory.project import detect_project
    from engram.memory.project_binding import confirm_here

    confirm_here(data_dir, folder)
    detected = detect_project(folder).project
    if detected != PROJECTS[0]:
        raise SystemExit(f"mcp_bench: {folder} is detected as {detected!r}, not {PROJECTS[0]!r}")


class Live:
    """One server process spoken to one line at a time."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        self.next_id = 1
        self.ask(INIT)
        self.tell({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def tell(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdout is not None
        self.tell(message)
        return json.loads(self.proc.stdout.readline())  # type: ignore[no-any-return]

    def call(self, tool: str, arguments: dict[str, Any]) -> float:
        """Seconds for one tools/call round trip (fails loudly on an error answer)."""
        self.next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        start = time.perf_counter()
        answer = self.ask(message)
        elapsed = time.perf_counter() - start
        if "error" in answer or answer["result"].get("isError"):
            raise SystemExit(f"{tool} failed: {json.dumps(answer)[:400]}")
        return elapsed

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def cold_start(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Seconds from spawn to the initialize answer, and the CPU seconds the process used.

    CPU time is the steadier figure on a loaded machine: wall time there mostly measures the
    scheduler. The process exits right after answering (stdin closed), so its CPU total is
    start-up plus the one answer.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INIT).encode() + b"\n")
    proc.stdin.flush()
    proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def pct(values: list[float], q: float) -> float:
    """The q-quantile in milliseconds."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure_cold_start(spawns: int, floor: list[str], env: dict[str, str], work: Path) -> None:
    """Print spawn -> initialize answer for engram-mcp and the floor, alternating."""
    engram_runs, floor_runs = [], []
    engram_env = {**env, "ENGRAM_DATA_DIR": str(work / "home" / "e")}
    for _ in range(spawns):
        engram_runs.append(cold_start(ENGRAM_MCP, engram_env, work))
        floor_runs.append(cold_start(floor, env, work))
    print(f"cold start (spawn -> initialize answer), {spawns} spawns each")
    for label, index in (("wall", 0), ("CPU", 1)):
        mine = [run[index] for run in engram_runs]
        base = [run[index] for run in floor_runs]
        e50, f50 = statistics.median(mine) * 1000, statistics.median(base) * 1000
        print(
            f"  {label:4s} engram-mcp median {e50:7.1f} ms p95 {pct(mine, 0.95):7.1f} ms | "
            f"SDK floor median {f50:7.1f} ms p95 {pct(base, 0.95):7.1f} ms | "
            f"ratio {e50 / f50:.3f}x (target <= 1.15x)"
        )


def search_queries(words: list[str], rng: random.Random, calls: int) -> list[tuple[str, str]]:
    """``(band, query)`` pairs: very common, mid-frequency and rare words in turn, one or two."""
    queries = []
    for n in range(calls):
        name = list(BANDS)[n % len(BANDS)]
        queries.append(
            (name, " ".join(rng.choices(words[BANDS[name] : BANDS[name] + 50], k=1 + n % 2)))
        )
    return queries


class InProcess:
    """The same searches through ``engram.memory.search`` in this process (same store, same
    project filter), timed one at a time so they can be interleaved with the server's."""

    def __init__(self, data_dir: Path, warm_up: list[str]) -> None:
        from engram.memory.search import search
        from engram.store.db import Store

        self.search = search
        self.store = Store.open(data_dir)
        self.cpu = 0.0
        self.calls = 0
        for query in warm_up:
            self.search(self.store, query, project=PROJECTS[0], limit=10)

    def run(self, query: str) -> None:
        """One search, its CPU time added up."""
        start = time.process_time()
        self.search(self.store, query, project=PROJECTS[0], limit=10)
        self.cpu += time.process_time() - start
        self.calls += 1

    def per_call(self) -> float:
        """CPU seconds per search."""
        self.store.close()
        return self.cpu / max(1, self.calls)


class InProcessTool:
    """The ``mem_search`` tool itself run in this process (argument checks, project detection
    from the server's folder, the search, prompt matches, the envelope): what the server's
    CPU would be without the wire."""

    def __init__(self, data_dir: Path, folder: Path, warm_up: list[str]) -> None:
        from engram.server.mem_tools.context import STATE
        from engram.server.registry import tool_from
        from engram.server.tool_calls import call_now

        self.state, self.call_now = STATE, call_now
        self.tool = tool_from("engram.server.mem_tools.recall", "mem_search")
        self.saved = (os.getcwd(), os.environ.get("ENGRAM_DATA_DIR"))
        os.environ["ENGRAM_DATA_DIR"] = str(data_dir)
        os.chdir(folder)
        self.cpu, self.calls = 0.0, 0
        for query in warm_up:
            self.run(query)
        self.cpu, self.calls = 0.0, 0

    def run(self, query: str) -> None:
        """One call, its CPU time added up (a tool error stops the bench)."""
        start = time.process_time()
        result = self.call_now(self.tool, {"query": query})
        self.cpu += time.process_time() - start
        self.calls += 1
        if result.get("isError"):
            raise SystemExit(f"in-process mem_search failed: {json.dumps(result)[:300]}")

    def per_call(self) -> float:
        """CPU seconds per call; puts the folder, the environment and the store back."""
        if self.state._store is not None:
            self.state._store.close()
            self.state._store = None
        os.chdir(self.saved[0])
        if self.saved[1] is None:
            os.environ.pop("ENGRAM_DATA_DIR", None)
        else:
            os.environ["ENGRAM_DATA_DIR"] = self.saved[1]
        return self.cpu / max(1, self.calls)


def print_search_cpu(server: float, in_process: float, tool: float, waiting: float) -> None:
    """Server CPU per mem_search over stdio beside the same search in-process, beside the same
    search in a process that waits on a pipe as the server does (bench/search_worker.py), and
    beside the mem_search tool run in-process (the difference is the wire: reading, parsing,
    writing)."""
    ratio = server / in_process if in_process else float("inf")
    print(
        f"  mem_search CPU per call: server {server * 1000:6.2f} ms (its /proc rusage, 10 ms "
        f"ticks averaged) | in-process search {in_process * 1000:6.2f} ms | ratio {ratio:.2f}x "
        "(target <= 1.3x)"
    )
    print(
        f"  same search in a waiting process (woken by a pipe, as the server is) "
        f"{waiting * 1000:6.2f} ms | server / that {server / waiting if waiting else 0:.2f}x"
    )
    wire = server / tool if tool else float("inf")
    print(
        f"  mem_search tool in-process {tool * 1000:6.2f} ms (project detection, prompt "
        f"matches, envelope) | server / tool {wire:.2f}x (the wire's share)"
    )


def measure_round_trips(
    size: int,
    calls: int,
    floor_calls: list[float],
    env: dict[str, str],
    cache: Path,
    counted: int = 0,
) -> None:
    """Print mem_search (by term band) and mem_save round trips on a store of ``size``."""
    words, _ = vocabulary()
    rng = random.Random(size)
    # The folder the server runs in is kept with the cached store: the store binds its project
    # to the first folder that uses it (project-bindings.json), so a fresh temporary folder per
    # run would be refused on the second run (``project.unconfirmed``).
    project_dir = project_folder(cache)
    data_dir = build_store(size, cache)
    confirm_folder(data_dir, project_dir)
    live = Live(ENGRAM_MCP, {**env, "ENGRAM_DATA_DIR": str(data_dir)}, project_dir)
    # Every process warms up on queries of its own (the measured ones come after, fresh).
    warm_up = [query for _, query in search_queries(words, random.Random(-size), WARM_UP_CALLS)]
    for query in warm_up:
        live.call("mem_search", {"query": query})
    queries = search_queries(words, rng, calls)
    searches: list[float] = []
    by_band: dict[str, list[float]] = {name: [] for name in BANDS}
    # Each query through the server, then the same query in-process: interleaved, so both
    # figures see the same load.
    in_process = InProcess(data_dir, warm_up)
    tool = InProcessTool(data_dir, project_dir, warm_up)
    waiting = SearchWorker(data_dir, PROJECTS[0], warm_up)
    server_before = cpu_seconds(live.proc.pid)
    for name, query in queries:
        elapsed = live.call("mem_search", {"query": query})
        searches.append(elapsed)
        by_band[name].append(elapsed)
        in_process.run(query)
        tool.run(query)
        waiting.run(query)
    server_cpu = (cpu_seconds(live.proc.pid) - server_before) / max(1, len(queries))
    tool_cpu = tool.per_call()
    saves = []
    for n in range(calls):
        title = f"Bench save {n} {rng.random()}"
        arguments = {"title": title, "content": "**What** bench", "capture_prompt": False}
        saves.append(live.call("mem_save", arguments))
    live.close()
    print(
        f"\n{size:,} observations ({len(PROJECTS)} projects, search filtered to one), "
        f"load average {load_average()}:"
    )
    print_search_cpu(server_cpu, in_process.per_call(), tool_cpu, waiting.per_call())
    if counted:
        server_env = {**env, "ENGRAM_DATA_DIR": str(data_dir)}
        batch = [query for _, query in queries[:counted]]
        figures = mcp_instructions.per_call(
            ENGRAM_MCP, INIT, batch, server_env, project_dir, PROJECTS[0]
        )
        mcp_instructions.report(figures, len(batch))
    for name, values in by_band.items():
        if not values:  # fewer calls than bands
            continue
        print(
            f"  mem_search {name:11s} p50 {pct(values, 0.5):6.2f} ms  p95 {pct(values, 0.95):6.2f} ms"
        )
    for label, values in (("mem_search", searches), ("mem_save", saves)):
        p50, p95 = pct(values, 0.5), pct(values, 0.95)
        target = " (target <= 25 ms at 100k)" if label == "mem_search" and size >= 100_000 else ""
        print(
            f"  {label:10s} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms   "
            f"vs floor p50 {p50 / pct(floor_calls, 0.5):5.2f}x  p95 "
            f"{p95 / pct(floor_calls, 0.95):5.2f}x{target}"
        )


def main() -> None:
    """Run the whole benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--spawns", type=int, default=15)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--cache", type=Path, default=CACHE, help="where built stores are kept")
    parser.add_argument(
        "--instructions",
        type=int,
        default=0,
        metavar="N",
        help="also count instructions per mem_search over N calls (callgrind; slow)",
    )
    args = parser.parse_args()
    print(f"load average {load_average()} (1/5/15 min, {os.cpu_count()} cores)")
    work = Path(tempfile.mkdtemp(prefix="engram-mcp-bench-"))
    floor = [sys.executable, str(work / "floor.py")]
    (work / "floor.py").write_text(FLOOR_SOURCE)
    (work / "home").mkdir()
    env = {**os.environ, "HOME": str(work / "home"), "ENGRAM_NO_UPDATE_CHECK": "1"}
    env.pop("ENGRAM_PROJECT", None)
    measure_cold_start(args.spawns, floor, env, work)
    floor_live = Live(floor, env, work)
    floor_calls = [floor_live.call("echo", {"text": "hello"}) for _ in range(args.calls)]
    floor_live.close()
    print(
        f"\nSDK floor one-tool call: p50 {pct(floor_calls, 0.5):6.2f} ms  p95 "
        f"{pct(floor_calls, 0.95):6.2f} ms"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        measure_round_trips(size, args.calls, floor_calls, env, args.cache, args.instructions)
    shutil.rmtree(work, ignore_errors=True)
    print(f"\nload average {load_average()} at the end")


if __name__ == "__main__":
    main()
