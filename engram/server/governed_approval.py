"""Asking the human to approve a proposal: the host's dialog in both eras, else a token.

- A client that declared form elicitation (and no ``--no-elicitation``) is asked in its own
  dialog. Legacy clients get a server-to-client ``elicitation/create``; 2026-07-28 clients get
  an ``input_required`` result whose ``requestState`` is HMAC-sealed (a key made per process, so
  a restart invalidates open states), expires, and is bound to the tool, the workspace and
  the arguments. A forged, expired or mismatched state is -32602 and writes nothing.
- accept writes exactly the selected candidates through ``engram_commit``'s path; decline (or an
  invalid answer) revokes the proposal; cancel, a 60 s timeout or a client error fall back to
  the approval-token text, prefixed with "nothing was saved".
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import is_version_at_least

from engram.errors import EngramError
from engram.memory.governed import KnowledgeBase, Proposal, commit, decline
from engram.server.envelope import ToolOutcome
from engram.server.options import current_options
from engram.server.registry import ToolCall

TIMEOUT_ENV = "ENGRAM_ELICITATION_TIMEOUT"
DEFAULT_TIMEOUT_S = 60.0
STATE_TTL_S = 600
INPUT_KEY = "engram_approval"
MODERN_VERSION = "2026-07-28"

_STATE_KEY = secrets.token_bytes(32)
# Open dialog states of this process: nonce -> the proposal they ask about.
_OPEN: dict[str, Proposal] = {}


@dataclass(frozen=True)
class Dialog:
    """The form shown to the human."""

    message: str
    schema: dict[str, Any]
    count: int
    scopes: tuple[str, ...]
    kind: str


def dialog_for(proposal: Proposal) -> Dialog:
    """The form for a proposal: candidate numbers with verdicts and titles, and a save scope."""
    if proposal.kind == "note":
        note = proposal.candidates[0]
        return Dialog(
            f"Engram asks to keep a working note for later sessions: [{note.type}] {note.title}",
            {
                "type": "object",
                "properties": {
                    "save": {"type": "boolean", "title": "Save the note", "default": True}
                },
                "required": ["save"],
            },
            1,
            (),
            "note",
        )
    properties: dict[str, Any] = {}
    lines = []
    for number, (candidate, verdict) in enumerate(
        zip(proposal.candidates, proposal.verdicts, strict=True), 1
    ):
        label = f"{number}. {verdict.line()} — {candidate.title}"
        lines.append(label)
        properties[f"c{number}"] = {"type": "boolean", "title": label, "default": True}
    widest = "global" if any(c.scope == "global" for c in proposal.candidates) else "project"
    scopes = ("global", "project") if widest == "global" else ("project",)
    properties["scope"] = {
        "type": "string",
        "title": "Save scope (may only be narrowed)",
        "enum": list(scopes),
        "default": widest,
    }
    message = "Engram proposes to save project memory. Tick what to save:\n" + "\n".join(lines)
    return Dialog(
        message, {"type": "object", "properties": properties}, len(lines), scopes, "memories"
    )


def parse_answer(dialog: Dialog, content: Any) -> tuple[list[int], str | None]:
    """The approved numbers and scope of an accepted form; ValueError when it is invalid."""
    if not isinstance(content, dict):
        raise ValueError("no form content")
    if dialog.kind == "note":
        if set(content) - {"save"} or not isinstance(content.get("save", True), bool):
            raise ValueError("unexpected fields")
        if content.get("save", True) is not True:
            raise ValueError("accepted without saving")
        return [1], None
    allowed = {f"c{n}" for n in range(1, dialog.count + 1)} | {"scope"}
    if set(content) - allowed:
        raise ValueError("unexpected fields")
    scope = content.get("scope")
    if scope is not None and scope not in dialog.scopes:
        raise ValueError("scope outside the offered choices")
    if scope == dialog.scopes[0]:
        # The default (widest offered) narrows nothing: each candidate keeps its own scope, so a
        # mixed project/global proposal accepted as shown never counts as widening.
        scope = None
    picks = [n for n in range(1, dialog.count + 1) if content.get(f"c{n}", True)]
    if any(not isinstance(content.get(f"c{n}", True), bool) for n in range(1, dialog.count + 1)):
        raise ValueError("candidate choices must be true or false")
    if not picks:
        raise ValueError("nothing selected")
    return picks, scope


def can_elicit(request: Any) -> bool:
    """Whether this call may ask in the host's dialog (form elicitation declared, allowed)."""
    if request is None or current_options().no_elicitation:
        return False
    session = getattr(request, "session", None)
    capabilities = getattr(session, "client_capabilities", None)
    elicitation = getattr(capabilities, "elicitation", None)
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def is_modern(request: Any) -> bool:
    """Whether the call is served in the 2026-07-28 era (input_required, no server requests)."""
    version = getattr(request, "protocol_version", None)
    return isinstance(version, str) and is_version_at_least(version, MODERN_VERSION)


def token_outcome(proposal: Proposal, reason: str = "") -> ToolOutcome:
    """The chat approval-token flow; ``reason`` prefixes "nothing was saved"."""
    prefix = f"nothing was saved ({reason}).\n" if reason else ""
    return ToolOutcome(prefix + proposal.text, proposal.to_dict() | {"saved": False})


