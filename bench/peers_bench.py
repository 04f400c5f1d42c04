"""Engram's MCP server beside its peers, measured in one run, interleaved.

Compares ``engram-mcp`` (this checkout), ``engram-mcp`` v0.1.0 (the pre-performance release,
installed into a scratch venv from this repository's history), the reference Node server
``@modelcontextprotocol/server-memory`` and ``basic-memory`` (see bench/peers_setup.py):

- cold start: spawn -> initialize -> tools/list answered; median wall and CPU over N spawns
  (CPU and peak RSS of that process alone, from wait4), servers taken in turn each round;
- saves: N saves through each server's own write tool (mem_save, create_entities,
  write_note), one server after the other for each item; p50 / p95 per call and the rate
  (after one untimed call per server, which pays one-off loading);
- search: p50 / p95 of each server's search tool (mem_search, search_nodes, search_notes) at
  1k and 10k items for a common, a mid-frequency and a rare word (bench/corpus.py), the items
  seeded in each server's own storage format; plus peak RSS.

Ratios are against the Node server (and v0.1.0 for cold start), measured in the same run.

    .venv/bin/python bench/peers_bench.py                      # full run (~10-20 minutes)
    .venv/bin/python bench/peers_bench.py --spawns 5 --saves 100 --sizes 1000
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
import peers_seed
import peers_setup
from peers_setup import CACHE, say
from stdio_client import StdioServer
from store_bench import parse_size

TERMS = {"common": 1, "mid": 100, "rare": 2000}
SAVE_BUDGET_S = 240.0  # per server: a slow peer is cut short and the count reported


@dataclass
class Peer:
    """One server under test and how to talk to it."""

    name: str
    argv: list[str]
    env: Callable[[Path], dict[str, str]]
    save: Callable[[int, corpus.SyntheticObservation], tuple[str, dict[str, Any]]]
    search: Callable[[str], tuple[str, dict[str, Any]]]
    seed: Callable[[Path, list[corpus.SyntheticObservation]], None] | None = None
    figures: dict[str, Any] = field(default_factory=dict)


def peers(skip: set[str]) -> list[Peer]:
    """Every server that is installed and not skipped (missing ones are reported)."""
    found: list[Peer] = []
    argv: list[str] | None = peers_setup.current_engram()
    found.append(_engram("engram-mcp", argv, peers_seed.seed_engram))
    argv = None if "v0.1.0" in skip else peers_setup.old_engram()
    if argv:
        found.append(_engram("engram-mcp v0.1.0", argv, None))
    argv = None if "node" in skip else peers_setup.node_memory()
    if argv:
        found.append(
            Peer(
                "server-memory (Node)",
                argv,
                peers_seed.node_env,
                lambda i, o: (
                    "create_entities",
                    {
                        "entities": [
                            {
                                "name": f"{o.title} {i}",
                                "entityType": o.type,
                                "observations": [o.content],
                            }
                        ]
                    },
                ),
                lambda term: ("search_nodes", {"query": term}),
                peers_seed.seed_node,
            )
        )
    argv = None if "basic-memory" in skip else peers_setup.basic_memory()
    if argv:
        found.append(
            Peer(
                "basic-memory",
                argv,
                peers_seed.basic_env,
                lambda i, o: (
                    "write_note",
                    {"title": f"{o.title} {i}", "content": o.content, "directory": "notes"},
                ),
                lambda term: ("search_notes", {"query": term, "page_size": 10}),
                peers_seed.seed_basic,
            )
        )
    return found


def _engram(name: str, argv: list[str], seed: Any) -> Peer:
    return Peer(
        name,
        argv,
        peers_seed.engram_env,
        lambda i, o: ("mem_save", {"title": f"{o.title} {i}", "content": o.content}),
        lambda term: ("mem_search", {"query": term, "limit": 10}),
        seed,
    )


def fresh_dir(label: str) -> Path:
    """An empty scratch folder for one server's data."""
    path = CACHE / "runs" / label.replace(" ", "-").replace("(", "").replace(")", "")
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def cold_start(all_peers: list[Peer], spawns: int) -> None:
    """Spawn -> tools/list answered, each server in turn, ``spawns`` rounds (+1 warm-up)."""
    dirs = {p.name: fresh_dir(f"cold-{p.name}") for p in all_peers}
    for round_no in range(spawns + 1):
        order = all_peers[round_no % len(all_peers) :] + all_peers[: round_no % len(all_peers)]
        for peer in order:
            server = StdioServer(peer.argv, peer.env(dirs[peer.name]), dirs[peer.name])
            tools = server.open_session()
            wall = time.perf_counter() - server.started
            cpu, rss = server.close()
            if round_no == 0:  # warm-up: bytecode, first-run files
                peer.figures["tools"] = len(tools)
                continue
            peer.figures.setdefault("cold_wall", []).append(wall)
            peer.figures.setdefault("cold_cpu", []).append(cpu)
            peer.figures.setdefault("cold_rss", []).append(rss)


