"""How long `engram hook claude` takes to answer SessionStart against 10k observations.

Usage: .venv/bin/python bench/hook_bench.py [--observations 10000] [--runs 40] [--governed]

Times the hook the way a host runs it: the installed `engram` console script under
`subprocess.run` with the event on stdin, the bench's own environment passed through as it is
(`PYTHONDONTWRITEBYTECODE` included), the project detected from the folder the host runs it in
(bound once, as `engram init --confirm` does; no `ENGRAM_PROJECT`). Prints p50 / p95 wall time
and p50 CPU time, interleaved in one run: answered by a running `engram serve` on a free port
(`ENGRAM_PORT`), and in-process (`ENGRAM_PORT` naming a port nobody listens on), each as a
ratio to a bare `python -c pass` measured in the same run, with the load average beside them.
Engram's bytecode is compiled first, as every documented install does (pip, pipx,
`uv tool install --compile-bytecode`): without it an interpreter under
`PYTHONDONTWRITEBYTECODE=1` compiles every module on every call (see docs/performance.md).
The store is built once under bench/.cache/ and reused (delete the folder to rebuild).
`--governed` measures a copy of it where the project also has governed knowledge (approved
conventions and a working note, as a project using the engram_* tools has).
`--instructions` also counts the instructions one bare run and one in-process hook run execute
(valgrind's callgrind, `PYTHONHASHSEED=0`; and a UserPromptSubmit in that session): unlike wall or CPU time, the count barely moves
with the machine's load, so it shows what a change to the hook path costs or saves.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from processes import cpu_seconds, free_port, load_average

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


def project_repository(folder: Path) -> Path:
    """The folder the host runs the hook in: a git repository of its own (the bench's cache
    sits inside Engram's checkout, whose repository would otherwise name the project) with a
    remote naming PROJECT, as a clone has."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / ".git").exists():
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
        remote = f"https://git.example.invalid/team/{PROJECT}.git"
        subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)
    return folder


def with_governed_knowledge(data_dir: Path, workspace: Path) -> Path:
    """A copy of ``data_dir`` where PROJECT also has governed knowledge (built once): five
    approved conventions and a working note, as a project using the engram_* tools has."""
    from engram.memory.governed import Candidate, commit, propose, propose_note
    from engram.memory.governed.base import open_knowledge_base

    target = data_dir.with_name(f"{data_dir.name}-governed")
    marker = target / "governed-built"
    if marker.exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(data_dir, target)
    os.environ["ENGRAM_DATA_DIR"] = str(target)
    with open_knowledge_base(workspace, project=PROJECT) as kb:
        for n, word in enumerate(WORDS[:5]):
            rule = f"Change the {word} code only behind its feature flag ({n})."
            candidate = Candidate(f"The {word} rule", rule, "convention")
            commit(kb, propose(kb, [candidate]).approval_token)
        note = "Ranking is half done\nNext step: break score ties by newest id."
        commit(kb, propose_note(kb, note, objective="finish ranking").approval_token)
    marker.touch()
    return target


CPU: dict[str, list[float]] = {}


def compile_bytecode() -> int:
    """Compile Engram's modules as an install does; returns how many lacked bytecode."""
    import compileall
    import importlib.util

    import engram

    package = Path(engram.__file__).parent
    missing = sum(
        not Path(importlib.util.cache_from_source(str(source))).exists()
        for source in package.rglob("*.py")
    )
    compileall.compile_dir(str(package), quiet=1)
    return missing


