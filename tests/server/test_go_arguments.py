"""Every argument of the Go tool's ``mem_*`` tools (its v1 tool contract, plus the arguments
it added since: expected_project, find/replace, include_history/history_cursor, match_mode)
means the same here. One fresh ``engram-mcp`` runs the calls below in order; each call names
the arguments it proves, and its check fails when the argument is ignored or means something
else. ``golden/go_arguments.json`` lists every Go argument with the call that proves it
(``ENGRAM_UPDATE_GOLDEN=1`` rewrites it; a Go argument no call proves fails the test).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.testing import Sandbox
from tests.server.mcp_process import call_tools, engram

GOLDEN = Path(__file__).parent / "golden" / "go_arguments.json"

# The Go tool's arguments per tool (its tool contract; what its agents and skills send).
GO_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "mem_capture_passive": ("content", "session_id", "source"),
    "mem_compare": ("confidence", "memory_id_a", "memory_id_b", "model", "reasoning", "relation"),
    "mem_context": ("project", "scope"),
    "mem_current_project": (),
    "mem_delete": ("expected_project", "hard_delete", "id"),
    "mem_doctor": ("check", "project"),
    "mem_get_observation": ("history_cursor", "id", "include_history", "project"),
    "mem_judge": ("confidence", "evidence", "judgment_id", "reason", "relation", "session_id"),
    "mem_list_projects": (),
    "mem_merge_projects": ("from", "to"),
    "mem_pin": ("id",),
    "mem_review": ("action", "id", "limit", "observation_id", "project"),
    "mem_save": (
        "capture_prompt",
        "content",
        "observation",
        "project",
        "project_choice_reason",
        "recovery_token",
        "scope",
        "session_id",
        "title",
        "topic_key",
        "type",
    ),
    "mem_save_prompt": (
        "content",
        "project",
        "project_choice_reason",
        "recovery_token",
        "session_id",
    ),
    "mem_search": ("all_projects", "limit", "match_mode", "project", "query", "scope", "type"),
    "mem_session_end": ("id", "summary"),
    "mem_session_start": ("directory", "id"),
    "mem_session_summary": (
        "content",
        "project",
        "project_choice_reason",
        "recovery_token",
        "session_id",
    ),
    "mem_stats": ("project",),
    "mem_suggest_topic_key": ("content", "title", "type"),
    "mem_timeline": ("after", "before", "observation_id", "project"),
    "mem_unpin": ("id",),
    "mem_update": (
        "content",
        "expected_project",
        "find",
        "id",
        "replace",
        "scope",
        "title",
        "topic_key",
        "type",
    ),
}
# Arguments whose meaning needs an ambiguous working directory: proved by another test.
ELSEWHERE = {
    "mem_save_prompt.project": "tests/server/test_save_prompt_project.py::test_an_explicit_project_is_ignored_outside_recovery (seed: project counts only during ambiguity recovery)",
    "project_choice_reason": "tests/server/test_mem_tools.py::test_ambiguous_directory_refuses_writes_with_candidates_and_recovers",
    "recovery_token": "tests/server/test_mem_tools.py::test_ambiguous_directory_refuses_writes_with_candidates_and_recovers",
}
LEARNINGS = "## Key Learnings:\n\n1. Tenant id belongs in every cache key we build\n2. Retries need jitter or the workers stampede together\n"

Result = dict[str, Any]


@dataclass(frozen=True)
class GoCall:
    tool: str
    arguments: dict[str, Any]
    proves: tuple[str, ...]
    check: Callable[[Result], None]


def ok(result: Result) -> Result:
    assert result["isError"] is False, result["content"][0]["text"]
    return result["structuredContent"]["data"]  # type: ignore[no-any-return]


def failed(code: str) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        assert result["isError"] is True
        assert result["structuredContent"]["data"]["code"] == code, result["structuredContent"]

    return check


def text(result: Result) -> str:
    return str(result["content"][0]["text"])


def diagnostics(result: Result) -> list[str]:
    return list(result["structuredContent"]["diagnostics"])


def _history(result: Result) -> None:
    data = ok(result)
    assert data["version_count"] == 4
    assert [v["version"] for v in data["history"]] == [1, 2, 3, 4]
    assert data["history"][0]["content"] == "JWT only"
    assert "history_cursor" not in data and "Version 1" in text(result)


def _older_page(result: Result) -> None:
    data = ok(result)
    assert data["version_count"] == 4 and [v["version"] for v in data["history"]] == [1, 2]


def _clamped(to: int) -> Callable[[Result], None]:
    def check(result: Result) -> None:
        ok(result)
        assert any(f"using {to}" in note for note in diagnostics(result)), diagnostics(result)

    return check


def _saved_from_observation_alias(result: Result) -> None:
    data = ok(result)
    assert data["project"] == "shop" and data["result"]["action"] == "created"


def _missing_owner(result: Result) -> None:
    failed("server.missing_argument")(result)
    remedy = result["structuredContent"]["data"]["remedy"]
    assert '"expected_project"' in remedy and "never reads the observation" in remedy


CALLS: list[GoCall] = [
    GoCall(
        "mem_session_start",
        {"id": "s1", "directory": "{shop}"},
        ("id", "directory"),
        lambda r: ok(r),
    ),
    GoCall(
        "mem_save",
        {
            "title": "Auth model",
            "observation": "JWT only",
            "type": "architecture",
            "scope": "project",
            "topic_key": "architecture/auth",
            "session_id": "s1",
            "project": "shop",
            "capture_prompt": False,
        },
        (
            "title",
            "observation",
            "type",
            "scope",
            "topic_key",
            "session_id",
            "project",
            "capture_prompt",
        ),
        _saved_from_observation_alias,
    ),
    GoCall(
        "mem_save",
        {
            "title": "Auth model",
            "content": "JWT + refresh",
            "type": "architecture",
            "topic_key": "architecture/auth",
            "session_id": "s1",
        },
        ("content",),
        lambda r: ok(r)["result"]["action"] in ("updated", "upserted", "revised") or None,
    ),
    GoCall(
        "mem_update",
        {"id": 2, "expected_project": "shop", "content": "OAuth2 via gateway"},
        ("id", "expected_project", "content"),
        lambda r: ok(r),
    ),
    GoCall(
        "mem_update",
        {"id": 2, "expected_project": "shop", "find": "gateway", "replace": "the gateway"},
        ("find", "replace"),
        lambda r: ok(r),
    ),
    GoCall(
        "mem_update",
        {
            "id": 2,
            "expected_project": "shop",
            "title": "Auth architecture",
            "type": "decision",
            "scope": "project",
            "topic_key": "architecture/auth",
        },
        ("title", "type", "scope", "topic_key"),
        lambda r: ok(r),
    ),
    GoCall("mem_update", {"id": 2, "title": "no owner"}, ("expected_project",), _missing_owner),
    GoCall(
        "mem_get_observation",
        {"id": 2, "include_history": True},
        ("id", "include_history"),
        _history,
    ),
    GoCall(
        "mem_get_observation",
        {"id": 2, "include_history": True, "history_cursor": 3},
        ("history_cursor",),
        _older_page,
    ),
    GoCall(
        "mem_get_observation",
        {"id": 1},
        ("id",),
        lambda r: ok(r)["result"]["project"] == "billing" or None,
    ),
    GoCall(
        "mem_get_observation",
        {"id": 2, "project": "billing"},
        ("project",),
        lambda r: (ok(r)["project"] == "billing") or None,
    ),
    GoCall(
        "mem_search",
        {"query": "gateway", "match_mode": "any", "mode": "all"},
        ("match_mode",),
        failed("server.bad_argument"),
    ),
    GoCall(
        "mem_search",
        {
            "query": "gateway zebra",
            "match_mode": "any",
            "limit": 500,
            "type": "decision",
            "scope": "project",
            "project": "shop",
        },
        ("query", "match_mode", "limit", "type", "scope", "project"),
        _clamped(20),
    ),
    GoCall(
        "mem_search",
        {"query": "invoices", "all_projects": True},
        ("all_projects",),
        lambda r: [h["project"] for h in ok(r)["result"]] == ["billing"] or None,
    ),
    GoCall(
        "mem_context",
        {"project": "shop", "scope": "project"},
        ("project", "scope"),
        lambda r: ok(r) and "Auth architecture" in text(r),
    ),
    GoCall(
        "mem_timeline",
        {"observation_id": 2, "before": 100, "after": 100, "project": "shop"},
        ("observation_id", "before", "after", "project"),
        _clamped(50),
    ),
    GoCall(
        "mem_stats",
        {"project": "billing"},
        ("project",),
        lambda r: ok(r)["project"] == "billing" or None,
    ),
    GoCall(
        "mem_doctor",
        {"project": "shop", "check": "no_such_check"},
        ("project", "check"),
        lambda r: None,
    ),
    GoCall("mem_pin", {"id": 2}, ("id",), lambda r: ok(r)["pinned"] is True or None),
    GoCall("mem_unpin", {"id": 2}, ("id",), lambda r: ok(r)["pinned"] is False or None),
    GoCall(
        "mem_review",
        {"action": "list", "project": "shop", "limit": 1000},
        ("action", "project", "limit"),
        _clamped(100),
    ),
    GoCall(
        "mem_review",
        {"action": "mark_reviewed", "observation_id": 2},
        ("action", "observation_id"),
        lambda r: ok(r),
    ),
    GoCall("mem_review", {"action": "mark_reviewed", "id": 2}, ("id",), lambda r: ok(r)),
    GoCall(
        "mem_suggest_topic_key",
        {"type": "bugfix", "title": "Fix login crash", "content": "null user"},
        ("type", "title", "content"),
        lambda r: ok(r)["result"]["topic_key"].startswith("bug"),
    ),
    GoCall(
        "mem_save_prompt",
        {"content": "add rate limiting to login", "session_id": "s1"},
        ("content", "session_id"),
        lambda r: ok(r),
    ),
    GoCall(
        "mem_session_summary",
        {
            "content": "## Goal\nAuth\n## Accomplished\n- moved to gateway",
            "session_id": "s1",
            "project": "shop",
        },
        ("content", "session_id", "project"),
        lambda r: ok(r),
    ),
    GoCall(
        "mem_capture_passive",
        {"content": LEARNINGS, "session_id": "s1", "source": "subagent-stop"},
        ("content", "session_id", "source"),
        lambda r: ok(r)["result"]["extracted"] == 2 or None,
    ),
    GoCall(
        "mem_compare",
        {
            "memory_id_a": 2,
            "memory_id_b": 5,
            "relation": "related",
            "confidence": 0.9,
            "reasoning": "both about auth",
            "model": "test-model",
        },
        ("memory_id_a", "memory_id_b", "relation", "confidence", "reasoning", "model"),
        lambda r: ok(r),
    ),
    GoCall(
        "mem_judge",
        {
            "judgment_id": "no-such-judgment",
            "relation": "related",
            "reason": "r",
            "evidence": "e",
            "confidence": 1.0,
            "session_id": "s1",
        },
        ("judgment_id", "relation", "reason", "evidence", "confidence", "session_id"),
        failed("memory.unknown_judgment"),
    ),
    GoCall(
        "mem_merge_projects", {"from": "Billing", "to": "billing"}, ("from", "to"), lambda r: None
    ),
    GoCall(
        "mem_session_end", {"id": "s1", "summary": "auth moved"}, ("id", "summary"), lambda r: ok(r)
    ),
    GoCall("mem_current_project", {}, (), lambda r: ok(r)["project"] == "shop" or None),
    GoCall("mem_list_projects", {}, (), lambda r: ok(r)),
    GoCall(
        "mem_delete",
        {"id": 5, "expected_project": "shop", "hard_delete": True},
        ("id", "expected_project", "hard_delete"),
        lambda r: ok(r),
    ),
    GoCall("mem_get_observation", {"id": 5}, ("id",), failed("memory.not_found")),
    GoCall("mem_delete", {"id": 2}, ("expected_project",), _missing_owner),
]


def _golden() -> dict[str, dict[str, str]]:
    proofs: dict[str, dict[str, str]] = {}
    for n, step in enumerate(CALLS, 1):
        for name in step.proves:
            proofs.setdefault(step.tool, {}).setdefault(
                name, f"call {n}: {step.tool} {json.dumps(step.arguments, sort_keys=True)}"
            )
    for tool, names in GO_ARGUMENTS.items():
        for name in names:
            proof = ELSEWHERE.get(f"{tool}.{name}") or ELSEWHERE.get(name)
            if proof:
                proofs.setdefault(tool, {}).setdefault(name, proof)
    return {tool: dict(sorted(args.items())) for tool, args in sorted(proofs.items())}


def test_every_go_argument_has_a_proving_call_and_the_golden_lists_it() -> None:
    golden = _golden()
    missing = [
        f"{t}.{a}" for t, names in GO_ARGUMENTS.items() for a in names if a not in golden.get(t, {})
    ]
    assert missing == []
    if os.environ.get("ENGRAM_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(golden, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert json.loads(GOLDEN.read_text(encoding="utf-8")) == golden


def _fill(value: Any, shop: Path) -> Any:
    if value == "{shop}":
        return str(shop)
    return value


def test_every_go_argument_means_the_same_here(sandbox: Sandbox) -> None:
    shop = sandbox.workspace / "shop"
    shop.mkdir()
    engram(
        sandbox,
        shop,
        "save",
        "Invoices round down",
        "Billing rounds invoices down",
        "--project",
        "billing",
    )
    calls = [(c.tool, {k: _fill(v, shop) for k, v in c.arguments.items()}) for c in CALLS]
    results = call_tools(sandbox, shop, *calls)
    for n, (step, result) in enumerate(zip(CALLS, results, strict=True), 1):
        where = f"call {n}: {step.tool} {step.arguments}"
        ignored = [
            d for d in diagnostics(result) if "ignored" in d and any(p in d for p in step.proves)
        ]
        assert ignored == [], f"{where}: {ignored}"
        try:
            outcome = step.check(result)
        except (AssertionError, KeyError, TypeError) as exc:
            raise AssertionError(f"{where}: {text(result)}") from exc
        assert outcome is not False, f"{where}: {text(result)} {result['structuredContent']}"
