"""``engram doctor``: read-only diagnostics of the store and of every linked host."""

from __future__ import annotations

from typing import Annotated

import typer

_MARKS = {"pass": "ok  ", "warn": "WARN", "fail": "FAIL", "skip": "skip"}


def register(app: typer.Typer) -> None:
    """Add ``engram doctor`` to the root app."""
    app.command("doctor")(doctor)


def doctor(
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    host: Annotated[
        list[str] | None, typer.Option("--host", help="Only check this host (repeatable).")
    ] = None,
    check: Annotated[
        str | None,
        typer.Option("--check", help="Only report this code, or a family (`host`, `store`)."),
    ] = None,
) -> None:
    """Diagnose the store and every host Engram is linked to; exit 1 on any failure."""
    import json

    from engram.doctor.runner import DoctorContext, run_doctor

    names: tuple[str, ...] = ()
    if host:  # aliases become canonical names; an unknown host is an error, not an empty report
        from engram.hosts.registry import find_host

        names = tuple(find_host(label).name for label in host)
    ctx = DoctorContext.from_environment(hosts=names)
    report = run_doctor(ctx, only=check)
    if json_output:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        for finding in report.findings:
            where = f" [{finding.file}]" if finding.file else ""
            typer.echo(f"{_MARKS[finding.severity.value]} {finding.code}: {finding.message}{where}")
            if finding.remedy and finding.severity.value in ("warn", "fail"):
                typer.echo(f"     -> {finding.remedy}")
        counts = report.counts()
        typer.echo(", ".join(f"{n} {name}" for name, n in counts.items()))
    if report.failed:
        raise typer.Exit(1)
