"""Operations on one observation by id: get, update (fields or find/replace), delete, pin.

Every change asserts the caller's ``expected_project`` owns the observation, in the same
transaction as the change; a mismatch changes nothing (``memory.project_mismatch``).
Pin state and review dates are local-only and never change ``updated_at``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from engram.errors import EngramError
from engram.memory import checks
from engram.memory.citations.recording import record_citations
from engram.memory.citations.status import CodeStatus
from engram.memory.clock import stamp, utc_now
from engram.memory.redaction import clean, content_limit, redact
from engram.memory.review import state_of
from engram.memory.save import normalized_hash
from engram.store import observations
from engram.store.db import Store
from engram.store.records import Observation


def get_observation(store: Store, obs_id: int, *, project: str | None = None) -> Observation:
    """The full, untruncated observation ``obs_id``.

    With ``project``, another project's observation is not found (an agent in one project
    must not read another's memories by guessing ids).

    Raises:
        EngramError: ``memory.not_found`` (also for soft-deleted ones).
    """
    with store.read() as conn:
        observation = observations.get(conn, obs_id)
    if observation is None or not checks.owned_by(observation.project, project):
        raise checks.not_found(obs_id)
    return observation


@dataclass(frozen=True, slots=True)
class Fetched:
    """An observation an agent fetched, its lifecycle state and its code status."""

    observation: Observation
    state: str
    code: CodeStatus | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the observation's fields plus ``state`` and ``code``."""
        from engram.memory.search import code_dict

        return {**self.observation.to_dict(), "state": self.state, "code": code_dict(self.code)}


def fetch_for_agent(
    store: Store, obs_id: int, *, project: str | None = None, now: datetime | None = None
) -> Fetched:
    """:func:`get_observation` for an agent that will use it: the fetch renews its review
    cycle (:func:`engram.memory.review.renew_by_use`) and its citations are checked.

    Raises:
        EngramError: ``memory.not_found``.
    """
    from engram.memory.citations.checking import code_status
    from engram.memory.review import renew_by_use, state_with_code

    found = get_observation(store, obs_id, project=project)
    renew_by_use(store, found, now)
    found = get_observation(store, obs_id, project=project)
    code = code_status(store, [found.id]).get(found.id)
    return Fetched(found, state_with_code(found, code, now), code)


