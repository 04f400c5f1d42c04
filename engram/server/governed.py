"""The governed ``engram_*`` family: tool specs, resources and the ``propose`` prompt.

Importing this module (listed in :data:`engram.server.registry.TOOL_MODULES`) registers
everything. ``engram_commit`` carries ``_meta["anthropic/requiresUserInteraction"]: true`` so
Claude Code prompts on every call; read tools are ``readOnlyHint: true``.
"""

from __future__ import annotations

from typing import Any

from engram.errors import EngramError
from engram.memory import governed as gm
from engram.memory.governed.load import DISCLOSURES
from engram.memory.governed.models import SCOPES, TYPES
from engram.server import governed_tools as run
from engram.server.catalog import PromptSpec, ResourceProvider, register_prompt, register_resources
from engram.server.governed_context import knowledge_base
from engram.server.registry import Param, ToolSpec, register

PROFILES = frozenset({"governed", "all"})
INDEX_URI = "engram://index"
MEMORY_URI = "engram://memory/"

# What a host shows a person for each tool.
TITLES = {
    "engram_load": "Load project knowledge",
    "engram_route": "Route a task",
    "engram_search": "Search project knowledge",
    "engram_verify": "Verify knowledge hashes",
    "engram_status": "Knowledge status",
    "engram_save": "Propose knowledge",
    "engram_save_session": "Propose session knowledge",
    "engram_commit": "Commit approved knowledge",
    "engram_set_role": "Set roles",
    "engram_set_rule_variant": "Set rule wording",
    "engram_note": "Propose working note",
}


def _read(name: str, description: str, params: tuple[Param, ...], runner: Any) -> ToolSpec:
    return ToolSpec(
        name, description, params, runner, "engram", PROFILES, read_only=True, title=TITLES[name]
    )


def _write(
    name: str, description: str, params: tuple[Param, ...], runner: Any, **kw: Any
) -> ToolSpec:
    return ToolSpec(
        name,
        description,
        params,
        runner,
        "engram",
        PROFILES,
        read_only=False,
        title=TITLES[name],
        **kw,
    )


QUERY = Param("query", "string", "The task or question, in words.", max_length=2000)
SCOPE = Param("scope", "string", "project (default) or global.", enum=SCOPES)


def specs() -> list[ToolSpec]:
    """Every governed tool, in listing order."""
    durable = tuple(t for t in TYPES if t != "note")
    return [
        _read(
            "engram_load",
            "Route and return project rules, decisions and conventions for a task: bodies that fit "
            "budget_tokens, one-line cards for the rest, omitted_ids fetchable by id.",
            (
                QUERY,
                Param("id", "string", "Fetch one memory by id (budget_tokens then has no effect)."),
                Param(
                    "budget_tokens",
                    "integer",
                    "Token budget of the pack.",
                    minimum=0,
                    maximum=200_000,
                ),
                Param(
                    "disclosure", "string", "tiered (default), cards or bodies.", enum=DISCLOSURES
                ),
                Param("full", "boolean", "Route every memory, not only matches."),
                Param("explain", "boolean", "Say why each memory routed and which tier it got."),
            ),
            run.run_load,
        ),
        _read(
            "engram_route",
            "Classify a task and list the memories it routes to, in load order.",
            (Param("query", "string", "The task, in words.", required=True, max_length=2000),),
            run.run_route,
        ),
        _read(
            "engram_search",
            "Search governed project memory (rules, decisions, conventions, notes).",
            (
                Param("query", "string", "Words to search for.", required=True, max_length=2000),
                Param("limit", "integer", "Results, 1-50 (default 10).", minimum=1, maximum=50),
                Param("type", "string", "Only this memory type.", enum=TYPES),
                SCOPE,
            ),
            run.run_search,
        ),
        _read(
            "engram_verify",
            "Recompute every memory's content hash and report mismatches.",
            (),
            run.run_verify,
        ),
        _read("engram_status", "Governed memory health and counts.", (), run.run_status),
        _write(
            "engram_save",
            "Propose one memory (never writes). Returns a numbered preview with a Verdict line and "
            "an approval_token; the human approves, then call engram_commit.",
            (
                Param("title", "string", "Short title.", required=True, max_length=200),
                Param("body", "string", "The knowledge itself.", required=True),
                Param("type", "string", "Memory type (default convention).", enum=durable),
                SCOPE,
                Param("key", "string", "Topic key; a live memory with this key is updated."),
                Param("supersedes", "string", "Id of the memory this one replaces."),
                Param("roles", "string_list", "Roles it applies to (default: everyone)."),
                Param("variants", "object", 'Other wordings of a rule, e.g. {"short": "..."}.'),
            ),
            run.run_save,
        ),
        _write(
            "engram_save_session",
            "Propose this session's knowledge (never writes): the given candidates, or the "
            "journal's decisions, patterns and fixes of the last query_level sessions.",
            (
                run.CandidatesParam("candidates", "object", "Candidates to propose."),
                Param(
                    "query_level",
                    "integer",
                    "Recent sessions to read (default 1).",
                    minimum=1,
                    maximum=500,
                ),
            ),
            run.run_save_session,
        ),
        _write(
            "engram_commit",
            "Write an approved proposal. Call only after the human approved the displayed "
            'candidates; approve is "all" or their 1-based numbers.',
            (
                Param(
                    "approval_token",
                    "string",
                    "Token from engram_save / _session / _note.",
                    required=True,
                    max_length=200,
                ),
                run.ApproveParam(
                    "approve", "string", '"all" or a list of candidate numbers.', required=True
                ),
                Param("scope", "string", "Narrow the save scope (never widen).", enum=SCOPES),
            ),
            run.run_commit,
            meta={"anthropic/requiresUserInteraction": True},
        ),
        _write(
            "engram_set_role",
            "Set the active roles that filter routing ([] clears).",
            (Param("roles", "string_list", "Role names.", required=True),),
            run.run_set_role,
            idempotent=True,
        ),
        _write(
            "engram_set_rule_variant",
            "Choose which wording of rules loads render.",
            (
                Param(
                    "mode",
                    "string",
                    "full, or a variant name such as short.",
                    required=True,
                    max_length=32,
                ),
            ),
            run.run_set_rule_variant,
            idempotent=True,
        ),
        run.NoteSpec(
            "engram_note",
            "Save a short redacted working-tier task note after one yes/cancel approval; "
            "returns {id, file, valid_until}.",
            (
                Param("text", "string", "The note.", required=True, max_length=4000),
                Param("objective", "string", "The session objective it serves.", max_length=200),
                Param("type", "string", "Memory type (default note).", enum=TYPES),
                SCOPE,
            ),
            run.run_note,
            "engram",
            PROFILES,
            read_only=False,
            title=TITLES["engram_note"],
        ),
    ]


