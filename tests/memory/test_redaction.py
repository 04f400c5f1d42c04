"""Private spans never reach the store; the byte limit never splits a character."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engram.memory.redaction import REDACTED, clean, content_limit, redact, truncate_utf8


def test_private_spans_are_redacted() -> None:
    text = "key <private>sk-abc123</private> and <PRIVATE>\nmulti\nline</Private>."
    assert redact(text) == f"key {REDACTED} and {REDACTED}."


def test_nested_private_spans_redact_to_the_outer_close() -> None:
    text = "a <private>x <private>y</private> TAIL</private> b"
    assert redact(text) == f"a {REDACTED} b"
    assert redact("<private>1<private>2</private>3") == REDACTED  # outer never closed
    assert redact("stray </private> tag") == "stray </private> tag"


def test_unclosed_private_tag_redacts_to_the_end() -> None:
    assert redact("token <private>sk-secret never closed") == f"token {REDACTED}"


@settings(max_examples=200)
@given(before=st.text(), secret=st.text(), after=st.text())
def test_secret_never_survives(before: str, secret: str, after: str) -> None:
    out = redact(f"{before}<private>{secret}</private>{after}")
    assert REDACTED in out
    if secret and secret not in before + after + REDACTED:
        assert secret not in out


@settings(max_examples=200)
@given(text=st.text(), limit=st.integers(min_value=0, max_value=64))
def test_truncation_is_a_utf8_safe_prefix(text: str, limit: int) -> None:
    out = truncate_utf8(text, limit)
    assert text.startswith(out)
    assert len(out.encode("utf-8")) <= limit
    # Nothing more could have fitted: the next character would overflow.
    if out != text:
        assert len((out + text[len(out)]).encode("utf-8")) > limit


def test_limit_applies_after_redaction() -> None:
    result = clean("<private>" + "x" * 500 + "</private>", 20)
    assert result.text == REDACTED and not result.truncated and result.redacted
    big = clean("é" * 10, 5)
    assert big.text == "éé" and big.truncated and big.original_bytes == 20


def test_content_limit_from_env() -> None:
    assert content_limit({"ENGRAM_MAX_CONTENT_BYTES": "2048"}) == 2048
    assert content_limit({"ENGRAM_MAX_CONTENT_BYTES": "nope"}) == 100 * 1024
    assert content_limit({}) == 100 * 1024
