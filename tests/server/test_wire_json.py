"""engram.server.wire_json writes what the SDK's serializer (pydantic-core) writes."""

from __future__ import annotations

import json
import random
import struct
from typing import Any

import pydantic_core
import pytest

from engram.server import wire_json

SPECIAL = [0.1, 1e-5, 1.5e-5, 9.999e-5, 1e-6, 2.5e-7, 1e-9, 1e-10, 1e16, 1e22, 1e-300, 5e-324]
SPECIAL += [-0.0, 0.0, 1.0, 100.0, 123456789.123, 2**53 + 0.0, 1.7976931348623157e308]


def _pydantic(value: Any) -> str:
    # The SDK's messages write non-finite floats as null (checked below on its own model).
    return pydantic_core.to_json(value, inf_nan_mode="null").decode("utf-8")


@pytest.mark.parametrize("number", SPECIAL + [-n for n in SPECIAL])
def test_floats_read_as_pydantic_writes_them(number: float) -> None:
    assert wire_json.dumps(number) == _pydantic(number)
    assert wire_json.dumps({"score": [number]}) == _pydantic({"score": [number]})


def test_random_floats_over_every_exponent() -> None:
    rng = random.Random(27)
    for _ in range(20000):
        number = struct.unpack("d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        assert wire_json.float_text(number) == _pydantic(number), repr(number)
    for exponent in range(-12, 20):
        for _ in range(200):
            number = rng.random() * 10.0**exponent
            assert wire_json.float_text(number) == _pydantic(number), repr(number)


def test_non_finite_floats_are_null_as_in_the_sdk_response() -> None:
    from mcp_types import JSONRPCResponse

    value = {"a": float("inf"), "b": float("-inf"), "c": float("nan"), "d": 1e-7}
    sdk = JSONRPCResponse(jsonrpc="2.0", id=1, result=value)
    wire = sdk.model_dump_json(by_alias=True, exclude_unset=True)
    assert wire_json.dumps({"jsonrpc": "2.0", "id": 1, "result": value}) == wire
    assert '"a":null' in wire


def test_text_and_structure_match() -> None:
    rng = random.Random(5)
    alphabet = [chr(c) for c in range(0, 0x250)] + ["\u2028", "\u2029", "\ufeff", "😀", '"', "\\"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        value: Any = {
            text: [text, rng.randint(-(2**70), 2**70), None, True, False, {"x": 1e-5}],
            "n": {"deep": [[], {}, [text]]},
        }
        assert wire_json.dumps(value) == _pydantic(value)
        plain = {"t": text, "i": 3}
        assert (
            wire_json.dumps(plain)
            == _pydantic(plain)
            == json.dumps(plain, ensure_ascii=False, separators=(",", ":"))
        )


def test_what_is_not_json_data_is_refused() -> None:
    with pytest.raises(TypeError):
        wire_json.dumps({"x": object(), "y": 1e-5})


def test_text_that_looks_like_a_float_mark_is_written_as_it_is() -> None:
    for text in ("release-0.5", "NaN", "-Infinity", "1e-05", 'say "e-0"'):
        value = {"title": text, "score": 0.5, "tiny": 3e-6}
        assert wire_json.dumps(value) == _pydantic(value)
        assert wire_json.dumps({"title": text}) == _pydantic({"title": text})
