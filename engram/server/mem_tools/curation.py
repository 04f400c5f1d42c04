"""Curation: mem_judge, mem_compare, mem_review, mem_pin, mem_unpin and mem_delete."""

from __future__ import annotations

from engram.errors import EngramError
from engram.memory import observation as obs_ops
from engram.memory import relations, review
from engram.memory.project import ProjectDetection
from engram.server.envelope import ToolOutcome
from engram.server.mem_tools.context import STATE, answer, read_project, to_dicts
from engram.server.mem_tools.params import PROJECT_READ, SESSION_ID, expected_project, obs_id
from engram.server.registry import Param, ToolCall, ToolSpec, register

AGENT = frozenset({"agent"})
ADMIN = frozenset({"admin"})
RELATION = Param("relation", "string", "The verdict", required=True, enum=relations.VERDICTS)


def run_judge(call: ToolCall) -> ToolOutcome:
    """mem_judge: the verdict on a pending conflict candidate mem_save returned."""
    row = relations.judge(
        STATE.store(),
        call.get("judgment_id"),
        call.get("relation"),
        reason=call.get("reason"),
        evidence=call.get("evidence"),
        confidence=call.get("confidence", 1.0),
        session_id=call.get("session_id"),
    )
    text = f"Judged {row.sync_id}: {row.relation}"
    return answer(None, text, row.to_dict())


def run_compare(call: ToolCall) -> ToolOutcome:
    """mem_compare: record a semantic verdict between two memories of one project."""
    row = relations.compare(
        STATE.store(),
        call.get("memory_id_a"),
        call.get("memory_id_b"),
        call.get("relation"),
        confidence=call.get("confidence"),
        reasoning=call.get("reasoning"),
        model=call.get("model"),
    )
    text = f"Recorded #{call.get('memory_id_a')} {row.relation} #{call.get('memory_id_b')}"
    return answer(None, text, row.to_dict())


def run_review(call: ToolCall) -> ToolOutcome:
    """mem_review: list observations due for review, or mark one reviewed."""
    action = call.get("action")
    if action == "mark_reviewed":
        target = call.get("observation_id", call.get("id"))
        if target is None:
            raise EngramError(
                "server.missing_argument",
                "argument 'observation_id' is required for mark_reviewed",
                "call mem_review again with observation_id",
                argument="observation_id",
            )
        owner = read_project(call.get("project"))
        item = review.mark_reviewed(STATE.store(), target, project=owner.project)
        text = (
            f"Memory #{item.observation.id} reviewed; next review {item.observation.review_after}"
        )
        return answer(None, text, item.to_dict())
    detection = read_project(call.get("project")) if call.get("project") else None
    if action == "stale":
        return _stale(call, detection)
    due = review.list_due(
        STATE.store(),
        project=detection.project if detection else None,
        limit=call.get("limit", review.DEFAULT_REVIEW_LIMIT),
    )
    lines = [f"{len(due)} memories need review:"] + [
        f"- #{i.observation.id} [{i.observation.type}] {i.observation.title} "
        f"(review_after {i.observation.review_after})"
        for i in due
    ]
    return answer(detection, "\n".join(lines), to_dicts(due))


def _stale(call: ToolCall, detection: ProjectDetection | None) -> ToolOutcome:
    """mem_review action stale: memories whose cited code is gone or moved, with the fix."""
    from engram.memory.stale import list_stale

    found = list_stale(
        STATE.store(),
        project=detection.project if detection else None,
        limit=call.get("limit", review.DEFAULT_REVIEW_LIMIT),
    )
    lines = [f"{len(found)} memories cite code that moved or is gone:"]
    for item in found:
        lines.append(f"- #{item.observation.id} [{item.observation.type}] {item.observation.title}")
        lines += [f"  stale: {reason}" for reason in item.code.reasons]
        lines += [f"  fix: {fix}" for fix in item.fixes]
    return answer(detection, "\n".join(lines), to_dicts(found))


def _pin(call: ToolCall, pinned: bool) -> ToolOutcome:
    owner = read_project(None)  # like the CLI: only the current project's ids
    result = obs_ops.set_pinned(STATE.store(), call.get("id"), pinned, project=owner.project)
    verb = "pinned" if pinned else "unpinned"
    text = f"Memory #{result.id} {verb}"
    return ToolOutcome(text, {"result": text, **result.to_dict()})


def run_pin(call: ToolCall) -> ToolOutcome:
    """mem_pin: show an observation before recent ones in context (local, idempotent)."""
    return _pin(call, True)


