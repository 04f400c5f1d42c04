"""Run the benches and rewrite the figures section of docs/performance.md from their output.

Usage:  .venv/bin/python bench/run_all.py [--quick] [--only hook,mcp] [--list] [--doc PATH]

Each bench runs as its own process, one after the other, with the load average read before
and after it. The section between ``<!-- run_all:begin -->`` and ``<!-- run_all:end -->`` in
the doc (added under its title when missing) then holds the date, the commit, the machine and,
per bench, the command, the load, the time it took and its output. ``--only`` re-runs some
benches and keeps the others' last figures. A bench that fails is recorded as failed (its last
error line) and makes the run exit 1; the other benches still run. ``--quick``: tiny sizes
(a check that everything runs, not figures to quote).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from processes import load_average

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- run_all:begin -->", "<!-- run_all:end -->"
MAX_LINES = 120  # of one bench's output kept in the doc
# name: (script, standard arguments, --quick arguments). Every bench under bench/ that prints
# figures is here: Postgres comes from the [cloud] extra (pgserver), the Node server and the
# other peers from scripts/install-host-clis and bench/peers_setup.py, tmux from Debian; a
# bench whose peer is missing says so in its own output.
BENCHES: dict[str, tuple[str, list[str], list[str]]] = {
    "hook": (
        "hook_bench.py",
        ["--runs", "15", "--instructions"],
        ["--runs", "2", "--observations", "200"],
    ),
    "mcp": (
        "mcp_bench.py",
        ["--sizes", "1000,10000,100000", "--spawns", "15", "--calls", "300"],
        ["--sizes", "200", "--spawns", "1", "--calls", "3"],
    ),
    # Beside the Node reference server when scripts/install-host-clis installed it (else
    # Engram's figures alone, saying so).
    "first-answer": (
        "first_answer_bench.py",
        ["--rounds", "15"],
        ["--rounds", "1", "--size", "200"],
    ),
    "serve-start": ("serve_start_bench.py", ["--runs", "10"], ["--runs", "1"]),
    "store": (
        "store_bench.py",
        ["--sizes", "10k", "--repeats", "20", "--saves", "300"],
        ["--sizes", "2000", "--repeats", "2", "--saves", "10"],
    ),
    "conflicts": ("conflicts_bench.py", [], ["--noise", "200"]),
    "sync": (
        "sync_bench.py",
        ["--size", "10k", "--repeats", "3"],
        ["--size", "500", "--repeats", "1"],
    ),
    "autosync": ("autosync_bench.py", ["--rounds", "4"], ["--rounds", "1", "--saves", "5"]),
    "http": (
        "http_bench.py",
        ["--size", "10k", "--repeats", "50", "--mix", "100", "--clients", "16", "--seconds", "30"],
        ["--size", "1500", "--repeats", "5", "--mix", "12", "--clients", "4", "--requests", "12"],
    ),
    "writers": (
        "writers_bench.py",
        ["--size", "100k", "--saves", "600", "--clients", "16", "--writes", "150"],
        ["--size", "1500", "--saves", "20", "--clients", "4", "--writes", "5"],
    ),
    "cloud": (
        "cloud_bench.py",
        ["--sizes", "1000,10000,100000", "--repeats", "3"],
        [
            "--sizes",
            "300",
            "--repeats",
            "1",
            "--fleet-servers",
            "2",
            "--fleet-clients",
            "4",
            "--fleet-mutations",
            "10",
        ],
    ),
    "retrieval": (
        "retrieval_bench.py",
        [
            "--sizes",
            "5k,100k",
            "--rankings",
            "legacy,bm25,engram,hybrid",
            "--check-hybrid",
            "--save-throughput",
            "--term-repeats",
            "20",
        ],
        ["--sizes", "5k", "--rankings", "engram,hybrid", "--term-repeats", "0"],
    ),
    "embedders": (
        "embedder_compare.py",
        ["--limit", "1500"],
        ["--embedders", "wordllama-l2-supercat", "--limit", "200"],
    ),
    "vector-index": (
        "vector_index_bench.py",
        ["--size", "100k", "--rounds", "3"],
        ["--size", "5k", "--rounds", "1", "--queries", "5"],
    ),
    "sqlite-vec": ("sqlite_vec_bench.py", ["--size", "100k"], ["--size", "5k", "--queries", "5"]),
    "tui": (
        "tui_bench.py",
        ["--sizes", "1k,100k", "--rounds", "5"],
        ["--sizes", "1k,2000", "--rounds", "1", "--no-terminal"],
    ),
    "peers": (
        "peers_bench.py",
        ["--spawns", "15", "--saves", "300", "--sizes", "1000,10000", "--repeats", "10"],
        ["--spawns", "1", "--saves", "5", "--sizes", "200", "--repeats", "1"],
    ),
    "citations": (
        "citations_bench.py",
        ["--runs", "15"],
        [
            "--files",
            "30",
            "--memories",
            "30",
            "--plain",
            "5",
            "--observations",
            "200",
            "--runs",
            "2",
        ],
    ),
    "citations-real": ("citations_real_repo.py", ["--memories", "120"], ["--memories", "50"]),
}


def run_bench(name: str, quick: bool) -> str:
    """Run one bench; return its section (markdown) for the doc."""
    script, standard, small = BENCHES[name]
    argv = [sys.executable, str(ROOT / "bench" / script), *(small if quick else standard)]
    shown = " ".join([".venv/bin/python", f"bench/{script}", *(small if quick else standard)])
    print(f"== {name}: {shown}", flush=True)
    ran_at = commit()
    started_at = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_before, started = load_average(), time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds, load_after = time.perf_counter() - started, load_average()
    sys.stdout.write(done.stdout)
    lines = done.stdout.rstrip("\n").splitlines()
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES], f"... ({len(lines) - MAX_LINES} more lines)"]
    status = "" if done.returncode == 0 else f" — **failed** (exit {done.returncode})"
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.strip()]
        lines.append(f"error: {errors[-1] if errors else 'no message'}")
        print(f"   failed: {lines[-1]}", flush=True)
    body = "\n".join(lines)
    return (
        f"<!-- bench:{name} -->\n### {name}{status}\n\n`{shown}` — commit `{ran_at}`, {started_at},"
        f" load average {load_before} before, {load_after} after, {seconds:.0f} s\n\n"
        f"```\n{body}\n```\n"
    )


def commit() -> str:
    """The checkout's short commit, ``+`` when its working tree differs from it."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout

    head = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    return head + ("+" if git("status", "--porcelain", "--untracked-files=no").strip() else "")


