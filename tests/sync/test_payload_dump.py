"""``dump_payload`` writes exactly what ``json.dumps(ensure_ascii=False)`` writes, whichever
encoder serves it: the text is what a chunk's SHA-256 covers and what a pull hands back."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.sync import mutation
from engram.sync.cloud.client import push_body
from engram.sync.mutation import Mutation, dump_payload


def _reference(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


# Every code point, lone surrogates included (a str can hold one; orjson refuses it).
TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, categories=None))
PLAIN = st.one_of(TEXT, st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70))
VALUES = st.recursive(
    st.one_of(PLAIN, st.floats(allow_nan=True, allow_infinity=True)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(TEXT, PLAIN, max_size=8))
def test_plain_payloads_dump_as_json_does(payload: dict[str, Any]) -> None:
    assert dump_payload(payload) == _reference(payload)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(TEXT, VALUES, max_size=5))
def test_any_payload_dumps_as_json_does(payload: dict[str, Any]) -> None:
    assert dump_payload(payload) == _reference(payload)


class Text(str):
    """A str subclass."""


@pytest.mark.parametrize(
    "payload",
    [
        {"confidence": 1e-07, "big": 1e16, "nan": float("nan"), "inf": float("-inf")},
        {"past_64_bits": 2**64, "below": -(2**63) - 1, "u64": 2**64 - 1},
        {"lone": "\ud800", "pair": "\ud83d\ude80", "controls": "".join(map(chr, range(32)))},
        {"sub": Text("x"), 1: "an int key", "nested": {"f": [0.5, None]}},
        {"escapes": '" \\ / \x7f \u2028 \u2029 \ufeff'},
    ],
)
def test_awkward_payloads_dump_as_json_does(payload: dict[Any, Any]) -> None:
    assert dump_payload(payload) == _reference(payload)


def test_without_orjson_the_json_encoder_writes_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = {"title": "é 🚀 \n", "revision_count": 2**63 - 1, "tool_name": None, "ok": True}
    monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson now raises ImportError
    mutation.orjson_dumps.cache_clear()
    try:
        assert mutation.orjson_dumps() is None
        assert dump_payload(payload) == _reference(payload)
    finally:
        mutation.orjson_dumps.cache_clear()


def test_a_push_body_carries_every_mutation_whichever_encoder_writes_it() -> None:
    def observation(seq: int, **extra: Any) -> Mutation:
        payload = {"sync_id": f"o-{seq}", "title": "é 🚀 \n\x00", "revision_count": 1, **extra}
        return Mutation("dev", seq, "observation", f"o-{seq}", "upsert", "p", payload)

    plain = [observation(1), observation(2, tool_name=None, ok=True)]
    odd = [*plain, observation(3, confidence=0.25), observation(4, big=2**70)]
    for batch in (plain, odd, [observation(5, lone="\udc00")]):
        body = push_body("p", batch)
        assert json.loads(body) == {"project": "p", "entries": [m.to_dict() for m in batch]}
    # the stdlib writes it in UTF-8 as the batches were sized, not in \u escapes, one entry a
    # line (the server parses each as its push streams)
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    entries = ",\n".join(json.dumps(m.to_dict(), **compact) for m in odd)  # type: ignore[arg-type]
    assert push_body("p", odd) == f'{{"project":"p","entries":[\n{entries}\n]}}'.encode()
