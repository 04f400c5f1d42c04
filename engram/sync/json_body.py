"""JSON decoded by orjson, with exactly the values ``json.loads`` gives: a cloud push's request
body on the server, a pull page on the client.

orjson parses such a body (mostly strings) in about half the stdlib decoder's CPU, and agrees
with it on every value but one kind: an integer beyond 64 bits, which orjson turns into a float
(``2**64`` -> ``1.8446744073709552e+19``) where ``json`` keeps it exact. A body that may hold
one (a number of 19 digits or more) is decoded by ``json`` instead, and so is any text orjson
refuses (NaN, a lone surrogate, a byte order mark, UTF-16...): ``json`` then accepts it or
raises its own error, so what is accepted, and every value, is what ``json.loads`` says.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

# Digits as "0", the bytes that may come before a number (":" "," "[") as "@", whitespace and
# "-" dropped: a number token of 19 digits or more becomes "@" and at least 19 "0"s. (A string
# may hold that pattern too: it only sends its body to ``json``.)
_NUMBER_SHAPE = bytes.maketrans(b"0123456789:,[", b"0000000000@@@")
_DROPPED = b" \t\r\n-"
_LONG_NUMBER = b"@" + b"0" * 19


@functools.cache
def fast_loads() -> Callable[[bytes | bytearray], Any] | None:
    """orjson's ``loads`` when it is installed: right for a text without a number of 19
    digits or more (:func:`may_hold_long_integer`), refusing some that ``json`` accepts."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.loads


def may_hold_long_integer(raw: bytes | bytearray) -> bool:
    """Whether the JSON text ``raw`` may hold a number of 19 digits or more (one that orjson
    could not keep exact as an integer)."""
    return _LONG_NUMBER in raw.translate(_NUMBER_SHAPE, _DROPPED)


def loads(raw: bytes | bytearray) -> Any:
    """``json.loads(raw)``, by orjson when that gives the same values.

    Raises:
        ValueError: what ``json.loads`` raises for ``raw`` (``RecursionError`` too).
    """
    fast = fast_loads()
    if fast is not None and not may_hold_long_integer(raw):
        try:
            return fast(raw)
        except ValueError:  # orjson.JSONDecodeError is one: json decides, in its own words
            pass
    return json.loads(raw)
