"""Checks driven by the link ledger: is everything Engram wrote still there, as written?

For the current workspace's links and every global link:

- ``host.registration`` - each entry is present and parses (fail when gone or unparsable).
- ``host.drift`` - an entry someone edited since Engram wrote it (warn: link, unlink and
  upgrade leave it alone).
- ``host.version_pin`` - the link was made by another Engram release (warn: run upgrade).
- ``host.command`` - the registered server command resolves from a minimal PATH.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

from engram import __version__
from engram.doctor.findings import Finding, Severity
from engram.doctor.launcher_path import minimal_path, shell_path_only
from engram.doctor.runner import Check, DoctorContext
from engram.edit.atomic import read_text
from engram.edit.ledger import VALUE_KINDS, Entry, Ledger, Link
from engram.edit.steps import current_fingerprint, entry_value
from engram.errors import EngramError
from engram.store.datadir import resolve_data_dir


def _links(ctx: DoctorContext) -> list[Link]:
    ledger = Ledger.at(resolve_data_dir(ctx.env))
    here = str(ctx.workspace)
    return [
        link
        for link in ledger.links
        if ctx.wants_host(link.host) and (link.scope == "global" or link.root == here)
    ]


def check_entries(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.registration`` and ``host.drift`` for every ledger entry in scope."""
    for link in _links(ctx):
        label = f"{link.host} ({link.scope})"
        for entry in link.entries:
            what = entry.block_id or ".".join(entry.path) or Path(entry.file).name
            try:
                text = read_text(Path(entry.file))
                now = None if text is None else current_fingerprint(entry, text)
            except EngramError as exc:
                yield Finding(
                    "host.registration",
                    Severity.FAIL,
                    f"{label}: {exc.message}",
                    entry.file,
                    "fix the file by hand (Engram never rewrites a file it cannot parse)",
                )
                continue
            if now is None:
                yield Finding(
                    "host.registration",
                    Severity.FAIL,
                    f"{label}: Engram's {what} is gone from {entry.file}",
                    entry.file,
                    f"run `engram link {link.host}{' --global' if link.scope == 'global' else ''}`",
                )
            elif now != entry.sha256:
                yield Finding(
                    "host.drift",
                    Severity.WARN,
                    f"{label}: {what} was edited since Engram wrote it; Engram leaves it alone",
                    entry.file,
                    f"keep your edit, or restore Engram's with `engram link {link.host} --force`",
                )
                yield from _edited_server(ctx, link, entry, text or "")
            else:
                yield Finding(
                    "host.registration", Severity.PASS, f"{label}: {what} is in place", entry.file
                )


def _edited_server(ctx: DoctorContext, link: Link, entry: Entry, text: str) -> Iterator[Finding]:
    """A hand-edited ``engram`` server entry: still well-formed, and does its command exist?"""
    if entry.kind not in VALUE_KINDS or entry.path[-1:] != ["engram"]:
        return
    _, value = entry_value(entry, text)
    label = f"{link.host} ({link.scope})"
    # Goose names the program `cmd`; every other host `command`.
    command = value.get("command", value.get("cmd")) if isinstance(value, dict) else None
    program = command[0] if isinstance(command, list) and command else command
    if isinstance(program, str) and program:
        if program != (link.command or [""])[0]:
            minimal = minimal_path(ctx.env)
            yield _command_finding(label, program, minimal, ctx)
        return
    if isinstance(value, dict) and any(key in value for key in ("url", "httpUrl", "serverUrl")):
        return  # a remote server the user pointed it at: nothing to resolve
    yield Finding(
        "host.registration",
        Severity.FAIL,
        f"{label}: {'.'.join(entry.path)} has no command, so the host cannot start Engram",
        entry.file,
        f"restore it with `engram link {link.host}{' --global' if link.scope == 'global' else ''}"
        " --force`",
    )


def check_pins(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.version_pin`` and ``host.command`` for every link in scope."""
    minimal = minimal_path(ctx.env)
    for link in _links(ctx):
        label = f"{link.host} ({link.scope})"
        if link.version and link.version != __version__:
            yield Finding(
                "host.version_pin",
                Severity.WARN,
                f"{label} was linked by Engram {link.version}; {__version__} is installed",
                link.root,
                "run `engram upgrade` to re-pin every registration",
            )
        elif link.version:
            yield Finding("host.version_pin", Severity.PASS, f"{label} pinned to {__version__}")
        if link.command:
            yield _command_finding(label, link.command[0], minimal, ctx)


def _command_finding(label: str, program: str, minimal: str, ctx: DoctorContext) -> Finding:
    if Path(program).is_absolute() or shutil.which(program, path=minimal):
        found = shutil.which(program, path=minimal) if not Path(program).is_absolute() else program
        if found and Path(found).exists():
            return Finding("host.command", Severity.PASS, f"{label}: `{program}` resolves", found)
        return Finding(
            "host.command",
            Severity.FAIL,
            f"{label}: the registered command {program} does not exist",
            program,
            "reinstall Engram, then run `engram upgrade` to re-pin the command",
        )
    shell_only = shell_path_only(program, ctx.env, label)
    if shell_only is not None:
        return shell_only
    return Finding(
        "host.command",
        Severity.FAIL,
        f"{label}: the registered command `{program}` is not found",
        "",
        "install Engram (`pipx install engram-keeper`), then run `engram upgrade`",
    )


def check_host_registrations(ctx: DoctorContext) -> Iterator[Finding]:
    """Each linked host's own check of its registration (``host.<name>.registered``...)."""
    from engram.edit.plan import Scope
    from engram.hosts.command import resolve_server_command
    from engram.hosts.context import HostContext
    from engram.hosts.registry import all_hosts

    hosts = all_hosts()
    server = resolve_server_command(ctx.env)
    seen: set[tuple[str, str]] = set()
    for link in _links(ctx):
        host = hosts.get(link.host)
        if host is None or (link.host, link.scope) in seen:
            continue
        seen.add((link.host, link.scope))
        hctx = HostContext(
            scope=Scope(link.scope),
            home=ctx.home,
            workspace=ctx.workspace,
            data_dir=resolve_data_dir(ctx.env),
            server=server,
            env=ctx.env,
        )
        yield from host.doctor(hctx)


CHECKS: list[Check] = [check_entries, check_pins, check_host_registrations]
