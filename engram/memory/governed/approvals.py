"""Open proposals and their approval tokens, kept in ``.engram/pending-approvals.json``.

A token is ``secrets.token_urlsafe(32)``; the file stores only its SHA-256. Each entry is
sealed with an HMAC keyed by a secret kept in Engram's data dir (``approvals.key``, 0600, never
in the workspace) over the token and the entry, so neither an edited entry nor one planted in a
cloned repository (with a token of the planter's choosing) passes the integrity check. Tokens are bound to the
workspace (the file lives in it and the entry names it), used once, and expire after 30
minutes. Every read-modify-write holds an exclusive lock on ``pending-approvals.json.lock``.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from engram.errors import EngramError
from engram.memory.governed.models import Candidate, Verdict
from engram.memory.governed.workspace import Workspace, write_atomic

TOKEN_TTL = timedelta(minutes=30)
FILE_VERSION = 1
DECLINED_MESSAGE = "approval was declined in the approval dialog"
KEY_FILE = "approvals.key"


def token_hash(token: str) -> str:
    """The SHA-256 of a token, as stored in the pending file."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def utc_now() -> datetime:
    """The current time (UTC, whole seconds)."""
    return datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True, slots=True)
class PendingProposal:
    """One open proposal as read back from the pending file (already integrity-checked)."""

    token_sha256: str
    kind: str
    candidates: tuple[Candidate, ...]
    verdicts: tuple[Verdict, ...]
    expires_at: str


def _sealed_part(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: entry[k] for k in ("kind", "workspace", "project", "created_at", "expires_at")} | {
        "candidates": entry["candidates"],
        "verdicts": entry["verdicts"],
    }


def _seal(token: str, entry: dict[str, Any]) -> str:
    canonical = json.dumps(_sealed_part(entry), sort_keys=True, separators=(",", ":"))
    message = token_hash(token) + "\n" + canonical
    return hmac.new(sealing_key(), message.encode("utf-8"), hashlib.sha256).hexdigest()


def sealing_key(data_dir: Path | None = None) -> bytes:
    """The secret that seals pending approvals: ``<data dir>/approvals.key``, made on first use.

    It lives with the store (0600, in the 0700 data dir), never in a workspace, so a pending
    file written by anyone without it cannot be committed.
    """
    from engram.store.datadir import resolve_data_dir

    folder = data_dir if data_dir is not None else resolve_data_dir()
    path = folder / KEY_FILE
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = _create_key(folder, path)
    except OSError as exc:
        raise _key_error(path, (exc.strerror or str(exc)).lower()) from None
    if len(key) < 32:
        raise _key_error(path, "it is shorter than 32 bytes")
    return key


def _create_key(folder: Path, path: Path) -> bytes:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_bytes()
    except OSError as exc:
        raise _key_error(path, (exc.strerror or str(exc)).lower()) from None
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
        handle.flush()
        os.fsync(handle.fileno())
    return key


def _key_error(path: Path, why: str) -> EngramError:
    return EngramError(
        "governed.key_unavailable",
        f"cannot use the approval sealing key {path}: {why}",
        "make Engram's data dir readable and writable by you (or delete a damaged key file; "
        "open proposals then need proposing again)",
        path=str(path),
    )


