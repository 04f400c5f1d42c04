"""``engram doctor --project P``: the project's own memory, as doctor findings.

``store.project`` says how much the project holds; ``store.project_variants`` warns when other
projects look like spelling variants of it (``engram projects merge`` / ``consolidate``).
An unknown project is the usual one-line ``project.unknown`` error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram.doctor.findings import Finding


def project_findings(project: str, *, only: str | None = None) -> list[Finding]:
    """Findings about ``project`` (filtered like ``--check``)."""
    from engram.cli.selection import open_store
    from engram.doctor.findings import Finding, Severity
    from engram.errors import EngramError
    from engram.memory.project import normalize_project_name, require_known_project
    from engram.memory.projects import list_projects, variant_key

    name = normalize_project_name(project).name
    with open_store(reading=True) as store:
        try:
            require_known_project(store, name)
        except EngramError as exc:  # its remedy names --all, which doctor does not have
            raise EngramError(exc.code, exc.message, "see `engram projects list`") from None
        counts = {p.name: p for p in list_projects(store)}
    own = counts[name]
    found = [
        Finding(
            "store.project",
            Severity.PASS,
            f"project {name}: {own.observation_count} observations, {own.session_count} sessions, "
            f"{own.prompt_count} prompts",
        )
    ]
    variants = sorted(
        other for other in counts if other != name and variant_key(other) == variant_key(name)
    )
    if variants:
        found.append(
            Finding(
                "store.project_variants",
                Severity.WARN,
                f"project {name} has spelling variants: {', '.join(variants)}",
                remedy=f"engram projects merge --from {variants[0]} --to {name}",
            )
        )
    return [f for f in found if not only or f.code == only or f.code.startswith(only + ".")]
