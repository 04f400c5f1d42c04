"""Finding what a memory cites, at save: paths, ``path:symbol`` and backticked identifiers.

A citation is a repository-relative path to a file that exists in the working tree
(``src/a.py``, ``src/a.py:12``, ``src/a.py#L12``), optionally with a symbol it defines
(``src/a.py:backoff``, ``src/a.py::Backoff``, ``src/a.py:backoff()``), or a backticked
identifier (`` `backoff()` ``) that one of the memory's cited files defines. URLs, absolute
paths, paths that leave the repository and words that name no file are not citations; a
symbol the file does not define when the memory is saved is not recorded (only its file is).

Callers pass text that redaction has already cleaned.
"""

from __future__ import annotations

import re

from engram.memory.citations import symbols, worktree
from engram.memory.git_repo import GitRepo
from engram.store.citations import Citation

MAX_CITATIONS = 32
MAX_CANDIDATES = 200
# Bounded scheme and local-part lengths: an unbounded run before "://" or "@" would rescan the
# rest of a long word from every position (quadratic in the text).
_URL = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}://\S+|\bwww\.\S+|\b[\w.+-]{1,64}@[\w-]+\.[\w.-]+"
)
# A path-like token (at least one "/" or an extension), then an optional line or symbol.
_PATH = re.compile(
    r"(?<![\w/.~:@$%-])"
    r"((?:\.{1,2}/)?(?:[\w@+-][\w.@+-]*/)*[\w@+-][\w.@+-]*"
    r"(?:\.[A-Za-z0-9_]+|/[\w@+-][\w.@+-]*))"
    r"(?:#L(\d+)(?:-L?\d+)?|:(\d+)(?::\d+|-\d+)?|::?([A-Za-z_][\w$]*(?:(?:\.|::)[A-Za-z_][\w$]*)*)(?:\(\))?)?"
)
_TICKED = re.compile(r"`([A-Za-z_][\w$]*(?:(?:\.|::)[A-Za-z_][\w$]*)*)(?:\(\))?`")


class _Found:
    """Citations found so far, in order, without duplicates."""

    def __init__(self, repo: GitRepo, now: str) -> None:
        self.repo, self.now = repo, now
        self.commit: str | None = None  # HEAD, read once something is cited
        self.files: dict[str, tuple[str, dict[str, str]]] = {}  # path -> (blob, definitions)
        self.items: dict[tuple[str, int | None, str | None], Citation] = {}

    def file(self, path: str) -> tuple[str, dict[str, str]] | None:
        if path not in self.files:
            data = worktree.read_file(self.repo.root, path)
            if data is None:
                return None
            text = data.decode("utf-8", "replace")
            self.files[path] = (worktree.blob_id(data), symbols.definitions(path, text))
        return self.files[path]

    def add(self, path: str, line: int | None, symbol: str | None) -> None:
        known = self.file(path)
        if known is None or len(self.items) >= MAX_CITATIONS:
            return
        blob, defined = known
        kind = defined.get(symbol) if symbol else None
        if symbol and kind is None:
            symbol = None  # not defined there now: cite the file only
        key = (path, line, symbol)
        if self.commit is None:
            self.commit = worktree.head_commit(self.repo)
        if key not in self.items:
            self.items[key] = Citation(
                0, self.repo.root, self.commit, path, line, symbol, kind, blob, self.now
            )


def mentions_paths(text: str) -> bool:
    """Whether ``text`` holds anything path-like at all (a save that holds none skips the
    repository lookup)."""
    return _PATH.search(_URL.sub(" ", text)) is not None


def find_citations(
    repo: GitRepo, text: str, now: str, workspace: str | None = None
) -> list[Citation]:
    """The code ``text`` cites in ``repo``'s working tree (``observation_id`` 0: not saved).

    A path is taken from the repository root, else (an agent working in a subfolder) from
    ``workspace`` when that folder lies inside the repository."""
    found = _Found(repo, now)
    below = _below(repo.root, workspace)
    plain = _URL.sub(lambda m: " " * len(m.group(0)), text)
    for count, match in enumerate(_PATH.finditer(plain)):
        if count >= MAX_CANDIDATES:
            break
        path = worktree.inside(repo.root, match.group(1))
        if path is None and below:
            path = worktree.inside(repo.root, f"{below}/{match.group(1)}")
        if path is None:
            continue
        line = match.group(2) or match.group(3)
        found.add(path, int(line) if line else None, _last_name(match.group(4)))
    if found.files:
        _add_ticked(found, plain)
    return list(found.items.values())


def _below(root: str, workspace: str | None) -> str:
    """``workspace`` relative to ``root`` ("" when it is the root or lies outside it)."""
    if not workspace:
        return ""
    import os

    relative = os.path.relpath(os.path.realpath(workspace), os.path.realpath(root))
    if relative == "." or relative.startswith(".."):
        return ""
    return relative.replace(os.sep, "/")


def _add_ticked(found: _Found, text: str) -> None:
    """Backticked identifiers that exactly one cited source file defines (a name two cited
    files define is ambiguous, and a file of no known language defines every word)."""
    cited = [(p, d) for p, (_, d) in found.files.items() if symbols.family_of(p) is not None]
    for match in _TICKED.finditer(text):
        name = _last_name(match.group(1))
        owners = [path for path, defined in cited if name in defined]
        if len(owners) == 1:
            found.add(owners[0], None, name)


def _last_name(symbol: str | None) -> str | None:
    """``Retry.backoff`` / ``Retry::backoff`` -> ``backoff``: the name a definition scan sees."""
    if not symbol:
        return None
    return re.split(r"\.|::", symbol)[-1]
