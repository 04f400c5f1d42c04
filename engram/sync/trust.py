"""Which incoming mutations a transport may apply: the one place that decides it.

Whoever can write into a shared memory steers every teammate's agent, so a transport is
trusted for named projects only: a git repository for the project bound to its origin (or
one the user confirmed), a cloud pull for the enrolled project it pulls, a cloud push for the
project the request names. A mutation is admitted when

- its ``project`` is one of the gate's projects,
- an upsert's payload names that same project (the row lands where the mutation says), and
- the row it would overwrite or delete here, if any, also belongs to a gate project (checked
  by :class:`engram.sync.apply.Applier` against the store, with :meth:`TrustGate.owns`).

Everything else is *refused*: counted, never applied. The git importer, the cloud pull and the
cloud server all ask :meth:`TrustGate.refusal`. This module is pure (the cloud imports it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engram.sync.mutation import Mutation

TRANSPORTS = ("git", "cloud", "push")


@dataclass(frozen=True, slots=True)
class TrustGate:
    """The projects one transport may write (``transport`` names it in messages)."""

    projects: frozenset[str]
    transport: str

    @classmethod
    def for_projects(cls, projects: Iterable[str], transport: str) -> TrustGate:
        """A gate for ``projects`` (``transport``: one of :data:`TRANSPORTS`)."""
        if transport not in TRANSPORTS:
            raise ValueError(f"unknown transport {transport!r}")
        return cls(frozenset(projects), transport)

    def owns(self, project: str | None) -> bool:
        """Whether a row of ``project`` (None: no row) may be changed through this gate."""
        return project is None or project in self.projects

    def refusal(self, mutation: Mutation) -> str | None:
        """Why ``mutation`` may not be applied through this gate, or None when it may."""
        if mutation.project not in self.projects:
            return f"its project {mutation.project!r} is not {self._allowed()}"
        claimed = mutation.payload.get("project") if mutation.op == "upsert" else None
        if isinstance(claimed, str) and claimed != mutation.project:
            return f"its payload names project {claimed!r}, not its own {mutation.project!r}"
        return None

    def first_refused(self, mutations: Iterable[Mutation]) -> tuple[int, str] | None:
        """``(index, why)`` of the first mutation this gate refuses, or None."""
        for index, mutation in enumerate(mutations):
            why = self.refusal(mutation)
            if why is not None:
                return index, why
        return None

    def _allowed(self) -> str:
        if not self.projects:
            return f"trusted through {self.transport} (no project is)"
        names = ", ".join(repr(p) for p in sorted(self.projects))
        return f"the project this {self.transport} transport may write ({names})"