def run_unpin(call: ToolCall) -> ToolOutcome:
    """mem_unpin: back to plain recency order (local, idempotent)."""
    return _pin(call, False)


def run_delete(call: ToolCall) -> ToolOutcome:
    """mem_delete: soft delete (default) or hard delete, asserting expected_project."""
    result = obs_ops.delete_observation(
        STATE.store(),
        call.get("id"),
        expected_project=call.get("expected_project"),
        hard=bool(call.get("hard_delete", False)),
    )
    how = "permanently deleted" if result.hard else "deleted (soft)"
    return answer(None, f"Memory #{result.id} {how}", result.to_dict())


CONFIDENCE = Param("confidence", "number", "0.0 to 1.0", minimum=0, maximum=1)

register(
    ToolSpec(
        name="mem_judge",
        title="Judge conflict",
        description="Record a verdict on a pending memory conflict: when mem_save returns "
        "candidates with judgment_required: true, inspect them and judge each judgment_id. "
        "Below 0.7 confidence, ask the user first.",
        params=(
            Param("judgment_id", "string", "judgment_id returned by mem_save", required=True),
            RELATION,
            Param("reason", "string", "Short reason for the verdict"),
            Param("evidence", "string", "Quotes or JSON supporting the verdict"),
            CONFIDENCE,
            SESSION_ID,
        ),
        run=run_judge,
        family="mem",
        profiles=AGENT,
        read_only=False,
        idempotent=True,
    )
)

register(
    ToolSpec(
        name="mem_compare",
        title="Compare memories",
        description="Record your verdict on how two memories relate (conflicts_with, "
        "supersedes, scoped, related, compatible, not_conflict). The same pair updates its "
        "verdict; memories of different projects are rejected.",
        params=(
            obs_id("First memory id", name="memory_id_a"),
            obs_id("Second memory id", name="memory_id_b"),
            RELATION,
            Param("confidence", "number", "0.0 to 1.0", required=True, minimum=0, maximum=1),
            Param("reasoning", "string", "Why (at most 200 characters)", True, max_length=200),
            Param("model", "string", "Model name, for provenance"),
        ),
        run=run_compare,
        family="mem",
        profiles=AGENT,
        read_only=False,
        idempotent=True,
    )
)

register(
    ToolSpec(
        name="mem_review",
        title="Review memories",
        description="Review lifecycle: action list shows memories whose review date passed "
        "(optional project, limit); action stale lists memories whose cited code moved or is "
        "gone, with the fix; action mark_reviewed restarts one memory's review cycle "
        "(observation_id).",
        params=(
            Param(
                "action",
                "string",
                "list, stale or mark_reviewed",
                True,
                enum=("list", "stale", "mark_reviewed"),
            ),
            PROJECT_READ,
            Param(
                "limit",
                "integer",
                "Maximum results (default 10)",
                minimum=1,
                maximum=100,
                clamp=True,
            ),
            obs_id("Observation to mark reviewed", name="observation_id", required=False),
            obs_id("Legacy alias of observation_id", required=False),
        ),
        run=run_review,
        family="mem",
        profiles=AGENT,
        read_only=False,
        idempotent=True,
    )
)

register(
    ToolSpec(
        name="mem_pin",
        title="Pin memory",
        description="Pin an observation so it appears before recent ones in mem_context "
        "(local to this device, idempotent).",
        params=(obs_id("Observation id to pin"),),
        run=run_pin,
        family="mem",
        profiles=AGENT,
        read_only=False,
        idempotent=True,
    )
)

register(
    ToolSpec(
        name="mem_unpin",
        title="Unpin memory",
        description="Unpin an observation (local to this device, idempotent).",
        params=(obs_id("Observation id to unpin"),),
        run=run_unpin,
        family="mem",
        profiles=AGENT,
        read_only=False,
        idempotent=True,
    )
)

register(
    ToolSpec(
        name="mem_delete",
        title="Delete memory",
        description="Admin: delete an observation by id. expected_project (the project you "
        "believe owns it) is required. Soft delete by default; hard_delete: true removes it "
        "permanently.",
        params=(
            obs_id("Observation id to delete"),
            expected_project("mem_delete"),
            Param("hard_delete", "boolean", "Delete permanently instead of soft delete"),
        ),
        run=run_delete,
        family="mem",
        profiles=ADMIN,
        read_only=False,
        destructive=True,
    )
)
