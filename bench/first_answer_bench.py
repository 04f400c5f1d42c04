"""The first tool answer: ``engram-mcp`` beside the reference Node memory server, interleaved.

What a host waits for when it starts a session: spawn -> ``initialize`` ->
``notifications/initialized`` -> ``tools/list`` -> the first ``tools/call`` answered. Measured
for three sequences, taken in turn every round (the first round is a warm-up, not counted):

- ``engram-mcp`` whose first call is ``mem_context``;
- ``engram-mcp`` whose first call is ``mem_search`` (a mid-frequency word), with semantic
  recall on when the ``[semantic]`` extra is installed, and once more with it off
  (``ENGRAM_SEARCH=lexical``, what a base install searches with);
- ``engram-mcp`` opened the way Claude Code 2.1 opens (2026-07-28 era: ``server/discover``,
  ``tools/list``, then ``tools/call`` of ``mem_context``, each with its envelope);
- ``@modelcontextprotocol/server-memory`` (Node) whose first call is ``search_nodes`` (same word);

each on its own copy of a store seeded with the same N items (bench/peers_seed.py: Engram's
through its save operation, Node's as its JSONL graph). Per sequence it prints the median over
the rounds of: wall time from spawn to the first tool answer; the process's CPU (user + system,
from ``wait4`` once it has exited after stdin closed, so only that process and its whole life);
its RSS right after the first answer (``/proc/<pid>/status`` VmRSS) and its peak RSS; and the
ratios against the Node server measured in the same run, with the load average before and
after. Engram's bytecode (and the venv's site-packages') is compiled first, as every
documented install does.

    .venv/bin/python bench/first_answer_bench.py                 # 15 rounds at 10k
    .venv/bin/python bench/first_answer_bench.py --rounds 3 --size 1000
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
import peers_seed
import peers_setup
from hook_bench import compile_bytecode
from peers_setup import CACHE, say
from processes import load_average
from stdio_client import StdioServer
from store_bench import parse_size

from engram.testing import CLAUDE_META

TERM_RANK = 100  # a mid-frequency word (bench/corpus.py), as peers_bench's "mid" band


@dataclass
class Sequence:
    """One server and the first tool call it is asked for."""

    label: str
    argv: list[str]
    env: Any
    seed: Any
    store: str  # the seeded folder's name (shared with bench/peers_bench.py)
    tool: str
    arguments: dict[str, Any]
    modern: bool = False  # Claude Code's 2026-07-28 opening instead of the handshake
    runs: list[tuple[float, float, int, int]] = field(default_factory=list)


def sequences(term: str) -> list[Sequence]:
    """Engram's two first calls and the Node server's (skipped, saying why, when missing)."""
    engram = peers_setup.current_engram()
    found = [
        Sequence(
            "engram-mcp mem_context",
            engram,
            peers_seed.engram_env,
            peers_seed.seed_engram,
            "engram-mcp",
            "mem_context",
            {},
        ),
        Sequence(
            "engram-mcp mem_search",
            engram,
            peers_seed.engram_env,
            peers_seed.seed_engram,
            "engram-mcp",
            "mem_search",
            {"query": term, "limit": 10},
        ),
        Sequence(
            "engram-mcp mem_search, lexical",
            engram,
            lexical_env,
            peers_seed.seed_engram,
            "engram-mcp",
            "mem_search",
            {"query": term, "limit": 10},
        ),
        Sequence(
            "engram-mcp mem_context, Claude Code's 2026-07-28 opening",
            engram,
            peers_seed.engram_env,
            peers_seed.seed_engram,
            "engram-mcp",
            "mem_context",
            {},
            modern=True,
        ),
    ]
    node = peers_setup.node_memory()
    if node:
        found.append(
            Sequence(
                "server-memory (Node) search_nodes",
                node,
                peers_seed.node_env,
                peers_seed.seed_node,
                "server-memory",
                "search_nodes",
                {"query": term},
            )
        )
    return found


def lexical_env(folder: Path) -> dict[str, str]:
    """Engram's environment with semantic recall off (``ENGRAM_SEARCH=lexical``): what a base
    install without the ``[semantic]`` extra searches with."""
    return {**peers_seed.engram_env(folder), "ENGRAM_SEARCH": "lexical"}


def seeded(seq: Sequence, size: int, cache: Path) -> Path:
    """The seeded store for ``seq`` (built once; the same folders bench/peers_bench.py uses)."""
    folder = cache / "seeded" / f"{seq.store}-{size}"
    if not (folder / "seeded.json").exists():
        say(f"first-answer: seeding {size} items for {seq.store} ...")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        seq.seed(folder, list(corpus.observations(size, seed=5)))
        (folder / "seeded.json").write_text(f'{{"size": {size}}}')
    return folder


def working_copy(seq: Sequence, source: Path, cache: Path) -> Path:
    """A private copy of the seeded store, so no run sees another's writes or WAL."""
    name = seq.label.replace(" ", "-").replace(",", "").replace("(", "").replace(")", "")
    target = cache / "runs" / "first-answer" / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("home"))
    return target


