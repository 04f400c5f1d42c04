"""Which tools a ``--tools`` selection lists: a pure function over names and profiles.

Shared by the registry (live :class:`~engram.server.registry.ToolSpec` objects) and the quick
start (the precomputed catalogue), so both answer ``tools/list`` with the same tools.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

BUILT_IN_PROFILES = ("agent", "admin", "governed")


def choose(
    selection: Iterable[str], tools: Sequence[tuple[str, Iterable[str]]]
) -> tuple[list[int], list[str]]:
    """The positions in ``tools`` (``(name, profiles)`` pairs, registry order) a selection
    lists, and the names it did not know.

    A selection is profile names (``agent``, ``admin``, ``governed``, ``all``) and/or tool names.
    """
    profiles = [frozenset(p) for _, p in tools]
    names = {name for name, _ in tools}
    known_profiles = set(BUILT_IN_PROFILES).union(*profiles)
    wanted = list(selection)
    unknown = [w for w in wanted if w != "all" and w not in names and w not in known_profiles]
    if "all" in wanted:
        return list(range(len(tools))), unknown
    chosen = [
        i
        for i, (name, _) in enumerate(tools)
        if name in wanted or any(p in profiles[i] for p in wanted)
    ]
    return chosen, unknown


def unknown_tool_note(name: str) -> str:
    """The stderr line for a ``--tools`` name that is neither a tool nor a profile."""
    return f"engram-mcp: --tools: ignoring unknown tool {name!r}"
