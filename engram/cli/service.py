"""``engram service install|uninstall|status``: keep ``engram serve`` running."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from engram.cli.output import emit_json

service_app = typer.Typer(
    name="service",
    help="Run `engram serve` as a service (systemd user unit, launchd agent, Task Scheduler).",
    no_args_is_help=True,
)

PlatformOption = Annotated[
    str | None,
    typer.Option("--platform", help="linux, macos or windows (default: this machine)."),
]


def register(app: typer.Typer) -> None:
    """Add ``engram service`` to the root app."""
    app.add_typer(service_app)


def _home() -> Path:
    return Path(os.environ.get("HOME") or os.environ.get("USERPROFILE") or Path.home())


@service_app.command("install")
def install_command(
    platform: PlatformOption = None,
    no_start: Annotated[
        bool, typer.Option("--no-start", help="Only write the file; do not start the service.")
    ] = False,
) -> None:
    """Write the service file and start `engram serve` under the supervisor."""
    from engram.service.supervisor import install
    from engram.service.units import check_platform

    unit = install(check_platform(platform), _home(), os.environ, start=not no_start)
    typer.echo(f"wrote {unit.path}")
    typer.echo("not started (--no-start)" if no_start else "service started")


@service_app.command("uninstall")
def uninstall_command(
    platform: PlatformOption = None,
    no_stop: Annotated[
        bool, typer.Option("--no-stop", help="Only remove the file; do not ask the supervisor.")
    ] = False,
) -> None:
    """Stop the service and remove the file Engram installed."""
    from engram.service.supervisor import uninstall
    from engram.service.units import check_platform

    removed = uninstall(check_platform(platform), _home(), os.environ, stop=not no_stop)
    typer.echo(f"removed {removed}" if removed else "no service installed")


@service_app.command("status")
def status_command(
    platform: PlatformOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Say whether the service is installed and whether the daemon answers on its port."""
    from engram.service.supervisor import status
    from engram.service.units import check_platform

    report = status(check_platform(platform), _home(), os.environ)
    if as_json:
        emit_json(report.to_dict())
        return
    installed = "installed" if report.installed else "not installed"
    typer.echo(f"service: {installed} ({report.unit_path})")
    if report.running:
        health = report.health or {}
        typer.echo(f"daemon: running on {report.address} (engram {health.get('version')})")
    else:
        typer.echo(f"daemon: not running on {report.address}")
