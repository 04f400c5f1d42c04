"""The tool registry: every tool ``engram-mcp`` can list, as data.

A :class:`ToolSpec` says what a host sees (name, description, input schema, annotations,
``_meta``), which family it belongs to (``mem`` journal tools, ``engram`` governed tools), which
``--tools`` profiles list it, and the function that runs it. Tool families add themselves with
:func:`register` from their own module; the server imports the modules in :data:`TOOL_MODULES`
once, on first use, so ``engram-mcp --help``-style paths stay cheap.

Arguments are checked against the :class:`Param` list before a tool runs: a wrong type, a missing
required value, a value outside its enum or range, or arguments over 1 MB in total become a tool
error naming the problem — the tool never sees them, so nothing is written.
"""

from __future__ import annotations

import importlib
import json
import math
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from engram.errors import EngramError
from engram.server.output_schemas import output_schema
from engram.server.selection import choose

ParamType = Literal["string", "integer", "number", "boolean", "string_list", "object"]
Family = Literal["mem", "engram"]

MAX_ARGUMENT_BYTES = 1024 * 1024

# Modules that register tools when imported, in listing order. The governed family adds its
# module here.
TOOL_MODULES: list[str] = [
    "engram.server.mem_tools.journal",
    "engram.server.mem_tools.recall",
    "engram.server.mem_tools.sessions",
    "engram.server.mem_tools.projects",
    "engram.server.mem_tools.curation",
    "engram.server.governed",
]


@dataclass(frozen=True)
class Param:
    """One tool argument.

    Args:
        name: the argument name as the host sends it.
        type: ``string``, ``integer``, ``number``, ``boolean``, ``string_list`` or ``object``.
        description: one line for the agent.
        required: the call fails without it.
        enum: allowed string values.
        minimum / maximum: inclusive numeric bounds.
        max_length: longest string accepted, in characters.
        lenient: a bad value is dropped (the tool's default applies) with a diagnostic,
            instead of failing the call.
        clamp: a number outside ``minimum``/``maximum`` is brought to the nearest bound, with
            a diagnostic, instead of failing the call (the Go tool clamps its limits).
        missing: the remedy when a required argument is missing (default: call again with it).
    """

    name: str
    type: ParamType
    description: str
    required: bool = False
    enum: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    lenient: bool = False
    clamp: bool = False
    missing: str | None = None

    def schema(self) -> dict[str, Any]:
        """This argument as a JSON Schema property."""
        out: dict[str, Any]
        if self.type == "string_list":
            out = {"type": "array", "items": {"type": "string"}}
        else:
            out = {"type": self.type}
        out["description"] = self.description
        if self.enum:
            out["enum"] = list(self.enum)
        if self.minimum is not None:
            out["minimum"] = _number(self.minimum)
        if self.maximum is not None:
            out["maximum"] = _number(self.maximum)
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        return out

    def check(self, value: Any) -> Any:
        """Return ``value`` in its canonical Python form, or raise ``server.bad_argument``."""
        kind = self.type
        if kind == "string":
            if not isinstance(value, str):
                raise self._bad(f"must be a string, got {_json_type(value)}")
            if self.max_length is not None and len(value) > self.max_length:
                raise self._bad(f"is {len(value)} characters; the limit is {self.max_length}")
            if self.enum and value not in self.enum:
                raise self._bad(f"must be one of {', '.join(self.enum)}; got {value!r}")
            return value
        if kind == "boolean":
            if not isinstance(value, bool):
                raise self._bad(f"must be true or false, got {_json_type(value)}")
            return value
        if kind in ("integer", "number"):
            return self._check_number(value)
        if kind == "string_list":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise self._bad(f"must be a list of strings, got {_json_type(value)}")
            return list(value)
        if not isinstance(value, dict):
            raise self._bad(f"must be an object, got {_json_type(value)}")
        return value

    def _check_number(self, raw: Any) -> int | float:
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise self._bad(f"must be a number, got {_json_type(raw)}")
        value: int | float = raw
        if isinstance(value, float) and not math.isfinite(value):
            raise self._bad("must be a finite number")
        if self.type == "integer":
            if isinstance(value, float) and not value.is_integer():
                raise self._bad(f"must be a whole number, got {value}")
            value = int(value)
        if self.minimum is not None and value < self.minimum:
            raise self._bad(f"must be at least {_number(self.minimum)}, got {value}")
        if self.maximum is not None and value > self.maximum:
            raise self._bad(f"must be at most {_number(self.maximum)}, got {value}")
        return value

    def clamped(self, raw: Any) -> int | float | None:
        """``raw`` brought within the bounds, when this argument clamps and ``raw`` is a number
        of the right kind that is only out of range (None otherwise)."""
        if not self.clamp or isinstance(raw, bool) or not isinstance(raw, int | float):
            return None
        if not math.isfinite(raw) or (self.type == "integer" and not float(raw).is_integer()):
            return None
        value: int | float = int(raw) if self.type == "integer" else raw
        if self.minimum is not None and value < self.minimum:
            value = int(self.minimum) if self.type == "integer" else self.minimum
        if self.maximum is not None and value > self.maximum:
            value = int(self.maximum) if self.type == "integer" else self.maximum
        return value

    def _bad(self, problem: str) -> EngramError:
        return EngramError(
            "server.bad_argument",
            f"argument {self.name!r} {problem}",
            "fix the argument and call the tool again",
            argument=self.name,
        )


