"""JSON decoded by orjson (a push body, a pull page) gives exactly the values json.loads gives:
integers beyond 64 bits stay exact, and what json refuses or accepts is refused or accepted the
same."""

from __future__ import annotations

import json

import pytest

from engram.sync import json_body

SAME = [
    b'{"a": 18446744073709551616}',
    b'{"a": -9223372036854775809}',
    b'{"a":[1, -1234567890123456789012]}',
    b'{"a" :\n\t 123456789012345678901234567890}',
    b'{"a": 18446744073709551615, "b": -9223372036854775808}',
    b'{"a": [0.1, 1e16, -0.0, 1e-400, 2.2250738585072014e-308]}',
    b'{"hash": "0000000000000000000000000001f4", "n": 7}',
    b'{"note": "at :12345678901234567890 in text"}',
    b'{"a": NaN, "b": Infinity}',
    b'{"a": "\\ud800 a lone surrogate"}',
    b'\xef\xbb\xbf{"bom": true}',
    '{"utf16": "é"}'.encode("utf-16"),
    b'{"a": 1, "a": 2}',
    b'{"nested": {"deep": [[[{"x": null}]]]}}',
]


@pytest.mark.parametrize("raw", SAME)
def test_a_body_decodes_to_the_values_json_gives(raw: bytes) -> None:
    decoded = json_body.loads(raw)
    expected = json.loads(raw)
    assert repr(decoded) == repr(expected)  # repr: 1 and 1.0, nan and nan are told apart


@pytest.mark.parametrize("raw", [b'{"a": 1,}', b"[01]", b'{"a": "\x01"}', b"", b'{"a"', b"\xff{}"])
def test_a_body_json_refuses_is_refused(raw: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(raw)
    with pytest.raises(ValueError):
        json_body.loads(raw)
