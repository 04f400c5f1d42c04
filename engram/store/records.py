"""Plain, frozen records for rows the store returns, and the ``@record`` decorator they use.

They are not pydantic models, and not dataclasses either: the hook path imports the store, and
``import dataclasses`` (it pulls in ``inspect``, ``ast``, ``dis``, ``tokenize``, ``copy``) costs
the hook more than its work. :func:`record` builds what ``@dataclass(frozen=True, slots=True)``
would (``__init__`` with defaults, ``__repr__``, ``__eq__``, ``__hash__``, ``__match_args__``,
read-only slots, pickling) from methods every record shares. Every record has ``to_dict()`` for JSON
surfaces; :func:`field_names` lists a record class's fields in order, :func:`replace` copies one
with some fields changed.
"""

from __future__ import annotations

import os
from operator import attrgetter

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    R = TypeVar("R")
    C = TypeVar("C", bound=type)
else:

    def dataclass_transform(**_: object) -> object:
        return lambda decorator: decorator


_FIELDS: dict[type, tuple[str, ...]] = {}
_DEFAULTS: dict[type, dict[str, object]] = {}
_VALUES: dict[type, Callable[[object], tuple[object, ...]]] = {}
_set = object.__setattr__


@dataclass_transform(frozen_default=True)
def record(cls: C) -> C:
    """Turn ``cls`` (annotated fields, optional defaults, methods) into a frozen slotted record.

    Equality and hashing compare the fields in order between records of the same class;
    assigning to a field raises ``AttributeError``. Defaults must be immutable values. The
    methods are shared by every record (no code is generated per class: compiling it would
    cost the hook path more than the class is worth).
    """
    names = tuple(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063 - no inspect here
    namespace = {
        key: value
        for key, value in cls.__dict__.items()
        if key not in names and key not in ("__dict__", "__weakref__")
    }
    namespace["__slots__"] = names
    namespace["__match_args__"] = names
    for name, method in _METHODS.items():
        if name not in namespace or name in _ALWAYS:
            namespace[name] = method
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    _FIELDS[made] = names
    _DEFAULTS[made] = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    getter = attrgetter(*names)
    _VALUES[made] = getter if len(names) > 1 else lambda item: (getter(item),)
    return made


def _init(self: object, *args: object, **kwargs: object) -> None:
    names = _FIELDS[type(self)]
    if kwargs or len(args) != len(names):
        args = _bind(type(self), args, kwargs)
    for name, value in zip(names, args, strict=False):  # same length: checked or bound
        _set(self, name, value)


def _bind(cls: type, args: tuple[object, ...], kwargs: dict[str, object]) -> tuple[object, ...]:
    """Positional and keyword arguments (and defaults) as one value per field, in order."""
    names, defaults, title = _FIELDS[cls], _DEFAULTS[cls], cls.__qualname__
    if len(args) > len(names):
        raise TypeError(f"{title}() takes {len(names)} arguments but {len(args)} were given")
    values = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{title}() got an unexpected keyword argument {key!r}")
        if key in values:
            raise TypeError(f"{title}() got multiple values for argument {key!r}")
        values[key] = value
    missing = [name for name in names if name not in values and name not in defaults]
    if missing:
        raise TypeError(f"{title}() missing required argument(s): {', '.join(missing)}")
    return tuple(values[name] if name in values else defaults[name] for name in names)


def _repr(self: object) -> str:
    pairs = zip(_FIELDS[type(self)], _VALUES[type(self)](self), strict=True)
    return f"{type(self).__qualname__}({', '.join(f'{n}={v!r}' for n, v in pairs)})"


def _eq(self: object, other: object) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    values = _VALUES[type(self)]
    return bool(values(self) == values(other))


def _hash(self: object) -> int:
    return hash(_VALUES[type(self)](self))


def _setattr(self: object, name: str, value: object) -> None:
    raise AttributeError(f"cannot assign to field {name!r}")


def _delattr(self: object, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r}")


def _reduce(self: object) -> tuple[type, tuple[object, ...]]:
    return (type(self), _VALUES[type(self)](self))


_METHODS: dict[str, object] = {
    "__init__": _init,
    "__repr__": _repr,
    "__eq__": _eq,
    "__hash__": _hash,
    "__setattr__": _setattr,
    "__delattr__": _delattr,
    "__reduce__": _reduce,
}
_ALWAYS = frozenset({"__init__", "__setattr__", "__delattr__", "__reduce__"})


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of a :func:`record` class, in order."""
    return _FIELDS[cls]


def replace(item: R, **changes: Any) -> R:
    """A copy of the :func:`record` ``item`` with ``changes`` applied (``dataclasses.replace``)."""
    values = {name: getattr(item, name) for name in _FIELDS[type(item)]}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(item).__name__} has no field {sorted(unknown)[0]!r}")
    return type(item)(**{**values, **changes})


def new_sync_id(prefix: str) -> str:
    """A random, globally unique id for a row (``obs-1f2e...``) that survives export/import."""
    return f"{prefix}-{os.urandom(8).hex()}"


class Record:
    """The base of :func:`record` classes that answer JSON surfaces (``to_dict``)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (every field is a plain value: a shallow dict)."""
        return {name: getattr(self, name) for name in _FIELDS[type(self)]}


@record
class Observation(Record):
    """One row of ``observations``."""

    id: int
    sync_id: str
    session_id: str | None
    type: str
    title: str
    content: str
    tool_name: str | None
    project: str
    scope: str
    topic_key: str | None
    normalized_hash: str
    revision_count: int
    duplicate_count: int
    last_seen_at: str | None
    pinned: bool
    review_after: str | None
    expires_at: str | None
    created_at: str
    updated_at: str
    deleted_at: str | None
    origin_by: str | None = None
    origin_via: str | None = None

    @property
    def origin(self) -> str | None:
        """``from bob via cloud`` for a memory a teammate's replica wrote, else None."""
        if not self.origin_by:
            return None
        return f"from {self.origin_by} via {self.origin_via or 'sync'}"


@record
class Session(Record):
    """One row of ``sessions``."""

    id: str
    project: str
    ownership_mode: str
    directory: str
    started_at: str
    ended_at: str | None
    summary: str | None


@record
class Prompt(Record):
    """One row of ``user_prompts``."""

    id: int
    sync_id: str
    session_id: str | None
    content: str
    project: str
    created_at: str


@record
class Relation(Record):
    """One row of ``memory_relations`` (source/target are observation sync_ids)."""

    id: int
    sync_id: str
    source_id: str
    target_id: str
    relation: str
    judgment_status: str
    reason: str | None
    evidence: str | None
    confidence: float | None
    marked_by_kind: str | None
    marked_by_actor: str | None
    marked_by_model: str | None
    session_id: str | None
    superseded_at: str | None
    superseded_by_id: int | None
    created_at: str
    updated_at: str


def from_row(cls: type[R], row: sqlite3.Row) -> R:
    """Build a record from a row holding (at least) the record's columns."""
    values = {name: row[name] for name in _FIELDS[cls]}
    if "pinned" in values:
        values["pinned"] = bool(values["pinned"])
    return cls(*values.values())  # every field, in order: no keyword binding


def from_rows(cls: type[R], cursor: sqlite3.Cursor) -> list[R]:
    """Build records from every row of ``cursor`` (columns matched by name once, then read by
    position — much cheaper than name lookups per row)."""
    names = _FIELDS[cls]
    columns = [d[0] for d in cursor.description]
    positions = [columns.index(name) for name in names]
    pinned = names.index("pinned") if "pinned" in names else -1
    records = []
    for row in cursor:
        values = [row[i] for i in positions]
        if pinned >= 0:
            values[pinned] = bool(values[pinned])
        records.append(cls(*values))
    return records
