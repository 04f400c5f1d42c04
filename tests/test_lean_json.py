"""engram.lean_json gives the text and values json gives, for every option Engram passes it."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram import lean_json

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
OPTIONS = st.fixed_dictionaries(
    {
        "ensure_ascii": st.booleans(),
        "separators": st.sampled_from([None, (",", ":"), (", ", ": "), (",", ": ")]),
        "sort_keys": st.booleans(),
    }
)


@settings(max_examples=150, deadline=None)
@given(DOCUMENTS, OPTIONS)
def test_dumps_writes_what_json_writes(value: object, options: dict[str, object]) -> None:
    assert lean_json.dumps(value, **options) == json.dumps(value, **options)  # type: ignore[arg-type]


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _outcome(load: object, text: str) -> tuple[str, object]:
    try:
        return "value", load(text)  # type: ignore[operator]
    except ValueError as exc:
        return type(exc).__name__, str(exc)
    except RecursionError:
        return "RecursionError", ""


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        DOCUMENTS.map(json.dumps),
        st.tuples(
            st.sampled_from(["", " ", "\n\t", "\ufeff", "\u00a0"]),
            DOCUMENTS.map(json.dumps),
            st.sampled_from(["", " ", "\r\n", " x", "{}", ",", " 1", "\u2028"]),
        ).map("".join),
        st.text(alphabet='{}[]":,.-+eE0123456789 \t\n\rtrufalsenNIinity\\u"'),
    )
)
def test_loads_reads_what_json_reads_and_refuses_what_it_refuses(text: str) -> None:
    mine, theirs = _outcome(lean_json.loads, text), _outcome(json.loads, text)
    assert mine[0] == theirs[0]
    if mine[0] == "value":
        assert _same(mine[1], theirs[1])
    else:
        assert mine[1] == theirs[1]  # same message, line and column


@pytest.mark.parametrize(
    "text", ["", "   ", "\ufeff{}", "{} {}", "[1,]", '{"a" 1}', "1" * 5000, "[" * 100_000]
)
def test_bad_documents_raise_the_errors_json_raises(text: str) -> None:
    assert _outcome(lean_json.loads, text) == _outcome(json.loads, text)
    if text.strip() and text[0] in "\ufeff{[":
        with pytest.raises((json.JSONDecodeError, RecursionError)):
            lean_json.loads(text)


def test_a_value_json_cannot_write_is_refused_with_its_message() -> None:
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        lean_json.dumps({"a": {1}})
    circular: list[object] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference detected"):
        lean_json.dumps(circular)
