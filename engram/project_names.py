"""Project names: the one normalization the local store and the cloud share.

A project name is normalized (trimmed, lower case, runs of ``-`` or ``_`` collapsed) and
checked (not empty, not a path, no control characters, at most :data:`MAX_NAME_LENGTH`
characters). Two names are *variants* of one project when they share a :func:`project_key`
(case and every separator ignored: ``proj_a``, ``PROJ-A``, ``proj a`` and ``proj-a``). The
local similar-project warning, the cloud's grants and the cloud's refusal to create a variant
of an existing project all compare keys made here. Pure: no imports (the hook path and the
cloud import it).
"""

from __future__ import annotations

MAX_NAME_LENGTH = 128


def normalized_name(raw: str) -> str:
    """``raw`` trimmed, lower-cased, with runs of ``-`` and of ``_`` collapsed to one."""
    name = raw.strip().lower()
    for run, single in (("--", "-"), ("__", "_")):
        while run in name:
            name = name.replace(run, single)
    return name


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a project name, or None when it can."""
    if not name:
        return "it is empty"
    if "/" in name or "\\" in name:
        return "it contains a path separator (a project is a name, not a path)"
    if name in {".", ".."}:
        return "it is a relative path"
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in name):
        return "it contains control characters"
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in name):  # undecodable bytes from argv or env
        return "it is not valid UTF-8 text (check the terminal's locale)"
    if len(name) > MAX_NAME_LENGTH:
        return f"it is longer than {MAX_NAME_LENGTH} characters"
    return None


def project_key(name: str) -> str:
    """What variants of one project share: lower case, letters and digits only."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def variants_of(name: str, existing: list[str] | set[str] | tuple[str, ...]) -> list[str]:
    """The existing names other than ``name`` itself that share its key."""
    key = project_key(name)
    return sorted(other for other in existing if other != name and project_key(other) == key)


def similar_project_message(name: str, lookalikes: list[str]) -> str:
    """The similar-project sentence every surface prints."""
    return f"project {name!r} is new; similar existing projects: {', '.join(lookalikes)}"