def header(quick: bool) -> str:
    """The lines that say when, where and on what the figures were measured."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    kind = " (`--quick`: tiny sizes, not figures to quote)" if quick else ""
    return (
        "## Latest figures (bench/run_all.py)\n\n"
        f"Regenerated by `.venv/bin/python bench/run_all.py`{kind} on {now}, commit "
        f"`{commit()}` (each bench's block names the commit and time it ran at: `--only` keeps"
        f" the others' blocks): Python {platform.python_version()}, SQLite "
        f"{sqlite3.sqlite_version}, {os.cpu_count()} cores, load average {load_average()} "
        "(1/5/15 min) at the end. Wall times on a loaded machine mostly measure the scheduler: "
        "read the CPU figures and the ratios measured in the same run.\n"
    )


def previous_blocks(section: str) -> dict[str, str]:
    """The per-bench blocks of the current section, by name."""
    parts = re.split(r"(?m)^(?=<!-- bench:[\w-]+ -->$)", section)
    found = {}
    for part in parts:
        match = re.match(r"<!-- bench:([\w-]+) -->\n", part)
        if match:
            found[match.group(1)] = part.rstrip("\n") + "\n"
    return found


def rewrite(doc: Path, blocks: dict[str, str], quick: bool) -> None:
    """Put the section with ``blocks`` (kept in BENCHES order) into ``doc``."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n"
    start, end = text.find(BEGIN), text.find(END)
    if start != -1 and end > start:
        before, after = text[:start], text[end + len(END) :]
        old = previous_blocks(text[start:end])
    else:
        title_end = text.find("\n") + 1 if text.startswith("# ") else 0
        before, after = text[:title_end] + "\n", "\n\n" + text[title_end:].lstrip("\n")
        old = {}
    merged = {**old, **blocks}
    ordered = [merged[name] for name in BENCHES if name in merged]
    section = "\n".join([header(quick), *ordered])
    doc.write_text(f"{before}{BEGIN}\n{section}{END}{after}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma list of benches (see --list)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a check, not figures")
    parser.add_argument("--doc", type=Path, default=DOC, help="the doc to rewrite")
    parser.add_argument("--list", action="store_true", help="list the benches and exit")
    args = parser.parse_args()
    if args.list:
        for name, (script, standard, _) in BENCHES.items():
            print(f"{name:12s} bench/{script} {' '.join(standard)}")
        return 0
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        print(f"error: unknown bench {', '.join(unknown)} (known: {', '.join(BENCHES)})")
        return 2
    blocks = {name: run_bench(name, args.quick) for name in names}
    rewrite(args.doc, blocks, args.quick)
    failed = [name for name, block in blocks.items() if "**failed**" in block.split("\n")[1]]
    print(
        f"wrote {args.doc} ({len(blocks)} benches{', failed: ' + ', '.join(failed) if failed else ''})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
