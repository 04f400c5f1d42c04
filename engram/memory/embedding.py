"""Semantic recall's operations: its status, the backfill, and the store's search settings.

``engram embed`` (and doctor) call these. Saving needs none of them: a store embeds what it
writes by itself (:mod:`engram.store.semantic`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engram.errors import EngramError
from engram.store import semantic, vectors
from engram.store.db import Store

BATCH = 256
MODES = ("hybrid", "lexical")


@dataclass(frozen=True)
class EmbeddingStatus:
    """Where a store stands: on or off and why, the model, and how many rows it covers."""

    on: bool
    reason: str
    model: str | None  # ``name:dimension`` of the chosen embedder
    embedded: int  # live rows with a vector of that model
    missing: int  # live rows without one (never embedded, edited, or another model's)
    other_models: dict[str, int] = field(default_factory=dict)
    backend: str = ""
    index: str = ""  # the vector index file: where, how big, or why it will be rebuilt
    index_ok: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "on": self.on,
            "reason": self.reason,
            "model": self.model,
            "embedded": self.embedded,
            "missing": self.missing,
            "other_models": self.other_models,
            "backend": self.backend,
            "index": self.index,
            "index_ok": self.index_ok,
        }


def _recall(store: Store) -> semantic.SemanticRecall:
    recall = semantic.of(store.connection)
    assert recall is not None  # every Store attaches one
    return recall


def status(store: Store) -> EmbeddingStatus:
    """The store's semantic recall status (counts are of live observations)."""
    from engram.semantic.embedder import model_label
    from engram.store.vector_index import backend, describe_file

    choice = _recall(store).choice()
    label = model_label(choice.embedder) if choice.embedder is not None else None
    index_ok, index = True, ""
    with store.locked() as conn:
        counts = vectors.model_counts(conn)
        if choice.on and choice.embedder is not None and label is not None:
            index_ok, index = describe_file(conn, label, choice.embedder.dimension)
    embedded = counts.get(label, 0) if label else 0
    others = {str(k): v for k, v in counts.items() if k is not None and k != label}
    missing = sum(counts.values()) - embedded
    reason = choice.reason
    if _recall(store).last_error:
        reason += f"; last embedding failed: {_recall(store).last_error}"
    return EmbeddingStatus(
        choice.on, reason, label, embedded, missing, others,
        backend() if choice.on else "", index, index_ok,
    )  # fmt: skip


def backfill(store: Store, *, progress: Callable[[int, int], None] | None = None) -> int:
    """Embed every live observation without a vector of the chosen model, ``BATCH`` rows a
    transaction (an interrupted run keeps what it committed and resumes where it stopped).
    ``progress(done, total)`` follows each batch. Returns how many rows it embedded.

    Raises:
        EngramError: ``semantic.off`` when semantic recall is off (the reason says why).
    """
    from engram.semantic.embedder import model_label

    recall = _recall(store)
    choice = recall.choice()
    if choice.embedder is None:
        raise EngramError("semantic.off", choice.reason, "see `engram embed`")
    label = model_label(choice.embedder)
    total = status(store).missing
    done, cursor = 0, 0
    while True:
        with store.write() as conn:
            rows = vectors.to_embed(conn, label, cursor, BATCH)
            if not rows:
                break
            made = recall.embed([r[0] for r in rows])
        if not made:
            raise EngramError(
                "semantic.embed_failed",
                f"the embedder {choice.embedder.name} failed: {recall.last_error}",
                "check the embedder plugin (or reinstall the semantic extra) and run again",
            )
        cursor = rows[-1][0]
        done += made
        if progress is not None:
            progress(done, max(total, done))
    return done


def set_mode(store: Store, mode: str) -> None:
    """Store ``search.mode`` (``hybrid`` or ``lexical``) for every process using this store.

    Raises:
        EngramError: ``semantic.bad_mode``.
    """
    if mode not in MODES:
        raise EngramError(
            "semantic.bad_mode", f"unknown search mode {mode!r}", "use `hybrid` or `lexical`"
        )
    with store.write() as conn:
        vectors.set_setting(conn, vectors.SETTING_MODE, mode)
    _recall(store).forget_choice()


def set_embedder(store: Store, name: str | None) -> None:
    """Store ``semantic.embedder`` (None: back to the default).

    Raises:
        EngramError: ``semantic.unknown_embedder`` listing the installed ones.
    """
    from engram.semantic.choice import collect_embedders

    if name is not None:
        found = collect_embedders()
        if name not in found:
            known = ", ".join(found) or "none installed"
            raise EngramError(
                "semantic.unknown_embedder",
                f"no embedder called {name!r} (installed: {known})",
                "install the plugin that provides it, or pick an installed one",
            )
    with store.write() as conn:
        vectors.set_setting(conn, vectors.SETTING_EMBEDDER, name)
    _recall(store).forget_choice()