@dataclass
class ToolCall:
    """One validated call, handed to a tool's ``run`` function.

    Args:
        name: the tool name.
        arguments: the checked arguments (absent optional ones are left out).
        ignored: argument names the tool does not take (reported in diagnostics).
        request: the SDK request context (for elicitation and era checks), or None in tests.
        notes: problems with lenient arguments that were dropped.
    """

    name: str
    arguments: dict[str, Any]
    ignored: list[str] = field(default_factory=list)
    request: Any = None
    notes: list[str] = field(default_factory=list)

    def get(self, key: str, default: Any = None) -> Any:
        """An argument, or ``default`` when the caller left it out."""
        return self.arguments.get(key, default)


ToolRun = Callable[[ToolCall], Any | Awaitable[Any]]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the registry knows it.

    Args:
        name: unique tool name (``mem_save``).
        description: what the agent reads to decide when to call it.
        params: the arguments, in schema order.
        run: ``run(call) -> ToolOutcome`` (sync or async); raise EngramError for a tool error.
        family: ``mem`` (journal) or ``engram`` (governed).
        profiles: the ``--tools`` profiles that list it (``all`` lists every tool).
        read_only: annotations.readOnlyHint.
        destructive: annotations.destructiveHint (only meaningful when not read-only).
        idempotent: annotations.idempotentHint.
        title: a short human title.
        meta: the tool's ``_meta`` in tools/list.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    run: ToolRun
    family: Family
    profiles: frozenset[str]
    read_only: bool
    destructive: bool = False
    idempotent: bool = False
    title: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments."""
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.params},
        }
        required = [p.name for p in self.params if p.required]
        if required:
            schema["required"] = required
        return schema

    def annotations(self) -> dict[str, Any]:
        """MCP tool annotations: read-only / destructive / idempotent hints."""
        out: dict[str, Any] = {"readOnlyHint": self.read_only, "openWorldHint": False}
        if not self.read_only:
            out["destructiveHint"] = self.destructive
            out["idempotentHint"] = self.idempotent
        if self.title:
            out["title"] = self.title
        return out

    def listing(self, extra_meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """This tool as one ``tools/list`` entry."""
        entry: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema(),
            "outputSchema": output_schema(self.name),
            "annotations": self.annotations(),
        }
        if self.title:
            entry["title"] = self.title
        meta = {**self.meta, **(extra_meta or {})}
        if meta:
            entry["_meta"] = meta
        return entry

    def bind(self, arguments: Any, request: Any = None) -> ToolCall:
        """Check raw ``arguments`` against the params; raise ``server.bad_argument`` on a problem."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise EngramError(
                "server.bad_argument",
                f"arguments must be an object, got {_json_type(arguments)}",
                "send the tool arguments as a JSON object",
            )
        size = _utf8_size(arguments)
        if size > MAX_ARGUMENT_BYTES:
            raise EngramError(
                "server.arguments_too_large",
                f"arguments are {size} bytes; the limit is {MAX_ARGUMENT_BYTES} bytes (1 MB)",
                "send a shorter text or split it over several calls",
                size=size,
                limit=MAX_ARGUMENT_BYTES,
            )
        known = {p.name: p for p in self.params}
        checked: dict[str, Any] = {}
        dropped: list[str] = []
        for param in self.params:
            value = arguments.get(param.name)
            if value is None:
                if param.required:
                    raise EngramError(
                        "server.missing_argument",
                        f"argument {param.name!r} is required",
                        param.missing or f"call {self.name} again with {param.name}",
                        argument=param.name,
                    )
                continue
            try:
                checked[param.name] = param.check(value)
            except EngramError as exc:
                clamped = param.clamped(value)
                if clamped is not None:
                    checked[param.name] = clamped
                    dropped.append(f"{exc.message}; using {clamped}")
                    continue
                if not param.lenient:
                    raise
                dropped.append(f"{exc.message}; using the default")
        ignored = sorted(k for k in arguments if k not in known)
        return ToolCall(self.name, checked, ignored, request, dropped)


