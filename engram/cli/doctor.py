"""``engram doctor``: read-only diagnostics of the store and of every linked host."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from engram.cli.output import plural

if TYPE_CHECKING:
    from engram.doctor.findings import Report

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
    project: Annotated[
        str | None,
        typer.Option("--project", help="Also report this project's memory (counts, variants)."),
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
    if project is not None:
        from engram.cli.doctor_project import project_findings

        report.findings.extend(project_findings(project, only=check))
    if json_output:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        print_report(report)
    if report.failed:
        raise typer.Exit(1)


def print_report(report: Report) -> None:
    """Findings grouped (one line for the same finding in many files), coloured on a terminal,
    then the counts and a one-line verdict."""
    import os

    color = False if os.environ.get("NO_COLOR") else None  # None: colour only on a terminal
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for finding in report.findings:
        key = (finding.severity.value, finding.code, finding.message, finding.remedy or "")
        groups.setdefault(key, []).append(finding.file or "")
    for (severity, code, message, remedy), files in groups.items():
        mark = typer.style(_MARKS[severity], fg=_COLOURS[severity], bold=severity == "fail")
        places = [f for f in files if f]
        where = f" [{places[0]}]" if len(places) == 1 else ""
        if len(places) > 1:
            where = f" [{len(places)} places]"
        typer.echo(f"{mark} {code}: {message}{where}", color=color)
        if len(places) > 1:
            for place in places:
                typer.echo(f"       {place}", color=color)
        if remedy and severity in ("warn", "fail"):
            typer.echo(f"     -> {remedy}", color=color)
    # Counted as printed: a finding repeated in N places is one line, so one count.
    counts = {name: 0 for name in report.counts()}
    for severity, *_ in groups:
        counts[severity] = counts.get(severity, 0) + 1
    typer.echo(", ".join(f"{n} {name}" for name, n in counts.items()), color=color)
    typer.echo(_verdict(counts), color=color)


_COLOURS = {"pass": "green", "warn": "yellow", "fail": "red", "skip": "bright_black"}


def _verdict(counts: dict[str, int]) -> str:
    fails, warns = counts.get("fail", 0), counts.get("warn", 0)
    if fails:
        text = f"doctor: {plural(fails, 'problem')} to fix (the FAIL lines above say how)"
        return typer.style(text, fg="red", bold=True)
    if warns:
        return typer.style(f"doctor: healthy, {plural(warns, 'warning')} worth a look", fg="yellow")
    return typer.style("doctor: healthy", fg="green")