@contextmanager
def _locked(ws: Workspace) -> Iterator[dict[str, Any]]:
    """Hold the pending-file lock; yield its parsed content; write it back on clean exit."""
    ws.prepare()
    lock_path = ws.engram_dir / "pending-approvals.json.lock"
    with open(lock_path, "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        data = _read(ws)
        before = json.dumps(data, sort_keys=True)
        yield data
        if json.dumps(data, sort_keys=True) != before:
            write_atomic(ws.pending_file, json.dumps(data, indent=2, sort_keys=True) + "\n")


def _read(ws: Workspace) -> dict[str, Any]:
    if not ws.pending_file.exists():
        return {"version": FILE_VERSION, "proposals": []}
    try:
        data = json.loads(ws.pending_file.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("proposals"), list):
            raise ValueError("no proposals list")
    except ValueError as exc:
        raise EngramError(
            "governed.pending_corrupt",
            f"{ws.pending_file} is not a valid pending-approvals file ({exc})",
            "delete it and propose again; nothing pending can be committed from it",
        ) from exc
    return data


def _prune(data: dict[str, Any], now: datetime) -> None:
    """Drop used entries and entries expired for more than a day (declines stay visible)."""
    keep_after = (now - timedelta(days=1)).isoformat()
    data["proposals"] = [
        p
        for p in data["proposals"]
        if isinstance(p, dict)
        and p.get("status") != "used"
        and str(p.get("expires_at")) > keep_after
    ]


def open_proposal(
    ws: Workspace,
    kind: str,
    candidates: tuple[Candidate, ...],
    verdicts: tuple[Verdict, ...],
    now: datetime | None = None,
) -> tuple[str, str]:
    """Record a proposal; return ``(approval_token, expires_at)``. The token is shown once."""
    now = now or utc_now()
    token = secrets.token_urlsafe(32)
    entry: dict[str, Any] = {
        "token_sha256": token_hash(token),
        "kind": kind,
        "workspace": str(ws.path),
        "project": ws.project,
        "created_at": now.isoformat(),
        "expires_at": (now + TOKEN_TTL).isoformat(),
        "status": "pending",
        "candidates": [c.to_dict() for c in candidates],
        "verdicts": [v.to_dict() for v in verdicts],
    }
    entry["seal"] = _seal(token, entry)
    with _locked(ws) as data:
        _prune(data, now)
        data["proposals"].append(entry)
    return token, entry["expires_at"]


def _find(data: dict[str, Any], token: str) -> dict[str, Any]:
    digest = token_hash(token)
    for entry in data["proposals"]:
        if hmac.compare_digest(str(entry.get("token_sha256", "")), digest):
            return entry  # type: ignore[no-any-return]
    raise EngramError(
        "governed.unknown_token",
        "no pending proposal in this workspace matches that approval_token",
        "propose again with engram_save or engram_save_session (tokens are single use)",
    )


def _check(entry: dict[str, Any], token: str, ws: Workspace, now: datetime) -> PendingProposal:
    if entry.get("status") == "declined":
        raise EngramError(
            "governed.declined", DECLINED_MESSAGE, "propose again if that was a mistake"
        )
    if entry.get("status") != "pending":
        raise EngramError(
            "governed.token_used", "that approval_token was already used", "propose again"
        )
    if str(entry.get("expires_at", "")) <= now.isoformat():
        raise EngramError(
            "governed.token_expired",
            "that approval_token expired (tokens live 30 minutes)",
            "propose again and ask the human to approve",
        )
    try:
        intact = hmac.compare_digest(str(entry.get("seal", "")), _seal(token, entry))
    except (KeyError, TypeError):
        intact = False
    if not intact or entry.get("workspace") != str(ws.path):
        raise EngramError(
            "governed.integrity",
            "the pending proposal failed its integrity check (it was edited after it was proposed)",
            "propose again; nothing was written",
        )
    return PendingProposal(
        token_sha256=entry["token_sha256"],
        kind=entry["kind"],
        candidates=tuple(Candidate.from_dict(c) for c in entry["candidates"]),
        verdicts=tuple(Verdict.from_dict(v) for v in entry["verdicts"]),
        expires_at=entry["expires_at"],
    )


@contextmanager
def claim(ws: Workspace, token: str, now: datetime | None = None) -> Iterator[PendingProposal]:
    """Check a token and hold its proposal; it is marked used only if the block succeeds.

    The pending-file lock is held throughout, so two commits of one token cannot both write.
    """
    now = now or utc_now()
    with _locked(ws) as data:
        entry = _find(data, token)
        proposal = _check(entry, token, ws, now)
        yield proposal
        entry["status"] = "used"
        entry["used_at"] = now.isoformat()


def peek(ws: Workspace, token: str, now: datetime | None = None) -> PendingProposal:
    """Check a token without consuming it (used to build an approval dialog)."""
    now = now or utc_now()
    with _locked(ws) as data:
        return _check(_find(data, token), token, ws, now)


def decline(ws: Workspace, token: str, now: datetime | None = None) -> None:
    """Revoke a proposal: a later commit with its token fails with the declined message."""
    now = now or utc_now()
    with _locked(ws) as data:
        entry = _find(data, token)
        _check(entry, token, ws, now)
        entry["status"] = "declined"
        entry["declined_at"] = now.isoformat()


def pending_count(ws: Workspace, now: datetime | None = None) -> int:
    """Open (pending, unexpired) proposals in this workspace; 0 when there is no file."""
    if not ws.pending_file.exists():
        return 0
    stamp = (now or utc_now()).isoformat()
    return sum(
        1
        for p in _read(ws)["proposals"]
        if p.get("status") == "pending" and str(p.get("expires_at", "")) > stamp
    )
