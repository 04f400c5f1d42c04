"""Run doctor's checks and gather a :class:`~engram.doctor.findings.Report`.

A check is a callable ``check(ctx) -> Iterable[Finding]``. Built-in checks come from
:func:`builtin_checks`; plugins add theirs through the ``register_doctor_checks(register)``
hook (:func:`plugin_checks`). A check that raises becomes one ``fail`` finding (``doctor.check_crashed``): doctor itself
never crashes half-way through a report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engram.doctor.findings import Finding, Report, Severity
from engram.errors import EngramError


@dataclass(frozen=True)
class DoctorContext:
    """Everything a check may look at; nothing is read from the real home behind its back.

    Args:
        home: the user's home folder.
        workspace: the folder doctor was run in (workspace-scope files live below it).
        env: the environment (``PATH``, ``ENGRAM_DATA_DIR``, ``CODEX_HOME``...).
        hosts: only check these hosts (empty: every host).
        mountinfo: the mount table the network-filesystem check reads (tests plant one).
    """

    home: Path
    workspace: Path
    env: Mapping[str, str] = field(default_factory=dict)
    hosts: tuple[str, ...] = ()
    mountinfo: Path = Path("/proc/self/mountinfo")

    @classmethod
    def from_environment(
        cls, workspace: Path | None = None, hosts: tuple[str, ...] = ()
    ) -> DoctorContext:
        """A context for this process: ``$HOME``, the current folder, ``os.environ``."""
        env = dict(os.environ)
        home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
        return cls(home=home, workspace=(workspace or Path.cwd()).resolve(), env=env, hosts=hosts)

    def wants_host(self, host: str) -> bool:
        """Whether ``--host`` (if given) selects ``host``."""
        return not self.hosts or host in self.hosts


Check = Callable[[DoctorContext], Iterable[Finding]]


def builtin_checks() -> list[Check]:
    """Engram's own checks, in report order: the store first, then every host."""
    from engram.doctor import (
        approval_checks,
        host_checks,
        link_checks,
        project_checks,
        semantic_checks,
        store_checks,
    )

    return [
        *store_checks.CHECKS,
        *semantic_checks.CHECKS,
        *project_checks.CHECKS,
        *link_checks.CHECKS,
        *host_checks.CHECKS,
        *approval_checks.CHECKS,
    ]


def plugin_checks(env: Mapping[str, str] | None = None) -> list[Check]:
    """Checks plugins add through the ``register_doctor_checks(register)`` hook."""
    from engram.hosts.registry import plugin_manager

    checks: list[Check] = []
    plugin_manager(env).hook.register_doctor_checks(register=checks.append)
    return checks


def _run_one(check: Check, ctx: DoctorContext) -> list[Finding]:
    try:
        return list(check(ctx))
    except EngramError as exc:
        return [Finding("doctor.check_crashed", Severity.FAIL, exc.one_line(), remedy=exc.remedy)]
    except Exception as exc:  # a broken check must not hide every other finding
        name = getattr(check, "__name__", repr(check))
        return [
            Finding(
                "doctor.check_crashed",
                Severity.FAIL,
                f"check {name} crashed: {type(exc).__name__}: {exc}",
                remedy="report this as an Engram bug, with `engram doctor --json` output",
            )
        ]


def matches(code: str, wanted: str) -> bool:
    """``--check`` selects a code exactly or a family by prefix (``host`` -> ``host.*``)."""
    return code == wanted or code.startswith(wanted.rstrip(".") + ".")


def run_doctor(
    ctx: DoctorContext, checks: Iterable[Check] | None = None, only: str | None = None
) -> Report:
    """Run ``checks`` (default: built-in + plugin checks), keeping findings ``only`` selects."""
    selected = list(checks) if checks is not None else [*builtin_checks(), *plugin_checks(ctx.env)]
    report = Report()
    seen: set[tuple[str, str, str]] = set()
    for check in selected:
        for finding in _run_one(check, ctx):
            # One verdict per code and file: two checks may judge the same thing (the Gemini
            # host and doctor's trust check), and a file with four hooks needs one "in place".
            key = (finding.code, finding.file, finding.severity.value)
            if finding.file and key in seen:
                continue
            seen.add(key)
            if only is None or matches(finding.code, only):
                report.findings.append(finding)
    return report
