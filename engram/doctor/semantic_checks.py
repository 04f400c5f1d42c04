"""Semantic recall: on or off (and how to turn it on), the model, coverage, the vector scan."""

from __future__ import annotations

from collections.abc import Iterator

from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import Check, DoctorContext
from engram.errors import EngramError


def check_semantic(ctx: DoctorContext) -> Iterator[Finding]:
    """``semantic.recall``: one line, on (model, vector backend) or off (why, how to turn it
    on); ``semantic.index``: the vector index file (a damaged or foreign one is a warning:
    the next search rebuilds it); ``semantic.coverage``: memories without a vector of the
    current model."""
    from engram.memory.embedding import status
    from engram.store.db import Store

    try:
        store = Store.open_for_reading(env=ctx.env)
    except EngramError:
        return  # the store checks already say why
    try:
        state = status(store)
    finally:
        store.close()
    if not state.on:
        yield Finding("semantic.recall", Severity.SKIP, state.reason)
        return
    yield Finding(
        "semantic.recall",
        Severity.PASS,
        f"semantic recall is on: {state.model}, {state.embedded} memories embedded;"
        f" vector search: {state.backend}",
    )
    if state.index:
        severity = Severity.PASS if state.index_ok else Severity.WARN
        yield Finding("semantic.index", severity, state.index)
    for model, count in state.other_models.items():
        yield Finding(
            "semantic.model_changed",
            Severity.WARN,
            f"{count} memories carry vectors of {model}, not of {state.model}:"
            " search leaves them to lexical matching",
            remedy="run `engram embed --backfill` to re-embed them with the current model",
        )
    if state.missing - sum(state.other_models.values()) > 0:
        yield Finding(
            "semantic.coverage",
            Severity.WARN,
            f"{state.missing - sum(state.other_models.values())} memories have no vector yet"
            " (saved before the extra was installed, or while it was off)",
            remedy="run `engram embed --backfill`",
        )


CHECKS: list[Check] = [check_semantic]
