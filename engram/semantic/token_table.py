"""The built-in model's tokenizer as a SQLite table, so a search tokenizes its query without it.

Loading wordllama's tokenizer (``tokenizers`` reading 32,000 tokens and 61,249 merges from a
1.8 MB JSON file) costs a process ~75 ms of CPU and ~16 MB, and the first search of an
``engram-mcp`` pays it for one short query. This module keeps the same vocabulary and merge
ranks in ``<data dir>/vectors/<model>.tokens.sqlite``, written once by a process that embeds
memories (it has the tokenizer loaded anyway), and tokenizes a query with a few hundred
indexed lookups: well under a millisecond, nothing loaded.

The tokenization is the tokenizer's own, step for step: the model's normalizer (a ``▁``
before the text, every space a ``▁``), no pre-tokenizer, then byte-pair merges taken lowest
rank first and leftmost first among equal ranks, a merge skipped when its pair has changed
(what ``tokenizers``' BPE does). Tests compare the two on the labelled set and on generated
text. What this module does not reproduce it declines (``None``), and the caller uses the
tokenizer: a text other than printable ASCII (byte fallback), one holding a special token's
text, one longer than ``MAX_CHARS``, a table another tokenizer configuration would need.

The table is a cache, trusted as far as it checks out: its format, the tokenizer file's size
and modification time and the model's name must match, or it is not used (and written
again by the next process that embeds).
"""

from __future__ import annotations

import heapq
import json
import os
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

FORMAT = 1
MAX_CHARS = 500
# A table claiming longer tokens is not this model's (its longest is 16): refused, so a forged
# one cannot make a query look up millions of pieces.
MAX_TOKEN_CHARS = 64
SPACE = "\u2581"  # "▁", what the model's normalizer puts for a space
_PLAIN = re.compile(r"[\x20-\x7e]*")
# The normalizer this module reproduces: a "▁" before the text, each space replaced by one.
NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": SPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": SPACE},
    ],
}


def file_name(model: str) -> str:
    """The table's file name in the vectors folder."""
    return f"{model}.tokens.sqlite"


def signature(config_path: str | os.PathLike[str], model: str) -> str:
    """What the table must have been built from: format, model, the tokenizer file's size and
    modification time."""
    stat = os.stat(config_path)
    return f"{FORMAT}:{model}:{stat.st_size}:{stat.st_mtime_ns}"


def _supported(config: Any) -> tuple[dict[str, int], list[tuple[str, str]], list[str]] | None:
    """(vocabulary, merges in rank order, special tokens' texts) of a tokenizer configuration
    this module tokenizes exactly like ``tokenizers``, or None."""
    if not isinstance(config, dict):
        return None
    model = config.get("model")
    if (
        not isinstance(model, dict)
        or model.get("type") != "BPE"
        or model.get("dropout") is not None
        or model.get("continuing_subword_prefix")
        or model.get("end_of_word_suffix")
        or model.get("ignore_merges")
        or config.get("normalizer") != NORMALIZER
        or config.get("pre_tokenizer") is not None
    ):
        return None
    vocab, raw_merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(raw_merges, list):
        return None
    if not all(isinstance(t, str) and isinstance(i, int) and i >= 0 for t, i in vocab.items()):
        return None
    merges: list[tuple[str, str]] = []
    for merge in raw_merges:
        pair = merge.split(" ") if isinstance(merge, str) else merge
        if not (
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
        ):
            return None
        merges.append((pair[0], pair[1]))
    specials = [
        t["content"]
        for t in config.get("added_tokens") or []
        if isinstance(t, dict) and isinstance(t.get("content"), str) and t["content"]
    ]
    return vocab, merges, specials


def build(config_path: str | os.PathLike[str], folder: Path, model: str) -> Path | None:
    """Write the table for the tokenizer at ``config_path`` into ``folder`` (atomically: a
    temporary file renamed over the old one); its path, or None for a configuration this
    module does not reproduce or a folder it cannot write (checked first: each process that
    embeds would otherwise parse the 1.8 MB file again only to fail)."""
    if folder.exists() and not (folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)):
        return None
    if not folder.exists() and not os.access(folder.parent, os.W_OK | os.X_OK):
        return None
    try:
        with open(config_path, encoding="utf-8") as f:
            parsed = _supported(json.load(f))
        stamp = signature(config_path, model)
    except (OSError, ValueError):
        return None
    if parsed is None:
        return None
    vocab, merges, specials = parsed
    target = folder / file_name(model)
    scratch = folder / f".{file_name(model)}.{os.getpid()}.{threading.get_ident()}"
    try:
        # private as the vector files beside it: it is the model's, but the folder is not
        folder.mkdir(mode=0o700, exist_ok=True)
        if not folder.is_dir() or folder.is_symlink():
            return None
        scratch.unlink(missing_ok=True)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        os.close(os.open(scratch, flags, 0o600))
        conn = sqlite3.connect(scratch)
        try:
            conn.executescript(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
                "CREATE TABLE vocab (token TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;"
                # ``ab`` (what the merge makes) leads the key: a query's candidate merges are
                # those making a piece of its text, fetched in one statement.
                "CREATE TABLE merges (ab TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,"
                " rank INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (ab, a)) WITHOUT ROWID;"
            )
            conn.executemany("INSERT INTO vocab VALUES (?, ?)", vocab.items())
            rows: dict[tuple[str, str], tuple[int, int]] = {}
            for rank, (a, b) in enumerate(merges):
                merged = vocab.get(a + b)
                if merged is not None and (a, b) not in rows:  # the first rank wins, as there
                    rows[a, b] = (rank, merged)
            conn.executemany(
                "INSERT INTO merges VALUES (?, ?, ?, ?, ?)",
                ((a + b, a, b, r, i) for (a, b), (r, i) in rows.items()),
            )
            longest = max(map(len, vocab), default=1)
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("signature", stamp),
                    ("specials", json.dumps(specials)),
                    ("longest", str(longest)),
                ],
            )
            conn.commit()
        finally:
            conn.close()
        os.replace(scratch, target)
    except (OSError, sqlite3.Error):
        scratch.unlink(missing_ok=True)
        return None
    return target