_TOOLS: dict[str, ToolSpec] = {}
# The module that registered each tool (the listing follows TOOL_MODULES order).
_ORIGIN: dict[str, str] = {}
_loaded = False


def register(spec: ToolSpec) -> ToolSpec:
    """Add a tool to the registry (a second tool with the same name is a programming error)."""
    if spec.name in _TOOLS and _TOOLS[spec.name] is not spec:
        raise ValueError(f"tool {spec.name!r} is registered twice")
    _TOOLS[spec.name] = spec
    # The registering module orders the listing (see all_tools).
    _ORIGIN.setdefault(spec.name, sys._getframe(1).f_globals.get("__name__", ""))
    return spec


def all_tools() -> list[ToolSpec]:
    """Every registered tool, importing the tool modules on first use, in listing order
    (:data:`TOOL_MODULES` order, then registration order), whichever module loaded first."""
    global _loaded
    if not _loaded:
        for module in TOOL_MODULES:
            importlib.import_module(module)
        rank = {module: i for i, module in enumerate(TOOL_MODULES)}
        listed = sorted(_TOOLS.items(), key=lambda item: rank.get(_ORIGIN.get(item[0], ""), -1))
        _TOOLS.clear()
        _TOOLS.update(listed)
        _loaded = True
    return list(_TOOLS.values())


def tool_from(module: str, name: str) -> ToolSpec | None:
    """The tool ``name`` after importing only ``module`` (one of :data:`TOOL_MODULES`), or
    None when that module does not register it. The quick path uses this so the first call
    of a journal tool never loads the other families (the governed one needs the SDK)."""
    if module not in TOOL_MODULES:
        return None
    importlib.import_module(module)
    spec = _TOOLS.get(name)
    return spec if spec is not None and _ORIGIN.get(name) == module else None


def module_of(name: str) -> str | None:
    """The :data:`TOOL_MODULES` entry that registers ``name`` (after :func:`all_tools`)."""
    return _ORIGIN.get(name)


def select_tools(selection: Iterable[str]) -> tuple[list[ToolSpec], list[str]]:
    """The tools a ``--tools`` selection lists, in registry order, and the names it did not know.

    A selection is profile names (``agent``, ``admin``, ``governed``, ``all``) and/or tool names.
    """
    tools = all_tools()
    chosen, unknown = choose(selection, [(t.name, t.profiles) for t in tools])
    return [tools[i] for i in chosen], unknown


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


# json.dumps(arguments, ensure_ascii=False, default=str), its encoder built once.
_SIZE_JSON = json.JSONEncoder(ensure_ascii=False, default=str)


def _utf8_size(arguments: dict[str, Any]) -> int:
    """The arguments' UTF-8 size; a lone surrogate (valid JSON, invalid text) is refused."""
    try:
        return len(_SIZE_JSON.encode(arguments).encode("utf-8"))
    except UnicodeEncodeError:
        # JSON's \\uD800 escapes decode to lone surrogates that no UTF-8 store can hold.
        bad = next(
            (k for k, v in arguments.items() if _has_surrogate(json.dumps(v, ensure_ascii=False))),
            "?",
        )
        raise EngramError(
            "server.bad_argument",
            f"argument {bad!r} contains a lone UTF-16 surrogate, which is not valid text",
            "send well-formed Unicode (pair every surrogate escape) and call the tool again",
            argument=bad,
        ) from None


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)
