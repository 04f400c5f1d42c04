"""``json.loads`` and ``json.dumps`` without importing :mod:`json`.

The stdlib's ``json`` package imports ``re`` (and through it ``enum``) to skip whitespace and
match numbers, which costs a hook process more than its whole answer (issue 27). Its C
accelerator, ``_json``, does the real work and imports nothing: this module drives it exactly
as ``json`` does for the options Engram uses (``ensure_ascii``, ``separators``,
``sort_keys``; no ``indent``), so the text in and out is identical (``tests/test_lean_json.py``
compares both on generated documents). Errors are :class:`json.JSONDecodeError` (a
``ValueError``), imported only when there is one to raise; an interpreter without ``_json``
falls back to ``json`` itself.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - CPython always builds it
    _json = None  # type: ignore[assignment]

_WHITESPACE = " \t\n\r"  # json.decoder.WHITESPACE
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Decoder:
    """The attributes ``_json.make_scanner`` reads: ``json.JSONDecoder()``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


# typeshed types the context as a scanner; the C code reads only the attributes above.
_scan_once = None if _json is None else _json.make_scanner(_Decoder())  # type: ignore[arg-type]


def _decode_error(message: str, text: str, pos: int) -> ValueError:
    from json import JSONDecodeError  # only on bad input

    return JSONDecodeError(message, text, pos)


def loads(text: str) -> Any:
    """``json.loads(text)`` for a ``str``: the same value, or the same ``JSONDecodeError``."""
    if _scan_once is None:  # pragma: no cover
        import json

        return json.loads(text)
    if text.startswith("\ufeff"):
        raise _decode_error("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan_once(text, start)
    except StopIteration as err:
        raise _decode_error("Expecting value", text, err.value) from None
    if len(text.rstrip(_WHITESPACE)) != end:  # a value never ends with whitespace
        rest = text[end:]
        raise _decode_error("Extra data", text, end + len(rest) - len(rest.lstrip(_WHITESPACE)))
    return value


def _not_serializable(value: object) -> object:
    """``json.JSONEncoder.default``."""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(
    value: Any,
    *,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """``json.dumps(value, ensure_ascii=..., separators=..., sort_keys=...)``, same text."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(
            value, ensure_ascii=ensure_ascii, separators=separators, sort_keys=sort_keys
        )
    quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return quote(value)
    item_separator, key_separator = separators or (", ", ": ")
    encode = _json.make_encoder(
        {}, _not_serializable, quote, None, key_separator, item_separator, sort_keys, False, True
    )
    return "".join(encode(value, 0))
