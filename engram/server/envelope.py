"""What a tool returns: human text plus the structured envelope.

Every tool result carries the human text in ``content[0].text`` and, in ``structuredContent``,
``{contract_version, ok, data, diagnostics}``. A tool error is the same envelope with
``ok: false`` and ``data`` holding the error's ``code``, ``message``, ``remedy`` and details
(``available_projects``...), plus ``isError: true`` so hosts show it as a failure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engram.errors import EngramError

CONTRACT_VERSION = "1"


@dataclass
class ToolOutcome:
    """A successful tool answer.

    Args:
        text: what a person (or the agent) reads.
        data: the JSON-ready structured answer.
        diagnostics: warnings worth surfacing (normalized names, truncation, ignored args).
    """

    text: str
    data: Any
    diagnostics: list[str] = field(default_factory=list)


def envelope(ok: bool, data: Any, diagnostics: list[str]) -> dict[str, Any]:
    """The ``structuredContent`` object."""
    return {
        "contract_version": CONTRACT_VERSION,
        "ok": ok,
        "data": data,
        "diagnostics": list(diagnostics),
    }


def success_result(outcome: ToolOutcome) -> dict[str, Any]:
    """A ``tools/call`` result for a successful outcome."""
    data = to_json(outcome.data)
    return {
        "content": [{"type": "text", "text": outcome.text}],
        "structuredContent": envelope(True, data, outcome.diagnostics),
        "isError": False,
    }


def error_result(error: EngramError, diagnostics: list[str] | None = None) -> dict[str, Any]:
    """A ``tools/call`` result for a tool error (``isError: true``).

    ``code`` is the seed's name where it names one (``ambiguous_project``, ``unknown_project``,
    ``unknown_session``, ``session_already_ended``, ``repository_binding_unavailable``...), as
    the HTTP API answers; ``engram_code`` keeps Engram's dotted code."""
    code = error.wire_code
    data = {**to_json(error.to_dict()), "code": code, "engram_code": error.code}
    return {
        "content": [{"type": "text", "text": f"error [{code}]: {error.one_line()}"}],
        "structuredContent": envelope(False, data, diagnostics or []),
        "isError": True,
    }


def to_json(value: Any) -> Any:
    """``value`` as plain JSON data (pydantic models and dataclasses included), a copy.

    Data that is JSON already (dicts with string keys, lists and tuples, text, numbers, bools,
    None: what most tools answer) is copied as it is: the same result as the round trip
    through JSON text, at a tenth of its cost. Anything else takes the round trip."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    try:
        return _plain_copy(value)
    except (_NotPlain, RecursionError):
        return json.loads(json.dumps(value, default=_default, ensure_ascii=False))


class _NotPlain(Exception):
    """A value :func:`json.dumps` would convert (a record, a set, a non-text key...)."""


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain_copy(value: Any) -> Any:
    kind = type(value)  # exact types: a subclass may encode differently
    if kind in _SCALARS:
        return value
    if kind is dict:
        copied = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            copied[key] = item if type(item) in _SCALARS else _plain_copy(item)
        return copied
    if kind is list or kind is tuple:
        return [item if type(item) in _SCALARS else _plain_copy(item) for item in value]
    raise _NotPlain


def _default(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    to_dict = getattr(value, "to_dict", None)  # the store's records are not dataclasses
    if callable(to_dict):
        return to_dict()
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)
