"""How soon a freshly spawned ``engram serve`` answers ``GET /health``.

The Go plugins' SessionStart scripts start ``engram serve`` in the background, sleep 0.5 s and
then ask it for the project and register the session; a server that is not answering by then
loses that session's registration and context. This bench spawns ``engram serve`` on a free
port (its own empty data dir) and polls ``GET /health`` until an Engram answers, against the
same spawn of a bare ``python -c pass`` run to its exit; runs interleaved, medians printed with
the load average beside them (a loaded machine stretches both).

    .venv/bin/python bench/serve_start_bench.py [--runs 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from processes import cpu_seconds, free_port

TARGET_S = 0.5
GIVE_UP_S = 30.0


def _healthy(port: int) -> bool:
    """One ``GET /health`` over a fresh connection: True when an Engram answered 200."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=GIVE_UP_S) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
    except OSError:
        return False
    return answer.startswith(b"HTTP/1.1 200") and b'"service":"engram"' in answer


def spawn_to_health(engram: str, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawning ``engram serve`` to its first healthy answer, and the CPU seconds
    the server used by then (waits for a CPU on a loaded machine are not in it)."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [engram, "serve", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        while not _healthy(port):
            if process.poll() is not None or time.perf_counter() - started > GIVE_UP_S:
                raise SystemExit(f"engram serve did not answer (exit {process.returncode})")
            time.sleep(0.002)
        return time.perf_counter() - started, cpu_seconds(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)


def spawn_bare(env: dict[str, str]) -> float:
    """Seconds from spawning ``python -c pass`` to its exit."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    engram = shutil.which("engram", path=str(Path(sys.executable).parent)) or "engram"
    root = Path(tempfile.mkdtemp(prefix="engram-serve-bench-"))
    env = {**os.environ, "HOME": str(root), "ENGRAM_DATA_DIR": str(root / ".engram")}
    for name in ("ENGRAM_PORT", "ENGRAM_SOCKET", "ENGRAM_CLOUD_AUTOSYNC"):
        env.pop(name, None)
    load_before = os.getloadavg()
    spawn_to_health(engram, env)  # the first run creates the store
    serve, cpu, bare = [], [], []
    for _ in range(options.runs):
        wall, used = spawn_to_health(engram, env)
        serve.append(wall)
        cpu.append(used)
        bare.append(spawn_bare(env))
    load_after = os.getloadavg()
    shutil.rmtree(root, ignore_errors=True)
    figures = {
        "runs": options.runs,
        "serve_median_s": round(statistics.median(serve), 4),
        "serve_max_s": round(max(serve), 4),
        "serve_cpu_median_s": round(statistics.median(cpu), 4),
        "bare_python_median_s": round(statistics.median(bare), 4),
        "ratio": round(statistics.median(serve) / statistics.median(bare), 2),
        "within_target": statistics.median(serve) <= TARGET_S,
        "target_s": TARGET_S,
        "load_average": [round(x, 2) for x in (*load_before[:1], *load_after[:1])],
    }
    if options.json:
        print(json.dumps(figures))
        return 0
    print(f"engram serve: spawn -> first healthy GET /health, median of {options.runs}")
    print(
        f"  engram serve      {figures['serve_median_s'] * 1000:8.1f} ms (max {max(serve) * 1000:.1f})"
    )
    print(f"  its CPU by then   {figures['serve_cpu_median_s'] * 1000:8.1f} ms")
    print(f"  python -c pass    {figures['bare_python_median_s'] * 1000:8.1f} ms")
    print(
        f"  ratio             {figures['ratio']:8.2f}x   target {TARGET_S * 1000:.0f} ms: "
        f"{'met' if figures['within_target'] else 'MISSED'}"
    )
    print(f"  load average      {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
