"""Every statement of seed 000 "Protocol versions", over raw JSON-RPC to the real process."""

from __future__ import annotations

import json

import pytest

from engram.testing import Sandbox
from tests.server.mcp_process import MODERN, initialize, modern, request, run_server

HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


def test_initialize_echoes_each_known_handshake_version(sandbox: Sandbox) -> None:
    lines = [initialize(i, v)[0] for i, v in enumerate(HANDSHAKE_VERSIONS)]
    # One connection negotiates once; run each version in its own process.
    for i, version in enumerate(HANDSHAKE_VERSIONS):
        answered = run_server(sandbox, [lines[i]])
        assert answered.result(i)["protocolVersion"] == version


@pytest.mark.parametrize("asked", ["1999-01-01", "2025-12-31", MODERN, "not a version", ""])
def test_initialize_answers_latest_handshake_and_never_echoes_unknown(
    sandbox: Sandbox, asked: str
) -> None:
    answered = run_server(sandbox, [initialize(1, asked)[0]])
    result = answered.result(1)
    assert result["protocolVersion"] == "2025-11-25"
    assert asked not in json.dumps(result) or asked == ""


def test_enveloped_requests_are_served_without_a_handshake(sandbox: Sandbox) -> None:
    lines = [
        modern(1, "server/discover"),
        modern(2, "tools/list"),
        modern(3, "resources/list"),
        modern(4, "resources/templates/list"),
        modern(5, "prompts/list"),
    ]
    answered = run_server(sandbox, lines)
    discover = answered.result(1)
    assert MODERN in discover["supportedVersions"]
    for rid in (1, 2, 3, 4, 5):
        assert answered.result(rid)["resultType"] == "complete"


def test_modern_list_results_carry_cache_hints(sandbox: Sandbox) -> None:
    lines = [modern(1, "tools/list"), modern(2, "resources/list"), modern(3, "prompts/list")]
    answered = run_server(sandbox, lines)
    for rid in (1, 2, 3):
        result = answered.result(rid)
        assert isinstance(result["ttlMs"], int) and result["ttlMs"] >= 0
        assert result["cacheScope"] in ("public", "private")


def test_legacy_results_carry_no_modern_fields(sandbox: Sandbox) -> None:
    answered = run_server(sandbox, [*initialize(1), request(2, "tools/list")])
    result = answered.result(2)
    assert "resultType" not in result and "ttlMs" not in result and "cacheScope" not in result


def test_missing_client_capabilities_is_invalid_params(sandbox: Sandbox) -> None:
    answered = run_server(sandbox, [modern(1, "tools/list", capabilities=False)])
    error = answered.error(1)
    assert error["code"] == -32602
    assert "clientCapabilities" in error["message"]


def test_unsupported_modern_version_is_32022_with_supported_and_requested(
    sandbox: Sandbox,
) -> None:
    answered = run_server(sandbox, [modern(1, "tools/list", version="2099-01-01")])
    error = answered.error(1)
    assert error["code"] == -32022
    assert MODERN in error["data"]["supported"]
    assert error["data"]["requested"] == "2099-01-01"


@pytest.mark.parametrize("method", ["ping", "initialize", "mem_search", "mem_save"])
def test_ping_initialize_and_bare_tool_methods_are_not_found_in_the_modern_era(
    sandbox: Sandbox, method: str
) -> None:
    answered = run_server(sandbox, [modern(1, method)])
    assert answered.error(1)["code"] == -32601


def test_both_eras_on_one_connection(sandbox: Sandbox) -> None:
    lines = [*initialize(1), request(2, "ping"), modern(3, "tools/list"), request(4, "tools/list")]
    answered = run_server(sandbox, lines)
    assert answered.result(1)["protocolVersion"] == "2025-11-25"
    assert answered.result(2) == {}
    assert answered.result(3)["resultType"] == "complete"
    assert "resultType" not in answered.result(4)


def test_stdout_is_one_json_rpc_message_per_line(sandbox: Sandbox) -> None:
    lines = [*initialize(1), request(2, "tools/list"), modern(3, "server/discover")]
    answered = run_server(sandbox, lines)
    raw_lines = answered.stdout.splitlines()
    assert len(raw_lines) == 3
    for line in raw_lines:
        assert json.loads(line)["jsonrpc"] == "2.0"
