"""A store's semantic recall: embedding what a write transaction wrote, and nearest vectors.

Every :class:`engram.store.db.Store` attaches one :class:`SemanticRecall` to its connection;
:func:`of` finds it from the connection alone, so every reader that ranks observations
(search, the TUI's browse, governed routing's journal matches, the conflict scan) takes the
same hybrid path without being handed anything. Whether it is on, and with which embedder,
is decided once a connection (:mod:`engram.semantic.choice`) on the first write that touches
an observation or the first search: a write that touches none, like a hook's session start,
imports nothing of it. This module stays import-light for that reason (no typing).
"""

from __future__ import annotations

import _thread  # threading costs the hook path more than its work
import os
import sqlite3

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from contextlib import AbstractContextManager
    from pathlib import Path

    from engram.semantic.choice import SemanticChoice
    from engram.store.vector_index import Nearest, VectorIndex

_ATTACHED: dict[int, SemanticRecall] = {}

_QUEUE = (
    "CREATE TEMP TABLE IF NOT EXISTS embedding_queue (id INTEGER PRIMARY KEY)",
    "CREATE TEMP TRIGGER IF NOT EXISTS embedding_queue_insert AFTER INSERT ON main.observations"
    " BEGIN INSERT OR IGNORE INTO embedding_queue (id) VALUES (new.id); END",
    "CREATE TEMP TRIGGER IF NOT EXISTS embedding_queue_update"
    " AFTER UPDATE OF title, content ON main.observations"
    " BEGIN INSERT OR IGNORE INTO embedding_queue (id) VALUES (new.id); END",
)


def install_queue(conn: sqlite3.Connection) -> None:
    """Queue every observation this connection inserts or re-texts (TEMP: this connection)."""
    for statement in _QUEUE:
        conn.execute(statement)


def take_queue(conn: sqlite3.Connection, limit: int = 512) -> list[int]:
    """Up to ``limit`` queued observation ids, taken off the queue (a page bounds memory)."""
    ids = [
        row[0]
        for row in conn.execute("SELECT id FROM temp.embedding_queue ORDER BY id LIMIT ?", (limit,))
    ]
    if ids:
        conn.execute("DELETE FROM temp.embedding_queue WHERE id <= ?", (ids[-1],))
    return ids


def clear_queue(conn: sqlite3.Connection) -> None:
    """Drop what is queued (semantic recall is off: the backfill embeds it later)."""
    conn.execute("DELETE FROM temp.embedding_queue")


