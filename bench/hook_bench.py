"""How long `engram hook claude` takes to answer SessionStart against 10k observations.

Usage: .venv/bin/python bench/hook_bench.py [--observations 10000] [--runs 40]

Prints p50 / p95 wall time of the hook (the installed `engram` console script, exactly what
Claude Code runs) and of a bare `python -c pass` measured in the same run, and their ratio.
The store is built once under bench/.cache/ and reused (delete the folder to rebuild).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache" / "hook-bench"
PROJECT = "bench-project"
WORDS = [
    "cache",
    "index",
    "query",
    "session",
    "token",
    "schema",
    "migration",
    "retry",
    "timeout",
    "parser",
]


def build_store(data_dir: Path, count: int) -> None:
    """Fill ``data_dir`` with ``count`` observations of PROJECT (skipped when already there)."""
    from engram.memory.save import save_observation
    from engram.store.db import Store

    marker = data_dir / f"built-{count}"
    if marker.exists():
        return
    store = Store.open(data_dir)
    started = time.perf_counter()
    try:
        for n in range(count):
            word = WORDS[n % len(WORDS)]
            save_observation(
                store,
                title=f"Decision {n} about the {word}",
                content=f"**What**: changed the {word} handling ({n})\n**Why**: bench data {n}",
                project=PROJECT,
                type="decision",
            )
    finally:
        store.close()
    marker.touch()
    print(f"built {count} observations in {time.perf_counter() - started:.1f}s", file=sys.stderr)


CPU: dict[str, list[float]] = {}


def timed(argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> float:
    """Wall time of one run; its CPU time (user + sys, less sensitive to a busy machine) is
    appended to ``CPU[argv[0]]``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    CPU.setdefault(argv[0], []).append(cpu)
    if result.returncode != 0 or result.stderr:
        raise SystemExit(f"{argv} failed: {result.stderr.decode()}")
    return elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()

    data_dir = CACHE / f"data-{args.observations}"
    workspace = CACHE / PROJECT
    workspace.mkdir(parents=True, exist_ok=True)
    build_store(data_dir, args.observations)

    engram = Path(sys.executable).with_name("engram")
    env = dict(os.environ, ENGRAM_DATA_DIR=str(data_dir), ENGRAM_PROJECT=PROJECT)
    # An installed Engram has its bytecode compiled (pip does it); let the first call cache it.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    warm = {"hook_event_name": "SessionStart", "session_id": "bench-warm", "cwd": str(workspace)}
    timed([str(engram), "hook", "claude"], json.dumps(warm).encode(), env, workspace)
    hook_times: list[float] = []
    bare_times: list[float] = []
    for n in range(args.runs):
        payload = {
            "hook_event_name": "SessionStart",
            "source": "startup",
            "session_id": f"bench-{os.getpid()}-{n}",
            "cwd": str(workspace),
        }
        hook_times.append(
            timed([str(engram), "hook", "claude"], json.dumps(payload).encode(), env, workspace)
        )
        bare_times.append(timed([sys.executable, "-c", "pass"], b"", env, workspace))

    answer = subprocess.run(
        [str(engram), "hook", "claude"],
        input=json.dumps({**payload, "session_id": "bench-check"}).encode(),
        capture_output=True,
        env=env,
        cwd=workspace,
        check=True,
    ).stdout
    context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    hook_p50, bare_p50 = statistics.median(hook_times), statistics.median(bare_times)
    print(f"store: {args.observations} observations, {args.runs} runs each")
    print(f"pack: {len(context.encode())} bytes")
    print(
        f"engram hook claude SessionStart: p50 {hook_p50 * 1000:.1f} ms, p95 {percentile(hook_times, 0.95) * 1000:.1f} ms"
    )
    print(
        f"python -c pass:                  p50 {bare_p50 * 1000:.1f} ms, p95 {percentile(bare_times, 0.95) * 1000:.1f} ms"
    )
    print(f"ratio (p50 hook / p50 bare python): {hook_p50 / bare_p50:.2f}x")
    hook_cpu = statistics.median(CPU[str(engram)][1:])
    bare_cpu = statistics.median(CPU[sys.executable])
    print(
        f"CPU time p50: hook {hook_cpu * 1000:.1f} ms, bare python {bare_cpu * 1000:.1f} ms, ratio {hook_cpu / bare_cpu:.2f}x"
    )
    print(f"hook over bare python (p50): {(hook_p50 - bare_p50) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