def timed(label: str, argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> float:
    """Wall time of one run; its CPU time (user + sys, less sensitive to a busy machine) is
    appended to ``CPU[label]``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    CPU.setdefault(label, []).append(cpu)
    if result.returncode != 0 or result.stderr:
        raise SystemExit(f"{argv} failed: {result.stderr.decode()}")
    return elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def start_server(
    engram: Path, env: dict[str, str], port: int, cwd: Path
) -> subprocess.Popen[bytes]:
    """``engram serve <port>`` over the bench store, once /health answers."""
    server = subprocess.Popen(
        [str(engram), "serve", str(port)],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(
                    b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                )
                if sock.recv(64).startswith(b"HTTP/1.1 200"):
                    return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("engram serve did not answer /health")


def instructions(argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> int | None:
    """Instructions one run of ``argv`` executes, counted by callgrind (None without valgrind)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    command = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
    result = subprocess.run(
        command, input=stdin, capture_output=True, env=dict(env, PYTHONHASHSEED="0"), cwd=cwd
    )
    found = re.search(r"Collected : (\d+)", result.stderr.decode(errors="replace"))
    if result.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed on {argv}: {result.stderr.decode()[-400:]}")
    return int(found.group(1))


def report_instructions(
    hook: list[str], event: dict[str, str], env: dict[str, str], cwd: Path
) -> None:
    """One bare run, the in-process SessionStart ``event``, then a prompt in its session."""
    bare = instructions([sys.executable, "-c", "pass"], b"", env, cwd)
    alone = instructions(hook, json.dumps(event).encode(), env, cwd)
    if bare is None or alone is None:
        print("instructions: valgrind not found (apt-get install valgrind to count them)")
        return
    prompt = dict(event, hook_event_name="UserPromptSubmit", prompt="why does the cache retry?")
    prompted = instructions(hook, json.dumps(prompt).encode(), env, cwd) or 0
    print(
        f"instructions (callgrind, one run each): python -c pass {bare / 1e6:.1f}M,"
        f"  in-process {alone / 1e6:.1f}M  ratio {alone / bare:.2f}x"
        f"  (UserPromptSubmit {prompted / 1e6:.1f}M  ratio {prompted / bare:.2f}x)"
    )


def report(label: str, times: list[float], bare: list[float]) -> None:
    p50, bare_p50 = statistics.median(times), statistics.median(bare)
    cpu = statistics.median(CPU[label][1:])
    bare_cpu = statistics.median(CPU["bare"])
    print(
        f"{label:<24} wall p50 {p50 * 1000:6.1f} ms  p95 {percentile(times, 0.95) * 1000:6.1f} ms"
        f"  ratio {p50 / bare_p50:.2f}x   CPU p50 {cpu * 1000:5.1f} ms  ratio {cpu / bare_cpu:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--cache", type=Path, default=CACHE, help="where the store is kept")
    parser.add_argument(
        "--governed",
        action="store_true",
        help="give the project governed knowledge too (approved rules and a working note)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count the instructions of one bare and one in-process run (callgrind)",
    )
    args = parser.parse_args()

    data_dir = args.cache / f"data-{args.observations}"
    workspace = project_repository(args.cache / PROJECT)
    build_store(data_dir, args.observations)
    if args.governed:
        data_dir = with_governed_knowledge(data_dir, workspace)

    from engram.memory.project_binding import confirm_here

    confirm_here(data_dir, workspace)  # the folder's project, bound as `engram init --confirm`
    missing = compile_bytecode()
    engram = Path(sys.executable).with_name("engram")
    port, dead_port = free_port(), free_port()
    env = dict(os.environ, ENGRAM_DATA_DIR=str(data_dir))
    for name in ("ENGRAM_SOCKET", "ENGRAM_PROJECT", "ENGRAM_HOOK_LOCAL"):
        env.pop(name, None)
    served = dict(env, ENGRAM_PORT=str(port))
    alone = dict(env, ENGRAM_PORT=str(dead_port))  # nothing listens there: in-process
    server = start_server(engram, dict(env, ENGRAM_PORT=""), port, workspace)
    try:
        hook = [str(engram), "hook", "claude"]
        warm = {
            "hook_event_name": "SessionStart",
            "session_id": "bench-warm",
            "cwd": str(workspace),
        }
        for label, hook_env in (("with engram serve", served), ("in-process", alone)):
            timed(label, hook, json.dumps(warm).encode(), hook_env, workspace)
        times: dict[str, list[float]] = {"with engram serve": [], "in-process": [], "bare": []}
        served_cpu = 0.0
        for n in range(args.runs):
            payload = {
                "hook_event_name": "SessionStart",
                "source": "startup",
                "session_id": f"bench-{os.getpid()}-{n}",
                "cwd": str(workspace),
            }
            stdin = json.dumps(payload).encode()
            before = cpu_seconds(server.pid)
            times["with engram serve"].append(
                timed("with engram serve", hook, stdin, served, workspace)
            )
            served_cpu += cpu_seconds(server.pid) - before
            payload["session_id"] += "-alone"
            stdin = json.dumps(payload).encode()
            times["in-process"].append(timed("in-process", hook, stdin, alone, workspace))
            times["bare"].append(timed("bare", [sys.executable, "-c", "pass"], b"", env, workspace))

        answers = [
            subprocess.run(
                hook,
                input=json.dumps({**payload, "session_id": f"bench-check-{name}"}).encode(),
                capture_output=True,
                env=hook_env,
                cwd=workspace,
                check=True,
            ).stdout
            for name, hook_env in (("served", served), ("alone", alone))
        ]
    finally:
        server.terminate()
        server.wait(timeout=30)
    context = json.loads(answers[0])["hookSpecificOutput"]["additionalContext"]
    alone_context = json.loads(answers[1])["hookSpecificOutput"]["additionalContext"]
    print(f"load average {load_average()} (1/5/15 min, {os.cpu_count()} cores)")
    print(f"store: {args.observations} observations, {args.runs} runs each, interleaved")
    print(
        f"bytecode: compiled first ({missing} Engram modules lacked it); "
        f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}"
    )
    print(f"pack: {len(context.encode())} bytes (in-process: {len(alone_context.encode())} bytes)")
    bare = times["bare"]
    print(
        f"{'python -c pass':<24} wall p50 {statistics.median(bare) * 1000:6.1f} ms"
        f"  p95 {percentile(bare, 0.95) * 1000:6.1f} ms"
        f"                 CPU p50 {statistics.median(CPU['bare']) * 1000:5.1f} ms"
    )
    for label in ("with engram serve", "in-process"):
        report(label, times[label], bare)
    print(
        f"engram serve's own CPU per served hook: {served_cpu / args.runs * 1000:.1f} ms "
        "(work moved out of the hook process, not counted above)"
    )
    if args.instructions:
        payload["session_id"] = f"bench-{os.getpid()}-instructions"
        report_instructions(hook, payload, alone, workspace)
    print(f"load average {load_average()} at the end")


if __name__ == "__main__":
    main()