class TokenTable:
    """An open table: :meth:`encode` gives a text's token ids, or None where it declines."""

    def __init__(self, conn: sqlite3.Connection, specials: list[str], longest: int) -> None:
        self._conn = conn
        self._specials = specials
        self._longest = longest
        self._lock = threading.Lock()  # one connection, any thread of a server

    @classmethod
    def open(
        cls, folder: Path, config_path: str | os.PathLike[str], model: str
    ) -> TokenTable | None:
        """The table in ``folder`` if it was built from this tokenizer file, else None."""
        path = folder / file_name(model)
        try:
            if not path.is_file():
                return None
            conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
        except (OSError, sqlite3.Error, ValueError):
            return None
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("signature") != signature(config_path, model):
                conn.close()
                return None
            specials = json.loads(meta.get("specials", "[]"))
            longest = int(meta.get("longest", "0"))
            if not (isinstance(specials, list) and all(isinstance(s, str) for s in specials)):
                conn.close()
                return None
        except (OSError, sqlite3.Error, ValueError):
            conn.close()
            return None
        if not 1 <= longest <= MAX_TOKEN_CHARS:
            conn.close()
            return None
        return cls(conn, specials, longest)

    def close(self) -> None:
        self._conn.close()

    def encode(self, text: str) -> list[int] | None:
        """The token ids ``tokenizers`` gives ``text`` (no special tokens added), or None."""
        if len(text) > MAX_CHARS or not _PLAIN.fullmatch(text):
            return None
        if any(special in text for special in self._specials):
            return None
        if not text:
            return []
        try:
            with self._lock:
                return self._encode(SPACE + text.replace(" ", SPACE))
        except sqlite3.Error:
            return None

    def _encode(self, normalized: str) -> list[int] | None:
        execute = self._conn.execute
        chars = set(normalized)
        marks = ",".join("?" * len(chars))
        ids = dict(execute(f"SELECT token, id FROM vocab WHERE token IN ({marks})", list(chars)))
        if len(ids) != len(chars):
            return None  # a character the vocabulary lacks: byte fallback, left to tokenizers
        # Every merge that can apply makes a piece of the text: all of them in one statement.
        pieces = {
            normalized[start:end]
            for start in range(len(normalized))
            for end in range(start + 2, min(len(normalized), start + self._longest) + 1)
        }
        merges: dict[tuple[str, str], tuple[int, int]] = {}
        listed = list(pieces)
        for first in range(0, len(listed), 500):  # under SQLite's variable limit
            chunk = listed[first : first + 500]
            marks = ",".join("?" * len(chunk))
            for a, b, rank, token in execute(
                f"SELECT a, b, rank, id FROM merges WHERE ab IN ({marks})", chunk
            ):
                merges[a, b] = (rank, token)
        merge_of = merges.get

        symbols = list(normalized)  # "" once merged into the symbol on its left
        token_ids = [ids[c] for c in normalized]
        following = [*range(1, len(symbols)), -1]
        preceding = list(range(-1, len(symbols) - 1))
        queue: list[tuple[int, int, int]] = []  # (rank, position, merged token id)

        def offer(pos: int) -> None:
            """Queue the pair starting at ``pos`` if it merges."""
            found = merge_of((symbols[pos], symbols[following[pos]]))
            if found is not None:
                heapq.heappush(queue, (found[0], pos, found[1]))

        for pos in range(len(symbols) - 1):
            offer(pos)
        while queue:
            _rank, pos, merged = heapq.heappop(queue)
            nxt = following[pos]
            if not symbols[pos] or nxt == -1:
                continue
            found = merge_of((symbols[pos], symbols[nxt]))
            if found is None or found[1] != merged:
                continue  # the pair changed since it was queued
            symbols[pos], symbols[nxt] = symbols[pos] + symbols[nxt], ""
            token_ids[pos] = merged
            following[pos] = following[nxt]
            if following[pos] != -1:
                preceding[following[pos]] = pos
                offer(pos)
            if preceding[pos] != -1:
                offer(preceding[pos])
        return [token for token, symbol in zip(token_ids, symbols, strict=True) if symbol]
