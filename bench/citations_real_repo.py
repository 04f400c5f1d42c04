"""Citation checking on a real repository you choose, judged by Python's own parser.

Usage: .venv/bin/python bench/citations_real_repo.py [--repo PATH] [--memories 120] [--seed 1]

``--repo`` defaults to this checkout (Engram's own Python files).

It clones ``PATH`` (any git repository with Python files) into a temporary folder. Then it
saves ``--memories`` memories, each citing one function or class that exactly one ``.py``
file defines (``path:name()``, `` `name` in `path` `` or ``path::name``). Those names come
from ``ast``, not from Engram's scanner. It commits a history that renames 10 of the files,
deletes the cited definition from 10 (found by ``ast``, decorators included), deletes 10
files and appends a comment to 15. Then it reports the precision and recall of ``stale``
and ``changed`` with the load average. The clone is deleted afterwards; ``PATH`` is never
written.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

Definition = tuple[str, int, int]  # name, first line (decorators included), last line


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=B", "-c", "user.email=b@example.com", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def definitions(text: str) -> list[Definition]:
    """Functions and classes defined exactly once in a module (any depth)."""
    nodes = [
        n
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    names = [n.name for n in nodes]
    return [
        (n.name, min([d.lineno for d in n.decorator_list] + [n.lineno]), n.end_lineno or n.lineno)
        for n in nodes
        if names.count(n.name) == 1
    ]


def delete_definition(path: Path, definition: Definition) -> None:
    """Remove one definition's lines (a ``pass`` keeps an indented block valid)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    _, first, last = definition
    head = lines[first - 1]
    indent = head[: len(head) - len(head.lstrip())]
    path.write_text(
        "".join(lines[: first - 1] + ([f"{indent}pass\n"] if indent else []) + lines[last:])
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repo",
        type=Path,
        default=Path(__file__).resolve().parent.parent,
        help="default: this checkout",
    )
    parser.add_argument("--memories", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.environ.pop("ENGRAM_CODE_CITATIONS", None)
    with tempfile.TemporaryDirectory(prefix="engram-real-citations-") as tmp:
        root = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", str(args.repo), str(root)], check=True)
        print(_run(root, Path(tmp) / "data", args.memories, rng))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _run(root: Path, data: Path, count: int, rng: random.Random) -> str:
    from engram.memory.citations.checking import code_status
    from engram.memory.save import save_observation
    from engram.store.db import Store

    found_defs: dict[str, list[Definition]] = {}
    for path in git(root, "ls-files", "*.py").split():
        try:
            defs = definitions((root / path).read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        if defs:
            found_defs[path] = defs
    chosen = rng.sample(sorted(found_defs), min(count, len(found_defs)))
    if len(chosen) < 45:
        raise SystemExit("the repository needs at least 45 Python files with definitions")
    store = Store.open(data)
    cited: list[tuple[int, str, Definition]] = []
    try:
        for n, path in enumerate(chosen):
            definition = rng.choice(found_defs[path])
            name = definition[0]
            text = rng.choice(
                (f"{path}:{name}() does it", f"`{name}` in `{path}`", f"{path}::{name}")
            )
            saved = save_observation(
                store,
                title=f"memory {n}",
                content=text,
                project="real",
                workspace=str(root),
                surface_conflicts=False,
            )
            cited.append((saved.observation.id, path, definition))
        expected = _history(root, chosen, cited, rng)
        found = code_status(store, [oid for oid, _, _ in cited])
    finally:
        store.close()
    return _score(cited, expected, found)


def _history(
    root: Path, chosen: list[str], cited: list[tuple[int, str, Definition]], rng: random.Random
) -> dict[str, str]:
    pool = list(chosen)
    rng.shuffle(pool)
    renames, removals, deletions, edits = pool[:10], pool[10:20], pool[20:30], pool[30:45]
    expected: dict[str, str] = {}
    for path in renames:
        folder, _, name = path.rpartition("/")
        git(root, "mv", path, f"{folder}/moved_{name}" if folder else f"moved_{name}")
        expected[path] = "stale"
    by_path = {path: definition for _, path, definition in cited}
    for path in removals:
        delete_definition(root / path, by_path[path])
        expected[path] = "stale"
    for path in deletions:
        git(root, "rm", "-q", path)
        expected[path] = "stale"
    for path in edits:
        with open(root / path, "a", encoding="utf-8") as handle:
            handle.write("\n# edited\n")
        expected[path] = "changed"
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "refactor")
    return expected


def _score(cited: list[tuple[int, str, Definition]], expected: dict[str, str], found: dict) -> str:  # type: ignore[type-arg]
    rows = [
        (expected.get(path, "current"), found[oid].state if oid in found else "none", path)
        for oid, path, _ in cited
    ]
    lines = [f"memories: {len(rows)}, with a code status: {len(found)}"]
    for label in ("stale", "changed"):
        tp = sum(1 for e, g, _ in rows if e == label and g == label)
        fp = sum(1 for e, g, _ in rows if e != label and g == label)
        fn = sum(1 for e, g, _ in rows if e == label and g != label)
        precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
        lines.append(
            f"{label:<8} precision {precision:.3f}  recall {recall:.3f}  ({tp + fn} expected)"
        )
    lines += [f"  mismatch: expected {e}, got {g}: {p}" for e, g, p in rows if e != g][:10]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