class SemanticRecall:
    """The semantic side of one store connection (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection, env: Mapping[str, str] | None = None) -> None:
        self._conn = conn
        self._env = env
        self._choice: SemanticChoice | None = None
        self._index: object = None
        self.queue_ready = False
        self.enabled = True
        self.last_error = ""
        self._after_commit: list[int] = []
        self._folder: Path | bool | None = False  # not asked yet
        self._embedded = False  # this process embedded a row (so its model is loaded)
        self._tokens_kept = False
        self._offered: tuple[str, dict[str, bytes]] | None = None  # vectors made elsewhere
        self._lock = _thread.allocate_lock()  # an MCP server's threads share one connection

    def choice(self) -> SemanticChoice:
        """The :class:`engram.semantic.choice.SemanticChoice` for this store (decided once)."""
        if self._choice is None:
            from engram.semantic.choice import choose
            from engram.store import vectors

            conn = self._conn
            self._choice = choose(
                mode=vectors.setting(conn, vectors.SETTING_MODE),
                embedder=vectors.setting(conn, vectors.SETTING_EMBEDDER),
                env=self._env if self._env is not None else os.environ,
            )
        return self._choice

    def forget_choice(self) -> None:
        """Decide again on next use (after a setting changed)."""
        self._choice = None
        self._index = None

    def prepare_write(self) -> None:
        """Before a write transaction's statements: queue the observations it writes."""
        if self.enabled and not self.queue_ready:
            install_queue(self._conn)
            # Created inside a transaction (a write begun inside a read), the queue goes with
            # that transaction's rollback: installed again next time until one outlives it.
            self.queue_ready = not self._conn.in_transaction

    def finish_write(self) -> None:
        """Before the commit: embed the observations the transaction wrote (when on). The
        first time a process writes one, deciding and loading the model take a while: those
        rows are embedded by :meth:`after_commit` instead, so the write lock is not held."""
        if not self.queue_ready:
            return
        ids = take_queue(self._conn)
        if not ids:
            return
        choice = self._choice
        if choice is None or (choice.on and not getattr(choice.embedder, "ready", True)):
            while ids:
                self._after_commit.extend(ids)
                ids = take_queue(self._conn)
            return
        if not choice.on:
            clear_queue(self._conn)  # `engram embed --backfill` fills them later
            return
        while ids:
            self.embed(ids)
            ids = take_queue(self._conn)

    def after_commit(self, write: Callable[[], AbstractContextManager[sqlite3.Connection]]) -> None:
        """After the commit: embed what :meth:`finish_write` left, the model loaded outside
        the write lock, in write transactions of their own. A failure only leaves the rows
        for the backfill: the save itself is committed."""
        from engram.errors import EngramError

        ids, self._after_commit = self._after_commit, []
        if ids and self.choice().on:
            try:
                self.warm()
                for start in range(0, len(ids), 512):
                    with write():
                        self.embed(ids[start : start + 512])
            except EngramError as exc:
                self.last_error = exc.message
        if self._embedded and not self._tokens_kept:
            # Once a process, after its first write that embedded (inside the write when the
            # model was already loaded by a search, above when not).
            self._tokens_kept = True
            self.keep_query_tokens()

    def keep_query_tokens(self) -> None:
        """Let the embedder keep what tokenizes a query cheaply in ``<data dir>/vectors``
        (the built-in one's token table), outside any write: this process has its model
        loaded, a search-only process later need not. Never fails a write."""
        embedder = self.choice().embedder
        keep = getattr(embedder, "keep_query_tokens", None)
        folder = self._vectors_folder()
        if keep is None or folder is None:
            return
        try:
            keep(folder)
        except Exception as exc:  # a cache: searches tokenize without it
            self.last_error = repr(exc)

    def _vectors_folder(self) -> Path | None:
        """``<data dir>/vectors`` of this connection's database (None in memory), asked once."""
        if self._folder is False:
            self._folder = index_location(self._conn)[0]
        folder = self._folder
        return None if isinstance(folder, bool) else folder

    def embed(self, ids: list[int]) -> int:
        """Embed the live rows among ``ids`` with the chosen embedder; how many it embedded.
        A row whose text has a vector :meth:`offer_vectors` gave (same model) takes it. A model
        that cannot load leaves them for the backfill and records why."""
        from engram.errors import EngramError
        from engram.semantic.embedder import document_text, model_label
        from engram.store import vectors

        embedder = self.choice().embedder
        rows = vectors.texts(self._conn, ids)
        if embedder is None or not rows:
            return 0
        label = model_label(embedder)
        texts = [document_text(title, content) for _, title, content in rows]
        made = dict(self._offered[1]) if self._offered and self._offered[0] == label else {}
        missing = [text for text in texts if text not in made]
        if missing:
            try:
                matrix = embedder.embed(missing)
            except Exception as exc:  # a plugin's model failing must not lose the save itself
                self.last_error = exc.message if isinstance(exc, EngramError) else repr(exc)
                return 0
            made.update(zip(missing, vectors.quantise(matrix), strict=True))
        vectors.store_vectors(self._conn, [r[0] for r in rows], [made[t] for t in texts], label)
        self._embedded = True
        return len(rows)

    def text_vectors(self, texts: list[str]) -> tuple[str, list[bytes]] | None:
        """``(model label, int8 vectors)`` of ``texts`` (:func:`~engram.semantic.embedder.
        document_text` forms) by this store's embedder, for another process's write to take
        (:meth:`offer_vectors`); None when semantic recall is off, not decided yet, or its
        model is not loaded (nothing is loaded for this) or fails."""
        choice = self._choice
        if choice is None or not choice.on or choice.embedder is None:
            return None
        embedder = choice.embedder
        if not getattr(embedder, "ready", True):
            return None
        from engram.semantic.embedder import model_label
        from engram.store import vectors

        try:
            return model_label(embedder), vectors.quantise(embedder.embed(texts))
        except Exception:  # the writer embeds them itself
            return None

    def warm(self) -> None:
        """Decide, and load the model when semantic recall is on (for :meth:`text_vectors`)."""
        warm = getattr(self.choice().embedder, "warm", None) if self.choice().on else None
        if warm is not None:
            warm()

    def offer_vectors(self, label: str, by_text: dict[str, bytes] | None) -> None:
        """Vectors of texts made by the model ``label`` elsewhere (:meth:`text_vectors`): until
        the next offer, :meth:`embed` takes them for rows with those texts instead of
        embedding them again (a vector of another model is ignored). None: forget them."""
        self._offered = (label, by_text) if by_text else None

    def nearest(
        self, text: str, *, project: str | None, type: str | None, scope: str | None, limit: int
    ) -> list[Nearest] | None:
        """The nearest live vectors to ``text`` under the filters, or None when off."""
        from engram.errors import EngramError
        from engram.semantic.embedder import model_label
        from engram.store.vector_index import VectorIndex

        embedder = self.choice().embedder
        if embedder is None:
            return None
        try:
            query_vector = getattr(embedder, "query_vector", None)
            if query_vector is not None:
                query = query_vector(text, self._vectors_folder())
            else:
                query = embedder.embed([text])[0]
        except Exception as exc:  # lexical results are still an answer
            self.last_error = exc.message if isinstance(exc, EngramError) else repr(exc)
            return None
        if not query.any():
            return []
        label = model_label(embedder)
        index = self._index
        if not isinstance(index, VectorIndex) or index.model != label:
            index = self._index = _new_index(self._conn, label, embedder.dimension)
        return index.nearest(
            self._conn, query, project=project, type=type, scope=scope, limit=limit
        )


