"""The session-start context: sections, caps, compact mode and byte budget."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engram.memory.context import TRUNCATION_MARKER, build_context, fit_bytes
from engram.memory.observation import set_pinned
from engram.memory.prompts import save_prompt
from engram.memory.save import save_observation
from engram.memory.sessions import start_session
from engram.store.db import Store


def _fill(store: Store) -> int:
    start_session(store, "s1", project="acme")
    save_prompt(store, "how do we deploy?", project="acme", session_id="s1")
    ids = [
        save_observation(
            store,
            title=f"Note {n}",
            content=f"details {n}",
            project="acme",
            surface_conflicts=False,
        ).observation.id
        for n in range(15)
    ]
    save_observation(store, title="Foreign", content="x", project="beta")
    set_pinned(store, ids[0], True)
    return ids[0]


def test_sections_and_pinned_first(store: Store) -> None:
    pinned = _fill(store)
    ctx = build_context(store, project="acme")
    text = ctx.text
    for header in (
        "### Recent Sessions",
        "### Recent Prompts",
        "### Pinned Observations",
        "### Recent Observations",
    ):
        assert header in text
    assert text.index(f"**Note 0** (#{pinned}): details 0") < text.index("### Recent Observations")
    assert "Foreign" not in text
    assert ctx.observations == 10 and ctx.pinned == 1  # default cap, pinned not repeated
    assert "how do we deploy?" in text


def test_section_caps_and_omission(store: Store) -> None:
    _fill(store)
    ctx = build_context(
        store, project="acme", observations_limit=3, prompts_limit=-1, sessions_limit=-5
    )
    assert ctx.observations == 3
    assert "### Recent Prompts" not in ctx.text and "### Recent Sessions" not in ctx.text
    assert build_context(store, project="acme", observations_limit=100000).observations == 14


def test_compact_drops_previews(store: Store) -> None:
    _fill(store)
    text = build_context(store, project="acme", compact=True).text
    assert "details" not in text and "**Note 5**" in text


def test_max_bytes_truncates_with_marker(store: Store) -> None:
    _fill(store)
    ctx = build_context(store, project="acme", max_bytes=300)
    assert ctx.truncated and ctx.text.endswith(TRUNCATION_MARKER)
    assert len(ctx.text.encode()) <= 300
    assert not build_context(store, project="acme", max_bytes=0).truncated


@settings(max_examples=200)
@given(text=st.text(), budget=st.integers(min_value=-5, max_value=80))
def test_fit_bytes_is_utf8_safe(text: str, budget: int) -> None:
    out, cut = fit_bytes(text, budget)
    if budget <= 0 or len(text.encode()) <= budget:
        assert out == text and not cut
    else:
        assert cut and len(out.encode()) <= budget
        kept = out[: -len(TRUNCATION_MARKER)] if out.endswith(TRUNCATION_MARKER) else out
        assert text.startswith(kept)
