"""JSON text byte for byte as the MCP SDK writes it, with the standard library only.

The SDK serializes every message with pydantic-core: compact separators, text left as UTF-8
(control characters escaped as ``\\u00XX``, like :func:`json.dumps`), non-finite floats as
``null``. Floats are the one place where :func:`json.dumps` differs: pydantic-core writes the
shortest round-trip digits as Python does, but ``0.00001`` for exponent -5 (Python:
``1e-05``) and ``1e-7`` for exponents -6 to -9 (Python: ``1e-07``). :func:`dumps` takes the C
encoder's text when no float can need that care, and a small encoder of its own otherwise.
``tests/server/test_wire_json.py`` checks it against pydantic-core.
"""

from __future__ import annotations

import json
import math
from json.encoder import c_make_encoder  # type: ignore[attr-defined]
from typing import Any

_encode_text = json.encoder.encode_basestring
_C_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=True)
# The C encoder built once (``JSONEncoder.encode`` builds one per call), without the cycle
# check: what is written is JSON data, a tree (the envelope's copy, the catalogue's shapes).
_C_ENCODE = (
    c_make_encoder(None, _C_DUMPS.default, _encode_text, None, ":", ",", False, False, True)
    if c_make_encoder is not None
    else None
)


def dumps(value: Any) -> str:
    """``value`` (JSON data: dict, list, str, int, float, bool, None; no cycles) as the SDK's
    JSON text."""
    text = _C_DUMPS.encode(value) if _C_ENCODE is None else "".join(_C_ENCODE(value, 0))
    # Every float the two write differently shows as "e-0" (exponents -5 to -9) or a
    # non-finite constant in the C encoder's text; without those marks (in a string or not)
    # the text is already the SDK's.
    if "e-0" not in text and "NaN" not in text and "Infinity" not in text:
        return text
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def float_text(number: float) -> str:
    """One float as pydantic-core writes it."""
    if not math.isfinite(number):
        return "null"
    text = repr(number)
    if "e-0" not in text:
        return text
    mantissa, exponent = text.split("e-0")
    if exponent != "5":
        return f"{mantissa}e-{exponent}"
    sign = "-" if mantissa.startswith("-") else ""
    return f"{sign}0.0000{mantissa.lstrip('-').replace('.', '')}"


def _write(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(_encode_text(value))
    elif isinstance(value, bool) or value is None:
        parts.append("true" if value is True else "false" if value is False else "null")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float):
        parts.append(float_text(value))
    elif isinstance(value, dict):
        parts.append("{")
        for n, (key, item) in enumerate(value.items()):
            parts.append(("," if n else "") + _encode_text(key) + ":")
            _write(item, parts)
        parts.append("}")
    elif isinstance(value, list):
        parts.append("[")
        for n, item in enumerate(value):
            if n:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    else:
        raise TypeError(f"not JSON data: {type(value).__name__}")
