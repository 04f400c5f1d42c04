"""A tool's data becomes JSON data exactly as the round trip through JSON text makes it.

:func:`engram.server.envelope.to_json` copies data that is JSON already instead of writing and
parsing it (issue 27, point 2: a third of ``mem_search``'s work beyond the search at 1k). What
reaches the client must not change: same values, same key order, same types, a fresh copy.
"""

from __future__ import annotations

import enum
import json
import math
import random
from pathlib import PurePosixPath
from typing import Any

import pytest

from engram.memory.project import ProjectDetection
from engram.server.envelope import _default, to_json


def _round_trip(value: Any) -> Any:
    return json.loads(json.dumps(value, default=_default, ensure_ascii=False))


class Colour(enum.IntEnum):
    RED = 1


class Name(enum.StrEnum):
    ADA = "ada"


def _random_plain(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 5)
    if kind == 0:
        return "".join(rng.choice('aé\u2028\ud800"\\\n\x00z💡') for _ in range(rng.randrange(6)))
    if kind == 1:
        return rng.randint(-(2**70), 2**70)
    if kind == 2:
        return rng.choice([0.1, -0.0, 1e-7, 1e300, math.inf, rng.random()])
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind in (5, 6):
        return {f"k{rng.randrange(50)}": _random_plain(rng, depth + 1) for _ in range(4)}
    items = [_random_plain(rng, depth + 1) for _ in range(rng.randrange(4))]
    return items if kind == 7 else tuple(items)


def _same(a: Any, b: Any) -> bool:
    """Equal, with the same types and key order all the way down (nan equal to nan)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def test_plain_data_comes_out_as_the_round_trip_makes_it() -> None:
    rng = random.Random(27)
    for _ in range(2000):
        value = _random_plain(rng)
        assert _same(to_json(value), _round_trip(value)), value


@pytest.mark.parametrize(
    "value",
    [
        {1: "int key", "1": "text key"},
        {"when": {True: 1, None: 2, 1.5: 3}},
        [{"colour": Colour.RED, "name": Name.ADA}],
        {"tags": {"b", "a"} - {"b"}, "frozen": frozenset({"x"})},
        {"detection": ProjectDetection("shop", "git_remote", "/src/shop", "/src/shop")},
        {"nested": [ProjectDetection("shop", "config")]},
        {"nan": math.nan, "path": PurePosixPath("/src/shop")},
    ],
    ids=["int-key", "odd-keys", "enums", "sets", "record", "nested-record", "str-default"],
)
def test_anything_else_takes_the_round_trip(value: Any) -> None:
    try:
        expected = _round_trip(value)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            to_json(value)
        return
    assert _same(to_json(value), expected)


def test_the_answer_is_a_copy() -> None:
    data = {"result": [{"id": 1, "tags": ["a"]}], "prompts": ()}
    copied = to_json(data)
    copied["result"][0]["tags"].append("b")
    assert data == {"result": [{"id": 1, "tags": ["a"]}], "prompts": ()}