def index_location(conn: sqlite3.Connection) -> tuple[Path | None, list[int]]:
    """Where ``conn``'s vector index file goes (``<data dir>/vectors``) and the database
    file's identity; ``(None, [])`` for a database in memory."""
    from pathlib import Path

    from engram.store.vector_file import FOLDER, database_identity

    row = conn.execute("SELECT file FROM pragma_database_list WHERE name = 'main'").fetchone()
    if not row or not row[0]:
        return None, []
    database = Path(row[0])
    try:
        return database.parent / FOLDER, database_identity(database)
    except OSError:
        return None, []


def _new_index(conn: sqlite3.Connection, model: str, dimension: int) -> VectorIndex:
    """The index of ``model`` for ``conn``, its file in ``<data dir>/vectors`` (none for a
    database in memory)."""
    from engram.store.vector_index import VectorIndex

    folder, identity = index_location(conn)
    return VectorIndex(model, dimension, folder, identity)


def attach(
    conn: sqlite3.Connection, env: Mapping[str, str] | None = None, *, enabled: bool = True
) -> SemanticRecall:
    """Give ``conn`` its semantic side (a Store does this when it opens); ``enabled=False``
    leaves the connection lexical (:func:`of` finds nothing, writes queue nothing)."""
    recall = SemanticRecall(conn, env)
    recall.enabled = enabled
    if enabled:
        _ATTACHED[id(conn)] = recall
    return recall


def detach(conn: sqlite3.Connection) -> None:
    """Forget ``conn``'s semantic side (a Store does this when it closes)."""
    _ATTACHED.pop(id(conn), None)


def of(conn: sqlite3.Connection) -> SemanticRecall | None:
    """The semantic side of a store's connection; None for a bare connection."""
    recall = _ATTACHED.get(id(conn))
    return recall if recall is not None and recall._conn is conn else None
