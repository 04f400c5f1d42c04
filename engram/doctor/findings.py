"""What doctor reports: one :class:`Finding` per thing checked, gathered in a :class:`Report`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    """How a finding counts: only ``fail`` makes ``engram doctor`` exit non-zero."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class Finding:
    """One diagnosis.

    Args:
        code: stable dotted id (``host.gemini_trust``); ``--check`` filters on it.
        severity: pass, warn, fail or skip.
        message: one line saying what was found.
        file: the file it is about ("" when none).
        remedy: one line saying what to do ("" when nothing).
    """

    code: str
    severity: Severity
    message: str
    file: str = ""
    remedy: str = ""

    def to_dict(self) -> dict[str, str]:
        """``{code, severity, file, message, remedy}``."""
        return {
            "code": self.code,
            "severity": self.severity.value,
            "file": self.file,
            "message": self.message,
            "remedy": self.remedy,
        }


@dataclass
class Report:
    """Every finding of one doctor run, in check order."""

    findings: list[Finding] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """True when any finding is a ``fail``."""
        return any(f.severity is Severity.FAIL for f in self.findings)

    def counts(self) -> dict[str, int]:
        """How many findings per severity (every severity present, zero included)."""
        return {s.value: sum(f.severity is s for f in self.findings) for s in Severity}

    def to_dict(self) -> dict[str, Any]:
        """The ``engram doctor --json`` document: ``{ok, counts, findings}``."""
        return {
            "ok": not self.failed,
            "counts": self.counts(),
            "findings": [f.to_dict() for f in self.findings],
        }
