"""Conflict audit (admin, local runtime only): list, judge, compare, show, stats, scan and the
sync deferred queue. Each route parses, calls one operation and shapes the seed's JSON."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.http.exchange import Call, endpoint
from engram.http.problems import bad_request
from engram.http.selection import read_scope
from engram.memory import conflicts, relations


@endpoint()
def list_relations(call: Call) -> Any:
    """GET /conflicts — relations that may be conflicts, newest first (limit clamped to 500)."""
    page = conflicts.list_conflicts(
        call.store,
        project=read_scope(call),
        status=call.query("status"),
        since=call.query("since"),
        limit=call.query_int("limit"),
        offset=call.query_int("offset", 0) or 0,
    )
    return page.to_dict()


def _number(call: Call, name: str) -> float | None:
    value = call.fields().get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise bad_request("http.bad_field", f"field {name!r} must be a number")
    return float(value)


@endpoint(body=True)
def judge(call: Call) -> Any:
    """POST /conflicts/judge — record a verdict on an existing relation."""
    judgment_id = call.text("judgment_id", required=True)
    relation = call.text("relation", required=True)
    evidence = call.fields().get("evidence")
    judged = relations.judge(
        call.store,
        judgment_id or "",
        relation or "",
        reason=call.text("reason"),
        evidence=evidence if evidence is None or isinstance(evidence, str) else str(evidence),
        confidence=_number(call, "confidence"),
        session_id=call.text("session_id"),
    )
    return {"relation": {"sync_id": judged.sync_id, "judgment_status": judged.judgment_status}}


@endpoint(body=True)
def compare(call: Call) -> Any:
    """POST /conflicts/compare — persist a verdict for two observation ids."""
    first, second = call.integer("memory_id_a"), call.integer("memory_id_b")
    if first is None or second is None:
        raise bad_request("http.missing_field", "memory_id_a and memory_id_b are required")
    confidence = _number(call, "confidence")
    if confidence is None:
        raise bad_request("http.missing_field", "field 'confidence' is required")
    saved = relations.compare(
        call.store,
        first,
        second,
        call.text("relation", required=True) or "",
        confidence=confidence,
        reasoning=call.text("reasoning", required=True) or "",
        model=call.text("model"),
    )
    return {"sync_id": saved.sync_id}


@endpoint()
def show(call: Call) -> Any:
    """GET /conflicts/{relation_id} — one relation with both memories' snippets."""
    raw = call.path_text("relation_id")
    if not (raw.isascii() and raw.isdigit()):
        raise bad_request("http.bad_id", f"relation_id must be an integer, got {raw!r}")
    return conflicts.show_conflict(call.store, int(raw)).to_dict()


@endpoint()
def stats(call: Call) -> Any:
    """GET /conflicts/stats — counts for the current, a named or (all_projects) every project."""
    return conflicts.conflict_stats(call.store, project=read_scope(call)).to_dict()


def _scan_int(call: Call, name: str, default: int) -> int:
    value = call.integer(name)
    return default if value is None else value


@endpoint(body=True)
def scan(call: Call) -> Any:
    """POST /conflicts/scan — one page of the lexical scan (and the semantic judge)."""
    if call.body is None:
        call.body = {}  # every field has a default
    fields = call.fields()
    if fields.get("all_projects") is True:
        if fields.get("project") is not None:
            raise bad_request(
                "http.conflicting_selectors", "use either project or all_projects, not both"
            )
        project = None
    else:
        project = read_scope(call, explicit=call.text("project"))
    semantic = call.flag("semantic")
    from engram.memory import conflict_scan
    from engram.memory.conflict_judge import Judge, agent_from_env

    options = conflict_scan.ScanOptions(
        project=project,
        limit=_scan_int(call, "limit", conflict_scan.PAGE_MAX),
        cursor=call.integer("cursor"),
        since=call.text("since"),
        apply=call.flag("apply"),
        max_insert=_scan_int(call, "max_insert", conflict_scan.MAX_INSERT_DEFAULT),
        semantic=semantic,
        concurrency=_scan_int(call, "concurrency", conflict_scan.CONCURRENCY_DEFAULT),
        timeout_per_call=_scan_int(call, "timeout_per_call_seconds", conflict_scan.TIMEOUT_DEFAULT),
        max_semantic=_scan_int(call, "max_semantic", conflict_scan.MAX_SEMANTIC_DEFAULT),
    ).checked()
    judge_with = Judge(agent_from_env()) if semantic else None
    return conflict_scan.scan(call.store, options, judge=judge_with).to_dict()


@endpoint()
def deferred_rows(call: Call) -> Any:
    """GET /conflicts/deferred — the sync queue's waiting, dead or applied rows."""
    from engram.sync import deferred

    page = deferred.list_deferred(
        call.store,
        status=call.query("status"),
        limit=call.query_int("limit"),
        offset=call.query_int("offset", 0) or 0,
    )
    return page.to_dict()


@endpoint(body=True)
def replay(call: Call) -> Any:
    """POST /conflicts/deferred/replay — retry every deferred row now."""
    from engram.sync import deferred

    return deferred.replay_deferred(call.store)


ROUTES: list[BaseRoute] = [
    Route("/conflicts", list_relations, methods=["GET"]),
    Route("/conflicts/judge", judge, methods=["POST"]),
    Route("/conflicts/compare", compare, methods=["POST"]),
    Route("/conflicts/stats", stats, methods=["GET"]),
    Route("/conflicts/scan", scan, methods=["POST"]),
    Route("/conflicts/deferred", deferred_rows, methods=["GET"]),
    Route("/conflicts/deferred/replay", replay, methods=["POST"]),
    Route("/conflicts/{relation_id}", show, methods=["GET"]),
]
