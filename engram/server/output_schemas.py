"""What each tool's ``structuredContent`` looks like, as the JSON Schema its ``outputSchema`` says.

Every result is the envelope ``{contract_version, ok, data, diagnostics}``
(:mod:`engram.server.envelope`). The published schema checks the envelope and, with
``if``/``then``/``else``, ``data``: the tool's own shape below when ``ok`` is true, the error
shape (``code``, ``message``, ``remedy``) when it is false. Shapes name the fields a client can
rely on and leave room for more (no ``additionalProperties: false``), so adding a field is not a
breaking change. A test calls every tool and validates the answers against these schemas.
"""

from __future__ import annotations

from typing import Any

from engram.server.envelope import CONTRACT_VERSION

Schema = dict[str, Any]

STR: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
NUM: Schema = {"type": "number"}
BOOL: Schema = {"type": "boolean"}
OBJ: Schema = {"type": "object"}
ARR: Schema = {"type": "array"}
MAYBE_STR: Schema = {"type": ["string", "null"]}


def obj(required: tuple[str, ...] = (), **properties: Schema) -> Schema:
    """An object with ``properties``; the names in ``required`` are always present."""
    out: Schema = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    return out


def array_of(item: Schema) -> Schema:
    """A list whose items follow ``item``."""
    return {"type": "array", "items": item}


def answer(result: Schema, **extra: Schema) -> Schema:
    """A journal answer: ``result`` plus, for project-scoped tools, the resolved project (and
    any ``extra`` top-level fields the tool adds after ``result``)."""
    return obj(
        ("result",),
        project=MAYBE_STR,
        project_source=MAYBE_STR,
        project_path=MAYBE_STR,
        result=result,
        **extra,
    )


OBSERVATION = obj(("id", "title", "content"), id=INT, title=STR, content=STR, type=STR)
SAVED = obj(
    ("id", "action", "observation"),
    id=INT,
    action=STR,
    state=STR,
    observation=OBJ,
    judgment_required=BOOL,
    candidates=ARR,
)
SESSION = obj(("id", "project"), id=STR, project=STR, directory=MAYBE_STR, started_at=STR)
PINNED = obj(("id", "pinned"), result=STR, id=INT, sync_id=STR, pinned=BOOL)
PROPOSAL = obj(("saved",), kind=STR, candidates=ARR, approval_token=STR, expires_at=STR, saved=BOOL)
ERROR = obj(("code", "message", "remedy"), code=STR, message=STR, remedy=STR)

# The ``data`` of a successful call, per tool.
DATA: dict[str, Schema] = {
    "mem_save": answer(SAVED),
    "mem_update": answer(obj(("observation",), observation=OBJ, changed=BOOL)),
    "mem_get_observation": answer(OBSERVATION),
    "mem_suggest_topic_key": answer(obj(("topic_key",), topic_key=STR)),
    "mem_capture_passive": answer(
        obj(
            ("found", "saved_ids", "extracted", "saved", "duplicates"),
            found=INT,
            saved_ids=array_of(INT),
            skipped=INT,
            extracted=INT,
            saved=INT,
            duplicates=INT,
        )
    ),
    "mem_save_prompt": answer(obj(("id",), id=INT, prompt=OBJ)),
    "mem_search": answer(
        array_of(obj(("id", "title"), id=INT, title=STR, type=STR)),
        prompts=array_of(obj(("id", "content"), id=INT, content=STR, project=STR)),
    ),
    "mem_context": answer(obj(("text",), text=STR, truncated=BOOL)),
    "mem_timeline": answer(obj(("focus", "before", "after"), focus=OBJ, before=ARR, after=ARR)),
    "mem_session_summary": answer(SAVED),
    "mem_session_start": answer(SESSION),
    "mem_session_end": answer(SESSION),
    "mem_current_project": obj(
        ("project", "cwd"),
        project=MAYBE_STR,
        project_source=MAYBE_STR,
        project_path=MAYBE_STR,
        cwd=STR,
        available_projects=array_of(STR),
    ),
    "mem_list_projects": obj(("projects", "count"), projects=array_of(OBJ), count=INT),
    "mem_doctor": obj(("ok", "findings"), ok=BOOL, counts=OBJ, findings=array_of(OBJ)),
    "mem_stats": answer(
        obj(("sessions", "observations"), sessions=INT, observations=INT, prompts=INT)
    ),
    "mem_merge_projects": answer(OBJ),
    "mem_judge": answer(OBJ),
    "mem_compare": answer(OBJ),
    "mem_review": answer({"type": ["array", "object"]}),
    "mem_pin": PINNED,
    "mem_unpin": PINNED,
    "mem_delete": answer(obj(("id", "hard"), id=INT, sync_id=STR, project=STR, hard=BOOL)),
    "engram_load": OBJ,
    "engram_route": obj(("entries",), query=STR, kinds=array_of(STR), entries=array_of(OBJ)),
    "engram_search": obj(("entries",), entries=array_of(OBJ)),
    "engram_verify": obj(("ok", "checked"), ok=BOOL, checked=INT, mismatches=ARR),
    "engram_status": obj(("healthy",), healthy=BOOL, project=STR, durable=INT, working=INT),
    "engram_save": PROPOSAL,
    "engram_save_session": PROPOSAL,
    "engram_note": PROPOSAL,
    "engram_commit": OBJ,
    "engram_set_role": obj(("roles",), roles=array_of(STR)),
    "engram_set_rule_variant": obj(("rule_variant",), rule_variant=STR),
}


def output_schema(tool: str) -> Schema:
    """The ``outputSchema`` of ``tool``: the envelope, ``data`` checked by ``ok``.

    A tool without a declared shape (a test keeps :data:`DATA` complete) gets "an object".
    """
    data = DATA.get(tool, OBJ)
    return {
        "type": "object",
        "properties": {
            "contract_version": {"type": "string", "const": CONTRACT_VERSION},
            "ok": BOOL,
            "data": {},
            "diagnostics": array_of(STR),
        },
        "required": ["contract_version", "ok", "data", "diagnostics"],
        "if": {"properties": {"ok": {"const": True}}},
        "then": {"properties": {"data": data}},
        "else": {"properties": {"data": ERROR}},
    }