def compile_dependencies() -> None:
    """Byte-compile the venv's site-packages, as pip does at install (uv only when asked):
    without it an interpreter under ``PYTHONDONTWRITEBYTECODE=1`` compiles numpy and the
    tokenizer bindings on every first semantic search."""
    import compileall
    import sysconfig

    compileall.compile_dir(sysconfig.get_paths()["purelib"], quiet=2, workers=1)


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """The process's resident set right now (``VmHWM``: its peak so far), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def one_run(seq: Sequence, folder: Path) -> tuple[float, float, int, int]:
    """(wall s to the first tool answer, CPU s of the whole process, RSS KiB after the answer,
    peak RSS KiB)."""
    server = StdioServer(seq.argv, seq.env(folder), folder)
    if seq.modern:
        envelope = {"_meta": CLAUDE_META}
        server.request("server/discover", envelope)
        server.request("tools/list", envelope)
        params = {"name": seq.tool, "arguments": seq.arguments, **envelope}
        result = server.request("tools/call", params)
    else:
        server.open_session()
        result = server.call(seq.tool, seq.arguments)
    wall = time.perf_counter() - server.started
    rss = rss_kib(server.proc.pid)
    # The peak since exec. wait4's ru_maxrss is not: Linux carries the forking parent's (this
    # bench's) high-water mark into the child, so every server showed the bench's own peak.
    peak = rss_kib(server.proc.pid, "VmHWM")
    if not result.get("content"):
        raise SystemExit(f"{seq.label}: the first answer has no content")
    cpu, _maxrss = server.close()
    return wall, cpu, rss, peak


def measure(all_seqs: list[Sequence], folders: dict[str, Path], rounds: int) -> None:
    """``rounds`` rounds (+1 warm-up), the sequences taken in turn, the order rotating."""
    for round_no in range(rounds + 1):
        shift = round_no % len(all_seqs)
        for seq in all_seqs[shift:] + all_seqs[:shift]:
            figures = one_run(seq, folders[seq.label])
            if round_no:
                seq.runs.append(figures)


def report(all_seqs: list[Sequence], rounds: int, size: int) -> None:
    """The table, with ratios against the Node server."""
    node = next((s for s in all_seqs if "Node" in s.label), None)

    def med(seq: Sequence, index: int) -> float:
        return statistics.median(run[index] for run in seq.runs)

    print(f"### First tool answer at {size:,} items: spawn -> initialize -> tools/list -> ")
    print(f"first tools/call, median of {rounds} interleaved runs\n")
    print(
        "| server, first call | wall ms | CPU ms | RSS after answer MiB | peak RSS MiB |"
        " wall vs Node | CPU vs Node | RSS vs Node |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for seq in all_seqs:
        cells = [f"{med(seq, 0) * 1000:.0f}", f"{med(seq, 1) * 1000:.0f}"]
        cells += [f"{med(seq, 2) / 1024:.1f}", f"{med(seq, 3) / 1024:.1f}"]
        for index in (0, 1, 2):
            ratio = med(seq, index) / med(node, index) if node else float("nan")
            cells.append(f"{ratio:.2f}x")
        print(f"| {seq.label} | " + " | ".join(cells) + " |")
    print("\ntargets: wall, CPU and RSS after the answer <= 1.00x the Node server's")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--size", default="10k", help="seeded items (1k, 10k, 2500)")
    parser.add_argument("--cache", type=Path, default=CACHE, help="where seeded stores are kept")
    args = parser.parse_args(argv)
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"load average {load_average()} at the start (1/5/15 min, {os.cpu_count()} cores)")
    missing = compile_bytecode()
    compile_dependencies()
    print(f"bytecode: compiled first ({missing} Engram modules lacked it; site-packages too)")
    term = corpus.term_at_rank(TERM_RANK)
    all_seqs = sequences(term)
    if not any("Node" in s.label for s in all_seqs):
        say("first-answer: no Node server to compare with; printing Engram's figures alone")
    folders = {s.label: working_copy(s, seeded(s, size, args.cache), args.cache) for s in all_seqs}
    say(f"first-answer: {args.rounds} rounds of {len(all_seqs)} sequences ...")
    measure(all_seqs, folders, args.rounds)
    report(all_seqs, args.rounds, size)
    print(f"\nload average {load_average()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
