"""``tools/call`` of the journal tools answered without the MCP SDK, byte for byte as it would.

The host's first tool call (``mem_context``, ``mem_search``...) is what it waits for; loading the
SDK and pydantic for it costs most of a second of CPU. So the quick start answers a plain call of
a ``mem_*`` tool itself: it imports only the module that registers that tool
(:func:`engram.server.registry.tool_from`), runs it through the same code the SDK path uses
(:mod:`engram.server.tool_calls`) and writes the result in the shape the SDK writes for the
connection's era. That shape (key order, the keys each era keeps, what the SDK adds such as
``resultType`` and the ``serverInfo`` stamp) is recorded from the live SDK in
``quickstart.json`` (``call_results``), and the text is written by :mod:`engram.server.wire_json`.

A call it does not know how to answer exactly is left to the SDK (the caller hands over): a
governed tool, a tool this ``--tools`` selection does not serve, extra request fields
(``_meta`` progress tokens, a task), arguments that are not an object, an unusual envelope.
``tests/server/test_quick_calls.py`` compares both paths' bytes for every tool it serves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engram.server import wire_json

if TYPE_CHECKING:
    from engram.server.registry import ToolSpec

RESULT_KEYS = frozenset({"content", "isError", "structuredContent"})
PLAIN_CALL_KEYS = frozenset({"name", "arguments"})


class QuickCalls:
    """Answers ``tools/call`` for the quick-served tools of a ``--tools`` selection.

    Args:
        catalogue: the loaded ``quickstart.json``.
        chosen: the catalogue's tool entries this selection lists.
    """

    def __init__(self, catalogue: dict[str, Any], chosen: list[dict[str, Any]]) -> None:
        self.shapes: dict[str, dict[str, Any]] = catalogue["call_results"]
        self.modules = {t["name"]: t["module"] for t in chosen if t.get("quick")}
        self.loaded: dict[str, ToolSpec] = {}  # a tool's spec once its module is imported

    def serves(self, params: Any, version: str) -> bool:
        """Whether a call with these ``params`` (its ``_meta`` already checked by the caller
        and removed) in era ``version`` is one this path answers exactly."""
        return (
            isinstance(params, dict)
            and "name" in params
            and set(params) <= PLAIN_CALL_KEYS
            and isinstance(params["name"], str)
            and params["name"] in self.modules
            and isinstance(params.get("arguments", {}), dict)
            and version in self.shapes
        )

    def answer(self, rid: Any, params: dict[str, Any], version: str) -> bytes | None:
        """The response line for a call :meth:`serves` accepted (None: the tool could not be
        loaded on its own; the SDK answers)."""
        from engram.server.tool_calls import call_now

        name = params["name"]
        tool = self.loaded.get(name)
        if tool is None:
            from engram.server.registry import tool_from

            tool = tool_from(self.modules[name], name)
            if tool is None:
                return None
            self.loaded[name] = tool

        result = call_now(tool, params.get("arguments"))
        return response_line(rid, shaped(result, self.shapes[version]))


def shaped(result: dict[str, Any], shape: dict[str, Any]) -> dict[str, Any]:
    """``result`` with the keys, key order and additions the SDK gives it in one era."""
    out: dict[str, Any] = {}
    for key in shape["keys"]:
        if key == "content":
            item_keys = shape["content_keys"]
            out[key] = [{k: item[k] for k in item_keys if k in item} for item in result[key]]
        elif key in RESULT_KEYS:
            if key in result:
                out[key] = result[key]
        else:
            out[key] = shape["added"][key]
    return out


def response_line(rid: Any, result: dict[str, Any]) -> bytes:
    """A JSON-RPC response line as the SDK's transport writes it."""
    body = wire_json.dumps({"jsonrpc": "2.0", "id": rid, "result": result})
    return body.encode("utf-8") + b"\n"
