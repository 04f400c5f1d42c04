"""A seeded, real git repository of several languages, memories citing it, and a scripted
history of refactors with the truth about every memory afterwards (for citations_bench.py).

Every symbol name is unique in the repository, so "which memories a refactor breaks" has one
answer: the memory is stale if one of its cited files was renamed, moved or deleted, or one of
its cited symbols was deleted; changed if a cited file's content changed otherwise; current if
nothing it cites was touched.
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LANGUAGES = ("py", "ts", "go", "rs", "java", "c", "rb", "sh")
DIRS = ("core", "api", "billing", "auth", "jobs", "web", "store", "util")
NOUNS = ("cart", "retry", "token", "queue", "cache", "ledger", "invoice", "session", "quota")
VERBS = ("load", "save", "parse", "build", "apply", "check", "render", "merge", "split")
KINDS = ("function", "class", "constant")


@dataclass
class Symbol:
    name: str
    kind: str


@dataclass
class SourceFile:
    path: str
    language: str
    symbols: list[Symbol]
    note: int = 0  # edits that keep every symbol append a numbered comment

    def render(self) -> str:
        body = "".join(_definition(self.language, s) for s in self.symbols)
        comment = "#" if self.language in ("py", "rb", "sh") else "//"
        notes = "".join(f"{comment} note {n}\n" for n in range(self.note))
        head = _HEADS.get(self.language, "")
        if self.language == "java":
            cls = Path(self.path).stem
            return f"{head}public class {cls} {{\n{body}}}\n{notes}"
        return head + body + notes


_HEADS = {"go": "package main\n\n", "sh": "#!/bin/sh\n", "c": "#include <stdio.h>\n\n"}


def _definition(language: str, symbol: Symbol) -> str:
    n, kind = symbol.name, symbol.kind
    table = {
        "py": {
            "function": f"def {n}(value):\n    return value\n\n",
            "class": f"class {n}:\n    pass\n\n",
            "constant": f"{n} = 1\n\n",
        },
        "ts": {
            "function": f"export function {n}(value: number): number {{\n  return value;\n}}\n",
            "class": f"export class {n} {{\n}}\n",
            "constant": f"export const {n} = 1;\n",
        },
        "go": {
            "function": f"func {n}(value int) int {{\n\treturn value\n}}\n\n",
            "class": f"type {n} struct{{}}\n\n",
            "constant": f"const {n} = 1\n\n",
        },
        "rs": {
            "function": f"pub fn {n}(value: i32) -> i32 {{\n    value\n}}\n\n",
            "class": f"pub struct {n};\n\n",
            "constant": f"pub const {n}: i32 = 1;\n\n",
        },
        "java": {
            "function": f"  public int {n}(int value) {{\n    return value;\n  }}\n",
            "class": f"  static class {n} {{\n  }}\n",
            "constant": f"  public static final int {n} = 1;\n",
        },
        "c": {
            "function": f"int {n}(int value)\n{{\n    return value;\n}}\n\n",
            "class": f"struct {n} {{\n    int field;\n}};\n\n",
            "constant": f"#define {n} 1\n\n",
        },
        "rb": {
            "function": f"def {n}(value)\n  value\nend\n\n",
            "class": f"class {n}\nend\n\n",
            "constant": f"{n} = 1\n\n",
        },
        "sh": {
            "function": f'{n}() {{\n  echo "$1"\n}}\n\n',
            "class": f"{n}() {{\n  echo class\n}}\n\n",
            "constant": f"{n}=1\n\n",
        },
    }
    return table[language][kind]


def _name(language: str, kind: str, serial: int, rng: random.Random) -> str:
    verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
    if kind == "constant":
        return f"{noun.upper()}_{verb.upper()}_{serial}"
    if kind == "class" or language == "go":
        return f"{noun.title()}{verb.title()}{serial}"
    if language in ("ts", "java"):
        return f"{verb}{noun.title()}{serial}"
    return f"{verb}_{noun}_{serial}"


@dataclass
class Repo:
    root: Path
    files: dict[str, SourceFile] = field(default_factory=dict)

    def git(self, *args: str) -> str:
        return subprocess.run(
            [
                "git",
                "-C",
                str(self.root),
                "-c",
                "user.name=B",
                "-c",
                "user.email=b@example.com",
                *args,
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def write(self, source: SourceFile) -> None:
        target = self.root / source.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.render(), encoding="utf-8")

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "--short", "HEAD").strip()


def build_repo(root: Path, files: int, rng: random.Random) -> Repo:
    """A committed repository of ``files`` source files, 3-6 unique symbols each."""
    repo = Repo(root)
    root.mkdir(parents=True)
    repo.git("init", "-q", "-b", "main")
    serial = 0
    for n in range(files):
        language = LANGUAGES[n % len(LANGUAGES)]
        stem = f"{rng.choice(NOUNS)}_{n}"
        if language in ("java",):
            stem = f"{rng.choice(NOUNS).title()}{n}"
        path = f"src/{rng.choice(DIRS)}/{stem}.{language}"
        symbols = []
        for _ in range(rng.randint(3, 6)):
            kind = rng.choice(KINDS)
            serial += 1
            symbols.append(Symbol(_name(language, kind, serial, rng), kind))
        repo.files[path] = SourceFile(path, language, symbols)
        repo.write(repo.files[path])
    (root / "README.md").write_text("# bench repository\n", encoding="utf-8")
    repo.commit("initial")
    return repo


@dataclass
class Cite:
    path: str
    symbol: str | None


@dataclass
class Memory:
    title: str
    content: str
    cites: list[Cite]
    obs_id: int = 0


def _phrase(cite: Cite, kind: str | None, style: int) -> str:
    p, s = cite.path, cite.symbol
    if s is None:
        return (f"{p}", f"`{p}`", f"{p}#L2", f"{p}:3")[style % 4]
    call = f"{s}()" if kind == "function" else s
    return (
        f"{p}:{call}",
        f"`{call}` in {p}",
        f"{p}::{s}",
        f"`{s}` (see `{p}`)",
    )[style % 4]


def memories(repo: Repo, count: int, plain: int, rng: random.Random) -> list[Memory]:
    """``count`` memories citing 1-3 files (a symbol, or the file alone) and ``plain`` memories
    that cite nothing (prose, URLs and absolute paths naming real files, missing paths)."""
    paths = sorted(repo.files)
    out = []
    for n in range(count):
        cites = []
        for path in rng.sample(paths, rng.choice((1, 1, 2, 3))):
            source = repo.files[path]
            symbol = rng.choice(source.symbols) if rng.random() < 0.7 else None
            cites.append(Cite(path, symbol.name if symbol else None))
        kinds = {s.name: s.kind for f in repo.files.values() for s in f.symbols}
        parts = [_phrase(c, kinds.get(c.symbol or ""), rng.randrange(4)) for c in cites]
        text = f"Memory {n}: the {rng.choice(NOUNS)} logic lives in " + ", and ".join(parts) + "."
        out.append(Memory(f"Where the {rng.choice(NOUNS)} code is ({n})", text, cites))
    for n in range(plain):
        path = rng.choice(paths)
        text = rng.choice(
            (
                f"Read https://github.com/example/app/blob/main/{path} before changing it.",
                f"The system copy is /usr/share/app/{path}; never edit it.",
                f"Version 1.{n}.2 fixed the e.g. retry storm; see src/missing/nothing_{n}.py.",
                f"We agreed to keep the {rng.choice(NOUNS)} rules simple ({n}).",
            )
        )
        out.append(Memory(f"Plain note {n}", text, []))
    return out


@dataclass
class Truth:
    """What the history did to each file: renamed (new path), deleted, symbols removed, edited."""

    renamed: dict[str, str] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    removed_from: set[tuple[str, str]] = field(default_factory=set)  # (file, symbol) moved out
    edited: set[str] = field(default_factory=set)

    def expect(self, memory: Memory) -> str:
        if not memory.cites:
            return "none"
        stale = any(
            c.path in self.renamed
            or c.path in self.deleted
            or c.symbol in self.removed
            or (c.path, c.symbol) in self.removed_from
            for c in memory.cites
        )
        if stale:
            return "stale"
        return "changed" if any(c.path in self.edited for c in memory.cites) else "current"


def refactor(repo: Repo, rng: random.Random, share: float = 0.06) -> Truth:
    """Commits of renames, moves (some with a small edit), deleted functions, symbols moved to
    another file, deleted files and edits that keep every symbol, each touching about
    ``share`` of the files."""
    truth = Truth()
    pool = sorted(repo.files)
    rng.shuffle(pool)
    k = max(1, int(len(pool) * share))
    renames, moves, removals, deletions, edits, shifts = (
        pool[i * k : (i + 1) * k] for i in range(6)
    )
    _move(repo, truth, renames, lambda p: p.rsplit("/", 1)[0] + "/renamed_" + p.rsplit("/", 1)[1])
    repo.commit("rename files")
    _move(repo, truth, moves, lambda p: f"lib/moved/{p.rsplit('/', 1)[1]}", edit_every_other=True)
    repo.commit("move files")
    _delete_functions(repo, truth, removals)
    repo.commit("delete functions")
    _shift_symbols(repo, truth, shifts, pool[6 * k :])
    repo.commit("move symbols between files")
    for path in deletions:
        repo.files.pop(path)
        repo.git("rm", "-q", path)
        truth.deleted.add(path)
    repo.commit("delete files")
    for path in edits:  # content changes, every symbol stays
        repo.files[path].note += 1
        repo.write(repo.files[path])
        truth.edited.add(path)
    repo.commit("edit files, keep symbols")
    return truth


def _move(
    repo: Repo,
    truth: Truth,
    paths: list[str],
    where: Callable[[str], str],
    edit_every_other: bool = False,
) -> None:
    """``git mv`` each of ``paths`` to ``where(path)`` (every other one also edited a little)."""
    for n, path in enumerate(paths):
        source = repo.files.pop(path)
        new = where(path)
        (repo.root / new).parent.mkdir(parents=True, exist_ok=True)
        repo.git("mv", path, new)
        source.path = new
        if edit_every_other and n % 2:
            source.note += 1
            repo.write(source)
        repo.files[new] = source
        truth.renamed[path] = new


def _delete_functions(repo: Repo, truth: Truth, paths: list[str]) -> None:
    """Delete one function (or the first symbol) of each file."""
    for path in paths:
        source = repo.files[path]
        victim = next((s for s in source.symbols if s.kind == "function"), source.symbols[0])
        source.symbols.remove(victim)
        truth.removed.add(victim.name)
        truth.edited.add(path)
        repo.write(source)


def _shift_symbols(repo: Repo, truth: Truth, paths: list[str], untouched: list[str]) -> None:
    """Move a symbol of each file into an untouched file of the same language: a memory that
    cited it in its old file is stale; the file it moved to merely changed."""
    untouched = list(untouched)
    for source_path in paths:
        source = repo.files[source_path]
        target_path = next(
            (p for p in untouched if repo.files[p].language == source.language), None
        )
        if target_path is None or len(source.symbols) < 2:
            continue
        untouched.remove(target_path)
        target = repo.files[target_path]
        moved = source.symbols.pop()
        target.symbols.append(moved)
        truth.removed_from.add((source_path, moved.name))
        truth.edited.update((source_path, target_path))
        repo.write(source)
        repo.write(target)