async def ask(call: ToolCall, kb: KnowledgeBase, proposal: Proposal) -> Any:
    """Get the human's answer to a fresh proposal in whichever way the client supports."""
    request = call.request
    if not can_elicit(request):
        return token_outcome(proposal)
    dialog = dialog_for(proposal)
    if is_modern(request):
        return _input_required(call, kb, proposal, dialog)
    try:
        with anyio.fail_after(_timeout()):
            result = await request.session.elicit_form(
                dialog.message, dialog.schema, related_request_id=request.request_id
            )
    except TimeoutError:
        return token_outcome(proposal, "the approval dialog timed out")
    except Exception as exc:  # a client error keeps the chat flow working
        return token_outcome(proposal, f"the approval dialog failed: {type(exc).__name__}")
    return apply_answer(kb, proposal, dialog, result.action, result.content)


def apply_answer(
    kb: KnowledgeBase, proposal: Proposal, dialog: Dialog, action: str, content: Any
) -> ToolOutcome:
    """Act on the dialog's answer: write (accept), revoke (decline, invalid), or fall back."""
    token = proposal.approval_token
    if action == "accept":
        try:
            numbers, scope = parse_answer(dialog, content)
        except ValueError as exc:
            decline(kb.workspace, token, kb.now())
            raise EngramError(
                "governed.invalid_answer",
                f"the approval dialog answer was invalid ({exc}); the proposal was revoked and nothing was saved",
                "propose again",
            ) from exc
        outcome = commit(kb, token, numbers, scope)
        return ToolOutcome(
            "Approved in the dialog. " + outcome.text, outcome.to_dict() | {"saved": True}
        )
    if action == "decline":
        decline(kb.workspace, token, kb.now())
        return ToolOutcome(
            "Declined in the approval dialog: nothing was saved and the proposal is revoked.",
            {"saved": False, "declined": True},
        )
    return token_outcome(proposal, "the approval dialog was cancelled")


def _timeout() -> float:
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        return max(0.01, float(raw)) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        return DEFAULT_TIMEOUT_S


# --- 2026-07-28: input_required and the sealed requestState -----------------------------------


def _digest(arguments: dict[str, Any]) -> str:
    # The arguments are already parsed: a ``candidates`` list holds Candidate objects.
    canonical = json.dumps(
        arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_plain
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _plain(value: Any) -> Any:
    """A parsed argument value as JSON data, for the digest."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"cannot digest a {type(value).__name__} argument")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def seal_state(payload: dict[str, Any]) -> str:
    """``base64(payload).base64(hmac)`` with this process's key."""
    body = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return f"{_b64(body)}.{_b64(hmac.new(_STATE_KEY, body, hashlib.sha256).digest())}"


def _unseal(state: Any) -> dict[str, Any]:
    if not isinstance(state, str) or state.count(".") != 1:
        raise _bad_state("it is not an Engram state")
    body_b64, mac_b64 = state.split(".")
    try:
        body = base64.urlsafe_b64decode(body_b64 + "=" * (-len(body_b64) % 4))
        mac = base64.urlsafe_b64decode(mac_b64 + "=" * (-len(mac_b64) % 4))
    except ValueError as exc:
        raise _bad_state("it is not valid base64") from exc
    if not hmac.compare_digest(mac, hmac.new(_STATE_KEY, body, hashlib.sha256).digest()):
        raise _bad_state("its seal does not verify (forged, or from an earlier server process)")
    payload = json.loads(body)
    if not isinstance(payload, dict):
        raise _bad_state("its payload is not an object")
    return payload


def _bad_state(why: str) -> MCPError:
    return MCPError(
        code=INVALID_PARAMS,
        message=f"Invalid requestState: {why}; nothing was written. Propose again.",
        data={"reason": why},
    )


def _input_required(
    call: ToolCall, kb: KnowledgeBase, proposal: Proposal, dialog: Dialog
) -> types.InputRequiredResult:
    nonce = secrets.token_urlsafe(16)
    _OPEN[nonce] = proposal
    state = seal_state(
        {
            "v": 1,
            "n": nonce,
            "tool": call.name,
            "ws": str(kb.workspace.path),
            "args": _digest(call.arguments),
            "exp": int(time.time()) + STATE_TTL_S,
        }
    )
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=dialog.message, requested_schema=dialog.schema)
    )
    return types.InputRequiredResult(input_requests={INPUT_KEY: request}, request_state=state)


def is_retry(call: ToolCall) -> bool:
    """Whether this call is a 2026-07-28 retry carrying a requestState."""
    params = getattr(call.request, "params", None)
    return isinstance(params, dict) and params.get("requestState") is not None


def finish_retry(call: ToolCall, kb: KnowledgeBase) -> ToolOutcome:
    """Check a retry's requestState against this call, then act on the human's answer."""
    params = call.request.params
    payload = _unseal(params.get("requestState"))
    if not isinstance(payload.get("exp"), int) or payload["exp"] < time.time():
        raise _bad_state("it expired")
    if payload.get("tool") != call.name:
        raise _bad_state("it was issued for another tool")
    if payload.get("ws") != str(kb.workspace.path):
        raise _bad_state("it was issued for another workspace")
    if payload.get("args") != _digest(call.arguments):
        raise _bad_state("the arguments differ from the call it was issued for")
    proposal = _OPEN.pop(str(payload.get("n")), None)
    if proposal is None:
        raise _bad_state("it was already answered")
    responses = params.get("inputResponses") or {}
    raw = responses.get(INPUT_KEY) if isinstance(responses, dict) else None
    dialog = dialog_for(proposal)
    try:
        answer = types.ElicitResult.model_validate(raw)
    except Exception:
        return apply_answer(kb, proposal, dialog, "accept", None)  # revokes: invalid answer
    return apply_answer(kb, proposal, dialog, answer.action, answer.content)
