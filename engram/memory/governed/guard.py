"""What may enter governed memory: redaction, instruction-like lines, candidate checks.

Secrets are replaced with ``[REDACTED]`` before anything is shown or stored. Working-tier notes
are written with a single yes/cancel, so note text that tries to instruct the agent ("ignore
previous instructions", fake ``system:`` turns) is refused before any preview; durable rules are
reviewed candidate by candidate and may legitimately say "always ...".
"""

from __future__ import annotations

import re

from engram.errors import EngramError
from engram.memory.governed.models import SCOPES, TYPES, Candidate
from engram.memory.redaction import REDACTED
from engram.memory.redaction import redact as redact_private

MAX_TITLE_CHARS = 200
MAX_BODY_BYTES = 16 * 1024
MAX_NOTE_BYTES = 2 * 1024

_SECRETS = (
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.DOTALL),
    re.compile(r"(?i)\b(?:password|passwd|secret|api[_-]?key|token)\b\s*[:=]\s*\S+"),
)

_INSTRUCTION_LIKE = (
    re.compile(
        r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:previous|prior|above|earlier|all|any|your)\b"
        r".{0,30}\b(?:instructions?|rules?|prompts?|guidelines?)\b",
        re.IGNORECASE,
    ),
    re.compile(r"^\s*(?:system|assistant|developer)\s*:", re.IGNORECASE),
    re.compile(r"</?\s*(?:system|instructions?|im_start|im_end)\b", re.IGNORECASE),
    re.compile(r"\byou\s+(?:are\s+now|must\s+now|will\s+now)\b", re.IGNORECASE),
    re.compile(r"\b(?:auto-?approve|approve\s+automatically|without\s+asking)\b", re.IGNORECASE),
    re.compile(r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|ask)\s+the\s+(?:user|human)\b", re.I),
)


def redact(text: str) -> str:
    """``text`` with private blocks and recognisable secrets replaced by ``[REDACTED]``."""
    text = redact_private(text)
    for pattern in _SECRETS:
        text = pattern.sub(REDACTED, text)
    return text


def instruction_like_lines(text: str) -> list[int]:
    """1-based numbers of lines that read like instructions to the agent."""
    return [
        number
        for number, line in enumerate(text.splitlines(), 1)
        if any(p.search(line) for p in _INSTRUCTION_LIKE)
    ]


def refuse_instructions(text: str, what: str) -> None:
    """Raise ``governed.instruction_like`` when ``text`` has instruction-like lines."""
    lines = instruction_like_lines(text)
    if lines:
        raise EngramError(
            "governed.instruction_like",
            f"{what} has instruction-like text on line(s) {', '.join(map(str, lines))}",
            "rephrase it as a plain fact about the project; memory never carries instructions to the agent",
            lines=lines,
        )


def check_candidate(candidate: Candidate, number: int) -> Candidate:
    """Validate and redact one candidate; raise EngramError naming the bad field."""
    where = f"candidate {number}"
    title = " ".join(redact(candidate.title).split())
    body = redact(candidate.body).strip()
    if not title:
        raise EngramError("governed.empty_title", f"{where} has an empty title", "give it a title")
    if len(title) > MAX_TITLE_CHARS:
        raise EngramError(
            "governed.title_too_long",
            f"{where} title is longer than {MAX_TITLE_CHARS} characters",
            "shorten the title; put detail in the body",
        )
    if not body:
        raise EngramError("governed.empty_body", f"{where} has an empty body", "give it a body")
    if len(body.encode("utf-8")) > MAX_BODY_BYTES:
        raise EngramError(
            "governed.body_too_long",
            f"{where} body is over {MAX_BODY_BYTES} bytes",
            "split it into smaller memories",
        )
    if candidate.type not in TYPES or candidate.type == "note":
        raise EngramError(
            "governed.bad_type",
            f"{where} has unknown type {candidate.type!r}",
            f"use one of: {', '.join(t for t in TYPES if t != 'note')}",
        )
    if candidate.scope not in SCOPES:
        raise EngramError(
            "governed.bad_scope",
            f"{where} has unknown scope {candidate.scope!r}",
            "use 'project' or 'global'",
        )
    variants = tuple((name, redact(text).strip()) for name, text in candidate.variants)
    return Candidate(
        title=title,
        body=body,
        type=candidate.type,
        scope=candidate.scope,
        key=redact(candidate.key).strip(),
        supersedes=redact(candidate.supersedes).strip(),
        roles=tuple(sorted({r.strip().lower() for r in candidate.roles if r.strip()})),
        variants=tuple(sorted((n.strip().lower(), v) for n, v in variants if n.strip() and v)),
        objective=candidate.objective.strip(),
    )