# --- resources ------------------------------------------------------------------------------


def list_resources() -> list[dict[str, Any]]:
    """The index, then the top ``mcp.resource_limit`` memories by usage."""
    kb = knowledge_base()
    out: list[dict[str, Any]] = [
        {
            "uri": INDEX_URI,
            "name": "index",
            "title": "Engram memory index",
            "description": "One-line cards of every governed memory.",
            "mimeType": "text/markdown",
        }
    ]
    for memory in gm.most_used(kb, kb.config.resource_limit):
        out.append(
            {
                "uri": MEMORY_URI + memory.id,
                "name": memory.id,
                "title": memory.title,
                "description": memory.card(),
                "mimeType": "text/markdown",
            }
        )
    return out


def read_resource(uri: str) -> list[dict[str, Any]] | None:
    """``engram://index`` or ``engram://memory/{id}`` (counted as a fetch); None otherwise."""
    if uri == INDEX_URI:
        text = gm.index_cards(knowledge_base())
    elif uri.startswith(MEMORY_URI) and len(uri) > len(MEMORY_URI):
        try:
            text = gm.fetch(knowledge_base(), uri[len(MEMORY_URI) :]).text
        except EngramError:
            return None
    else:
        return None
    return [{"uri": uri, "mimeType": "text/markdown", "text": text}]


PROPOSE_PROTOCOL = """\
Engram memory proposal protocol
1. Collect durable project knowledge from this session: rules, decisions (with why),
   conventions, procedures, gotchas. One idea per candidate; no secrets, no chatter.
2. Call engram_save (one) or engram_save_session (several) — they only propose.
3. Show the human the numbered candidates exactly as returned, each with its Verdict line.
4. Only after the human approves, call engram_commit with the approval_token and approve:
   "all" or the approved numbers. Never commit what was not approved; tokens expire in 30
   minutes and work once.
5. If the host showed an approval dialog, the answer already took effect: do not commit.
For short-lived task state use engram_note instead; it expires and never becomes a rule
unless the human runs `engram promote`."""


def propose_prompt(arguments: dict[str, str]) -> list[dict[str, Any]]:
    """The ``propose`` prompt: the protocol, plus the focus the caller named."""
    focus = arguments.get("focus", "").strip()
    text = PROPOSE_PROTOCOL + (f"\nFocus on: {focus}" if focus else "")
    return [{"role": "user", "content": {"type": "text", "text": text}}]


for _spec in specs():
    register(_spec)
register_resources(
    ResourceProvider(
        "governed",
        list_resources,
        read_resource,
        templates=(
            {
                "uriTemplate": MEMORY_URI + "{id}",
                "name": "memory",
                "description": "One governed memory by id (same body as engram load --id).",
                "mimeType": "text/markdown",
            },
        ),
    )
)
register_prompt(
    PromptSpec(
        "propose",
        "The memory proposal protocol: how to propose project knowledge for human approval.",
        propose_prompt,
        ({"name": "focus", "description": "What to propose memories about.", "required": False},),
    )
)