def saves(all_peers: list[Peer], count: int) -> None:
    """``count`` saves through each server's write tool, the servers taking turns per item."""
    items = list(corpus.observations(count, seed=11))
    live = {}
    for peer in all_peers:
        folder = fresh_dir(f"saves-{peer.name}")
        live[peer.name] = StdioServer(peer.argv, peer.env(folder), folder)
        live[peer.name].open_session()
        # Not timed: the first call pays one-off loading (Engram's SDK and tool modules).
        live[peer.name].call(*peer.save(-1, items[0]))
        peer.figures["save_times"] = []
    spent = dict.fromkeys(live, 0.0)
    for i, item in enumerate(items):
        for peer in all_peers:
            if spent[peer.name] > SAVE_BUDGET_S:
                continue
            tool, arguments = peer.save(i, item)
            started = time.perf_counter()
            live[peer.name].call(tool, arguments)
            elapsed = time.perf_counter() - started
            spent[peer.name] += elapsed
            peer.figures["save_times"].append(elapsed)
    for peer in all_peers:
        peer.figures["save_cpu"], peer.figures["save_rss"] = live[peer.name].close()


def searches(all_peers: list[Peer], size: int, repeats: int) -> None:
    """Search latency at ``size`` seeded items, servers taking turns per query."""
    items = list(corpus.observations(size, seed=5))
    live = {}
    for peer in all_peers:
        if peer.seed is None:
            continue
        folder = CACHE / "seeded" / f"{peer.name.split()[0]}-{size}"
        if not (folder / "seeded.json").exists():
            say(f"peers: seeding {size} items for {peer.name} ...")
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            peer.seed(folder, items)
            (folder / "seeded.json").write_text(json.dumps({"size": size}))
        live[peer.name] = StdioServer(peer.argv, peer.env(folder), folder)
        live[peer.name].open_session()
        live[peer.name].call(*peer.search("warm"))  # not timed: one-off loading
    for band, rank in TERMS.items():
        term = corpus.term_at_rank(rank)
        for _ in range(repeats):
            for peer in all_peers:
                if peer.name not in live:
                    continue
                tool, arguments = peer.search(term)
                started = time.perf_counter()
                live[peer.name].call(tool, arguments)
                key = f"search_{size}_{band}"
                peer.figures.setdefault(key, []).append(time.perf_counter() - started)
    for peer in all_peers:
        if peer.name in live:
            _, rss = live[peer.name].close()
            peer.figures[f"search_{size}_rss"] = rss


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} / {_p(values, 0.95) * 1000:.1f}"


def report_cold_start(all_peers: list[Peer]) -> None:
    """The cold-start table (Markdown, on stdout as soon as it is measured)."""
    node = next((p for p in all_peers if "Node" in p.name), None)
    old = next((p for p in all_peers if "v0.1.0" in p.name), None)
    print("### Cold start: spawn -> tools/list answered (median)\n")
    print("| server | tools | wall ms | CPU ms | CPU vs Node | CPU vs v0.1.0 | RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for peer in all_peers:
        f = peer.figures
        cpu = statistics.median(f["cold_cpu"])
        vs_node = f"{cpu / statistics.median(node.figures['cold_cpu']):.2f}x" if node else "-"
        vs_old = f"{cpu / statistics.median(old.figures['cold_cpu']):.2f}x" if old else "-"
        print(
            f"| {peer.name} | {f['tools']} | {statistics.median(f['cold_wall']) * 1000:.0f} |"
            f" {cpu * 1000:.0f} | {vs_node} | {vs_old} |"
            f" {statistics.median(f['cold_rss']) / 1024:.0f} |"
        )
    sys.stdout.flush()


def report_saves(all_peers: list[Peer]) -> None:
    """The saves table."""
    print("\n### Saves through each server's write tool\n")
    print("| server | saves | p50 / p95 ms | saves/s | CPU s | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|")
    for peer in all_peers:
        times = peer.figures["save_times"]
        print(
            f"| {peer.name} | {len(times)} | {_ms(times)} | {len(times) / sum(times):.0f} |"
            f" {peer.figures['save_cpu']:.1f} | {peer.figures['save_rss'] / 1024:.0f} |"
        )
    sys.stdout.flush()


def report_search(all_peers: list[Peer], size: int) -> None:
    """The search table for one size."""
    print(f"\n### Search at {size:,} items: p50 / p95 ms (peak RSS)\n")
    print(
        "| server | "
        + " | ".join(f"{b} ({corpus.term_at_rank(r)})" for b, r in TERMS.items())
        + " | RSS MiB |"
    )
    print("|---|" + "---:|" * (len(TERMS) + 1))
    for peer in all_peers:
        key = f"search_{size}_rss"
        if key not in peer.figures:
            continue
        cells = [_ms(peer.figures[f"search_{size}_{band}"]) for band in TERMS]
        print(f"| {peer.name} | " + " | ".join(cells) + f" | {peer.figures[key] / 1024:.0f} |")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawns", type=int, default=15)
    parser.add_argument("--saves", type=int, default=1000)
    parser.add_argument("--sizes", default="1k,10k", help="store sizes for search (1k, 10k, 2500)")
    parser.add_argument("--repeats", type=int, default=30, help="queries per term and size")
    parser.add_argument(
        "--skip", default="", help="comma list of peers to leave out: v0.1.0, node, basic-memory"
    )
    args = parser.parse_args(argv)
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError as exc:
        parser.error(str(exc))
    all_peers = peers({s.strip() for s in args.skip.split(",") if s.strip()})
    say(f"peers: {', '.join(p.name for p in all_peers)}")
    say("peers: cold start ...")
    cold_start(all_peers, args.spawns)
    report_cold_start(all_peers)
    say("peers: saves ...")
    saves(all_peers, args.saves)
    report_saves(all_peers)
    for size in sizes:
        say(f"peers: search at {size} ...")
        searches(all_peers, size, args.repeats)
        report_search(all_peers, size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
