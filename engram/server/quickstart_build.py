"""Build ``quickstart.json`` from the live SDK server: what it answers, recorded as data.

Run ``python -m engram.server.quickstart_build`` (or the quick-start test with
``ENGRAM_UPDATE_GOLDEN=1``) after changing a tool, the instructions or the SDK version. Every
answer in the file is what the real SDK pipeline (:func:`engram.server.main._serve_sdk`, the
same stdio transport and dispatcher) wrote for the same request, so the quick start serves the
same bytes.
"""

from __future__ import annotations

import inspect
import io
import json
import sys
from dataclasses import replace
from typing import Any

from engram.server.options import ServerOptions
from engram.server.quickstart import (
    CAPABILITIES_KEY,
    CATALOGUE,
    PROTOCOL_VERSION_KEY,
    source_fingerprint,
)

ALL = ServerOptions()


def sdk_answers(lines: list[dict[str, Any]], options: ServerOptions = ALL) -> list[bytes]:
    """The raw lines the SDK server writes for ``lines`` (one process-free connection)."""
    from engram.server.main import _serve_sdk

    reader = io.BytesIO(b"".join(json.dumps(line).encode("utf-8") + b"\n" for line in lines))
    writer = io.BytesIO()
    _serve_sdk(options, reader, writer, announced_unknown=True)
    return writer.getvalue().splitlines()


def handshake(version: str, rid: int = 0) -> list[dict[str, Any]]:
    """A legacy opening: initialize at ``version`` and notifications/initialized."""
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "engram-quickstart", "version": "1"},
    }
    return [
        {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def tools_list(rid: int, modern: str | None = None) -> dict[str, Any]:
    """A ``tools/list`` request, with the 2026-07-28 envelope when ``modern`` is a version."""
    line: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": "tools/list"}
    if modern:
        line["params"] = {"_meta": {PROTOCOL_VERSION_KEY: modern, CAPABILITIES_KEY: {}}}
    return line


def _results(lines: list[dict[str, Any]], options: ServerOptions) -> list[dict[str, Any]]:
    return [json.loads(raw)["result"] for raw in sdk_answers(lines, options)]


def build_catalogue() -> dict[str, Any]:
    """The catalogue the quick start serves, from the live registry and SDK."""
    from mcp_types.version import (
        HANDSHAKE_PROTOCOL_VERSIONS,
        LATEST_HANDSHAKE_VERSION,
        LATEST_MODERN_VERSION,
    )

    from engram.server.registry import all_tools, module_of

    loaded = replace(ALL, always_load=True)
    initialize: dict[str, Any] = {}
    listings: dict[str, list[list[dict[str, Any]]]] = {}
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        plain = _results([*handshake(version), tools_list(1)], ALL)
        marked = _results([*handshake(version), tools_list(1)], loaded)
        initialize[version] = plain[0]
        listings[version] = [plain[1]["tools"], marked[1]["tools"]]
        tools_result = {**plain[1], "tools": None}
    modern_plain = _results([tools_list(1, LATEST_MODERN_VERSION)], ALL)[0]
    modern_marked = _results([tools_list(1, LATEST_MODERN_VERSION)], loaded)[0]
    listings[LATEST_MODERN_VERSION] = [modern_plain["tools"], modern_marked["tools"]]
    variants: dict[str, str] = {}
    distinct: dict[str, list[list[dict[str, Any]]]] = {}
    for version, pair in listings.items():
        # Key order is part of the bytes on the wire: compare serialized forms.
        key = next((k for k, seen in distinct.items() if _same(seen, pair)), version)
        distinct.setdefault(key, pair)
        variants[version] = key
    tools = []
    for i, spec in enumerate(all_tools()):
        entry: dict[str, Any] = {"name": spec.name, "profiles": sorted(spec.profiles)}
        entry["module"] = module_of(spec.name)
        # The journal tools are synchronous and never talk back to the client: the quick path
        # may answer their calls (engram.server.quick_calls); the governed ones need the SDK.
        entry["quick"] = spec.family == "mem" and not inspect.iscoroutinefunction(spec.run)
        entry["listings"] = {key: pair[0][i] for key, pair in distinct.items()}
        if any(not _same(pair[1][i], pair[0][i]) for pair in distinct.values()):
            entry["always_load"] = {key: pair[1][i] for key, pair in distinct.items()}
        tools.append(entry)
    return {
        "fingerprint": source_fingerprint(),
        "latest_handshake": LATEST_HANDSHAKE_VERSION,
        "initialize": initialize,
        "tools_result": tools_result,
        "modern": {
            "version": LATEST_MODERN_VERSION,
            "tools_result": {**modern_plain, "tools": None},
            "discover_result": _results([discover(1, LATEST_MODERN_VERSION)], ALL)[0],
        },
        "tool_variants": variants,
        "call_results": call_shapes([*HANDSHAKE_PROTOCOL_VERSIONS, LATEST_MODERN_VERSION]),
        "tools": tools,
    }


def discover(rid: int, modern: str) -> dict[str, Any]:
    """A 2026-07-28 ``server/discover`` request."""
    meta = {PROTOCOL_VERSION_KEY: modern, CAPABILITIES_KEY: {}}
    return {"jsonrpc": "2.0", "id": rid, "method": "server/discover", "params": {"_meta": meta}}


def tools_call(rid: int, name: str, arguments: Any, modern: str | None = None) -> dict[str, Any]:
    """A ``tools/call`` request, with the 2026-07-28 envelope when ``modern`` is a version."""
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if modern:
        params["_meta"] = {PROTOCOL_VERSION_KEY: modern, CAPABILITIES_KEY: {}}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def call_shapes(versions: list[str]) -> dict[str, dict[str, Any]]:
    """Per protocol version, how the SDK writes a ``tools/call`` result: its keys in wire order,
    the keys of a content item, and the keys it adds with their values (``resultType``, the
    ``serverInfo`` stamp). Learnt from a call that fails argument checking, so no store is
    opened."""
    from engram.server.quick_calls import RESULT_KEYS

    shapes: dict[str, dict[str, Any]] = {}
    for version in versions:
        if version in shapes:
            continue
        bad = {"id": "not a number"}
        if version.startswith("2026"):
            result = _results([tools_call(1, "mem_get_observation", bad, version)], ALL)[0]
        else:
            lines = [*handshake(version), tools_call(1, "mem_get_observation", bad)]
            result = _results(lines, ALL)[1]
        shapes[version] = {
            "keys": list(result),
            "content_keys": list(result["content"][0]),
            "added": {k: v for k, v in result.items() if k not in RESULT_KEYS},
        }
    return shapes


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def render(catalogue: dict[str, Any]) -> str:
    """The file's text (stable, reviewable in a diff)."""
    return json.dumps(catalogue, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    """Write ``quickstart.json`` next to the quick start."""
    CATALOGUE.write_text(render(build_catalogue()), encoding="utf-8")
    print(f"wrote {CATALOGUE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
