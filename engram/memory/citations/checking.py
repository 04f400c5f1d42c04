"""Checking served memories' citations against the working tree, cheaply.

:func:`code_status` takes the observations a surface is about to serve and returns a
:class:`~engram.memory.citations.status.CodeStatus` for each one that cites code. Per cited
file it costs one ``stat`` while the file's identity (mtime and size) matches the cached
check; a changed file is read once (blob id, definition scan) and the cache updated; a missing
file asks git's rename detection once per HEAD. A repository that is not on this machine
(another clone, a moved checkout) leaves its memories unchecked rather than stale.

On the hook path: no ``hashlib``, ``subprocess`` or ``re`` until a file needs reading.
"""

from __future__ import annotations

import contextlib
import sqlite3

from engram.errors import EngramError
from engram.memory.citations import worktree
from engram.memory.citations.status import (
    CHANGED,
    CURRENT,
    STALE,
    CodeStatus,
    checking_enabled,
    shown,
)
from engram.store import citations
from engram.store.citations import Citation, FileCheck

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from collections.abc import Iterable

    from engram.store.db import Store


def code_status(store: Store, observation_ids: Iterable[int]) -> dict[int, CodeStatus]:
    """The code status of each observation in ``observation_ids`` that cites code."""
    ids = list(observation_ids)
    if not ids or not checking_enabled():
        return {}
    with store.locked() as conn:
        cited, cache = _load(conn, ids)
    found, fresh = _judge(cited, cache)  # outside the lock: it may read files or run git
    if fresh:
        try:
            with store.write() as conn:
                citations.put_file_checks(conn, fresh)
        except (EngramError, sqlite3.Error):
            pass  # a store that cannot take the write just stays cold
    return found


def code_status_on(
    conn: sqlite3.Connection, observation_ids: Iterable[int]
) -> dict[int, CodeStatus]:
    """:func:`code_status` on a bare connection (the governed reads hold one): autocommit, or
    inside the caller's write transaction."""
    ids = list(observation_ids)
    if not ids or not checking_enabled():
        return {}
    found, fresh = _judge(*_load(conn, ids))
    if fresh:
        with contextlib.suppress(sqlite3.Error):  # a cache that cannot be kept stays cold
            citations.put_file_checks(conn, fresh)
    return found


def _load(
    conn: sqlite3.Connection, ids: list[int]
) -> tuple[list[Citation], dict[tuple[str, str], FileCheck]]:
    """The citations of ``ids`` and the cached checks of their files."""
    cited = citations.for_observations(conn, ids)
    if not cited:
        return [], {}
    return cited, {(c.repo_root, c.path): c for c in citations.file_checks(conn, _files(cited))}


def _judge(
    cited: list[Citation], cache: dict[tuple[str, str], FileCheck]
) -> tuple[dict[int, CodeStatus], list[FileCheck]]:
    """Each cited observation's status, and the file checks read cold (to cache)."""
    if not cited:
        return {}, []
    files = _Files(cache)
    verdicts: dict[int, list[tuple[str, str]]] = {}
    used: dict[int, str] = {}
    for citation in cited:
        verdict = files.verdict(citation)
        if verdict is not None:
            verdicts.setdefault(citation.observation_id, []).append(verdict)
        used[citation.observation_id] = max(used.get(citation.observation_id, ""), citation.used_at)
    return {oid: _status(found, used[oid]) for oid, found in verdicts.items()}, files.fresh


def _files(cited: list[Citation]) -> list[tuple[str, str]]:
    return [(c.repo_root, c.path) for c in cited]


def _status(found: list[tuple[str, str]], used_at: str) -> CodeStatus:
    stale = tuple(reason for state, reason in found if state == STALE)
    if stale:
        return CodeStatus(STALE, _unique(stale), len(found), used_at)
    changed = tuple(reason for state, reason in found if state == CHANGED)
    if changed:
        return CodeStatus(CHANGED, _unique(changed), len(found), used_at)
    return CodeStatus(CURRENT, (), len(found), used_at)


def _unique(reasons: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(reasons))


class _Files:
    """The check of each cited file for one call: cached, or read now (then in ``fresh``)."""

    def __init__(self, cache: dict[tuple[str, str], FileCheck]) -> None:
        self.cache = cache
        self.fresh: list[FileCheck] = []
        self.heads: dict[str, str | None] = {}
        self.names: dict[tuple[str, str], frozenset[str]] = {}
        self.renames: dict[tuple[str, ...], dict[str, str]] = {}  # git's answers, this call

    def verdict(self, citation: Citation) -> tuple[str, str] | None:
        """``(state, reason)`` for one citation, or None when its repository is not here."""
        root, path = citation.repo_root, citation.path
        head = self.head(root)
        if head is None:
            return None
        check = self.check(root, path, citation.commit_id, head)
        if check.blob_id is None:
            if check.moved_to:
                return STALE, f"{path} renamed to {check.moved_to}"
            where = f"in {check.deleted_in}" if check.deleted_in else "(not committed yet)"
            return STALE, f"{path} deleted {where}"
        if citation.symbol and not self.defines(check, citation.symbol):
            return STALE, f"{shown(citation.symbol, citation.symbol_kind)} no longer in {path}"
        if check.blob_id != citation.blob_id:
            return CHANGED, f"{path} changed since saved"
        return CURRENT, ""

    def defines(self, check: FileCheck, symbol: str) -> bool:
        """Whether the checked file defines ``symbol`` (an unreadable file is given the benefit)."""
        if check.symbols is None:
            return True
        key = (check.repo_root, check.path)
        names = self.names.get(key)
        if names is None:
            names = self.names[key] = frozenset(check.symbols.split("\n"))
        return symbol in names

    def head(self, root: str) -> str | None:
        """HEAD of the repository at ``root`` ("" unborn), None when it is not on this machine."""
        if root not in self.heads:
            from engram.memory.git_repo import git_repo_at

            repo = git_repo_at(root)
            self.heads[root] = worktree.head_commit(repo) if repo is not None else None
        return self.heads[root]

    def check(self, root: str, path: str, commit: str, head: str) -> FileCheck:
        identity = worktree.file_identity(root, path)
        if identity is None:
            identity = f"missing:{head}:{commit}"
        cached = self.cache.get((root, path))
        if cached is not None and cached.identity == identity:
            return cached
        made = _read_check(root, path, identity, commit, self.renames)
        self.cache[(root, path)] = made
        self.fresh.append(made)
        return made


def _read_check(
    root: str, path: str, identity: str, commit: str, memo: dict[tuple[str, ...], dict[str, str]]
) -> FileCheck:
    """A cold check of one file: its blob and definitions, or where git says it went."""
    if identity.startswith("missing:"):
        moved_to, deleted_in = worktree.whereabouts(root, commit, path, memo)
        return FileCheck(root, path, identity, None, None, moved_to, deleted_in)
    data = worktree.read_file(root, path)
    if data is None:  # unreadable or too big: nothing to compare, so it counts as current
        return FileCheck(root, path, identity, "", None, None, None)
    from engram.memory.citations.symbols import definitions

    names = definitions(path, data.decode("utf-8", "replace"))
    return FileCheck(root, path, identity, worktree.blob_id(data), "\n".join(names), None, None)