@dataclass(frozen=True, slots=True)
class UpdateResult:
    """What an update did: the row after it, whether anything changed, and limit metadata."""

    observation: Observation
    changed: bool
    state: str
    replacements: int = 0
    truncated: bool = False
    original_bytes: int = 0
    limit_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``id`` at top level)."""
        data = {**asdict(self), "observation": self.observation.to_dict()}  # a record
        return {**data, "id": self.observation.id}


def update_observation(
    store: Store,
    obs_id: int,
    *,
    expected_project: str | None,
    title: str | None = None,
    content: str | None = None,
    type: str | None = None,
    scope: str | None = None,
    topic_key: str | None = None,
    find: str | None = None,
    replace: str | None = None,
    project: str | None = None,
    limit_bytes: int | None = None,
    now: datetime | None = None,
) -> UpdateResult:
    """Change some fields of ``obs_id``.

    ``find``/``replace`` come together, never with ``content``: a literal, case-sensitive,
    global replacement inside the current content. An empty ``find`` or no match leaves the
    content as it is. Both inputs and the result must fit the content limit (an error, not a
    truncation). New content and titles are redacted like a save.

    Raises:
        EngramError: ``memory.not_found``, ``memory.expected_project_required``,
            ``memory.project_mismatch``, ``memory.empty_title``, ``memory.empty_content``,
            ``memory.bad_scope``, ``memory.find_replace_pair``, ``memory.find_with_content``,
            ``memory.content_too_large``, ``memory.project_immutable`` (``project`` names
            another project: an observation never moves by update).
    """
    now = now or utc_now()
    limit = limit_bytes if limit_bytes and limit_bytes > 0 else content_limit()
    _check_find_replace(find, replace, content, limit)
    changes = _field_changes(title, type, scope, topic_key, limit)
    body = clean(checks.require_content(content), limit) if content is not None else None
    replacements = 0
    with store.write() as conn:
        current = observations.get(conn, obs_id)
        if current is None:
            raise checks.not_found(obs_id)
        checks.check_owner(current, expected_project)
        checks.check_same_project(current, project)
        if body is not None:
            changes["content"] = body.text
        elif find and replace is not None:
            new_content, replacements = _replace(current.content, find, replace, limit)
            if new_content != current.content:
                changes["content"] = new_content
        if "content" in changes:
            changes["normalized_hash"] = normalized_hash(str(changes["content"]))
        changes = {k: v for k, v in changes.items() if getattr(current, k) != v}
        observations.update_fields(conn, obs_id, changes, stamp(now))
        after = observations.get(conn, obs_id)
        if after is not None and ("title" in changes or "content" in changes):
            record_citations(conn, after, None, now)  # what it cites now, as of now
    assert after is not None
    return UpdateResult(
        observation=after,
        changed=bool(changes),
        state=state_of(after, now),
        replacements=replacements,
        truncated=body.truncated if body else False,
        original_bytes=body.original_bytes if body else 0,
        limit_bytes=limit,
    )


def _field_changes(
    title: str | None, type_: str | None, scope: str | None, topic_key: str | None, limit: int
) -> dict[str, object]:
    """The checked new values of the plain fields a caller passed."""
    changes: dict[str, object] = {}
    if title is not None:
        changes["title"] = clean(checks.require_title(title), limit).text
    if type_ is not None:
        changes["type"] = checks.check_type(type_)
    if scope is not None:
        changes["scope"] = checks.check_scope(scope)
    if topic_key is not None:
        changes["topic_key"] = redact(topic_key).strip() or None
    return changes


def _check_find_replace(
    find: str | None, replace: str | None, content: str | None, limit: int
) -> None:
    if (find is None) != (replace is None):
        raise EngramError(
            "memory.find_replace_pair",
            "find and replace must be given together",
            "pass both find and replace (replace may be empty)",
        )
    if find is not None and content is not None:
        raise EngramError(
            "memory.find_with_content",
            "find/replace cannot be combined with content",
            "either replace the whole content, or use find/replace",
        )
    for name, value in (("find", find), ("replace", replace)):
        if value is not None and len(value.encode("utf-8")) > limit:
            raise _too_large(name, limit)


def _replace(content: str, find: str, replace: str, limit: int) -> tuple[str, int]:
    count = content.count(find)
    if count == 0:
        return content, 0
    result = redact(content.replace(find, replace))
    if len(result.encode("utf-8")) > limit:
        raise _too_large("the replaced content", limit)
    # A change of whitespace alone is no change (the seed's "normalized-identical output").
    if " ".join(result.split()) == " ".join(content.split()):
        return content, 0
    return result, count


def _too_large(what: str, limit: int) -> EngramError:
    return EngramError(
        "memory.content_too_large",
        f"{what} is larger than the content limit of {limit} bytes; nothing was changed",
        "use a shorter text, or raise ENGRAM_MAX_CONTENT_BYTES",
        limit_bytes=limit,
    )


@dataclass(frozen=True, slots=True)
class DeleteResult:
    """A deleted observation: its id, sync_id, project and whether it is gone for good."""

    id: int
    sync_id: str
    project: str
    hard: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def delete_observation(
    store: Store,
    obs_id: int,
    *,
    expected_project: str | None,
    hard: bool = False,
    now: datetime | None = None,
) -> DeleteResult:
    """Soft-delete ``obs_id`` (search and context stop showing it), or remove it for good.

    A hard delete also removes an already soft-deleted observation.

    Raises:
        EngramError: ``memory.not_found``, ``memory.expected_project_required``,
            ``memory.project_mismatch``.
    """
    with store.write() as conn:
        current = observations.get(conn, obs_id, include_deleted=hard)
        if current is None:
            raise checks.not_found(obs_id)
        checks.check_owner(current, expected_project)
        if hard:
            observations.hard_delete(conn, obs_id)
        else:
            observations.soft_delete(conn, obs_id, stamp(now or utc_now()))
    return DeleteResult(current.id, current.sync_id, current.project, hard)


@dataclass(frozen=True, slots=True)
class PinResult:
    """Pin state after a pin or unpin."""

    id: int
    sync_id: str
    pinned: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def set_pinned(store: Store, obs_id: int, pinned: bool, *, project: str | None = None) -> PinResult:
    """Pin (or unpin) ``obs_id``; idempotent. Pinned observations lead the context.

    With ``project``, another project's observation is not found.

    Raises:
        EngramError: ``memory.not_found``.
    """
    with store.write() as conn:
        current = observations.get(conn, obs_id)
        if current is None or not checks.owned_by(current.project, project):
            raise checks.not_found(obs_id)
        observations.set_pinned(conn, obs_id, pinned)
    return PinResult(current.id, current.sync_id, pinned)


def list_recent(
    store: Store, *, project: str | None, scope: str | None = None, limit: int = 20
) -> list[Observation]:
    """Newest live observations first (every project when ``project`` is None).

    Raises:
        EngramError: ``memory.bad_scope``.
    """
    scope = checks.check_scope(scope) if scope is not None else None
    with store.read() as conn:
        return observations.recent(conn, project=project, scope=scope, limit=limit)
