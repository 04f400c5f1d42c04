"""Checks of what hosts will make of Engram's entries: trust, approval, syntax, commands.

Each check reads host files (never writes) at the places the hosts document, for the user's
home and the current workspace, and says nothing about a host Engram is not registered in.
Codes:

- ``host.strict_json`` - a strict-JSON host file holding comments or trailing commas (fail).
- ``host.gemini_trust`` - a Gemini ``mcpServers.engram`` with ``trust: true`` (warn).
- ``host.gemini_folder_untrusted`` - workspace Gemini settings in an untrusted folder (warn).
- ``host.claude_pending_approval`` - ``.mcp.json`` server not approved in Claude Code (warn).
- ``host.codex_hook_untrusted`` - a Codex hook of Engram's not yet trusted in ``/hooks`` (warn).
- ``host.hook_command`` - a hook whose command cannot be found (fail) or only on the shell PATH
  (warn: hosts started from a desktop launcher do not see it).
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engram.doctor.findings import Finding, Severity
from engram.doctor.launcher_path import minimal_path, shell_path_only
from engram.doctor.runner import Check, DoctorContext
from engram.errors import EngramError

# The PATH a host launched from a desktop session sees (override: ENGRAM_MINIMAL_PATH).


def _read(path: Path) -> tuple[str, Any] | None:
    """``(text, parsed JSONC value)`` of ``path``; None when missing; EngramError when broken."""
    from engram.edit.jsonc.document import load

    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EngramError("host.unreadable", f"cannot read {path}: {exc}", "") from exc
    return text, load(text, str(path))


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _codex_home(ctx: DoctorContext) -> Path:
    return Path(ctx.env.get("CODEX_HOME") or ctx.home / ".codex")


def strict_json_files(ctx: DoctorContext) -> dict[str, list[Path]]:
    """Host files that must be strict JSON (no comments, no trailing commas), per host."""
    home, ws = ctx.home, ctx.workspace
    return {
        "claude": [
            ws / ".mcp.json",
            ws / ".claude" / "settings.json",
            home / ".claude" / "settings.json",
        ],
        "cursor": [
            ws / ".cursor" / "mcp.json",
            home / ".cursor" / "mcp.json",
            ws / ".cursor" / "hooks.json",
            home / ".cursor" / "hooks.json",
        ],
        "codex": [_codex_home(ctx) / "hooks.json"],
        "windsurf": [
            home / ".codeium" / "windsurf" / "mcp_config.json",
            ws / ".windsurf" / "hooks.json",
            home / ".codeium" / "windsurf" / "hooks.json",
        ],
        "antigravity": [
            home / ".gemini" / "config" / "mcp_config.json",
            home / ".gemini" / "antigravity" / "mcp_config.json",
        ],
        "gemini": [ws / ".gemini" / "settings.json", home / ".gemini" / "settings.json"],
        "auggie": [ws / ".augment" / "settings.json", home / ".augment" / "settings.json"],
        "copilot": [ws / ".github" / "mcp.json", home / ".copilot" / "mcp-config.json"],
        "droid": [
            ws / ".factory" / "mcp.json",
            home / ".factory" / "mcp.json",
            ws / ".factory" / "settings.json",
            home / ".factory" / "settings.json",
        ],
        "kimi": [Path(ctx.env.get("KIMI_SHARE_DIR") or home / ".kimi") / "mcp.json"],
        "qwen": [ws / ".qwen" / "settings.json", home / ".qwen" / "settings.json"],
    }


def check_strict_json(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.strict_json``: host files parse under their host's own rules (strict JSON; Gemini
    CLI: comments but no trailing commas) - the check link makes before writing too."""
    from engram.hosts.syntax import Dialect, host_cannot_read

    for host, paths in strict_json_files(ctx).items():
        if not ctx.wants_host(host):
            continue
        dialect = Dialect.JSON_COMMENTS if host in ("gemini", "qwen", "droid") else Dialect.JSON
        for path in paths:
            try:
                text = path.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                continue
            problem = host_cannot_read(path, dialect) or _not_json(text, dialect)
            if not problem and "engram" not in text:
                continue  # a host file without Engram in it that parses: not ours to report
            if problem:
                yield Finding(
                    "host.strict_json",
                    Severity.FAIL,
                    f"{host} cannot read {path.name} ({problem}); it reads {dialect.value}",
                    str(path),
                    "fix the file by hand (the host rejects it), then run `engram doctor` again",
                )
            else:
                yield Finding(
                    "host.strict_json", Severity.PASS, f"{path.name} parses for {host}", str(path)
                )


def _not_json(text: str, dialect: Any) -> str | None:
    """A strict-JSON syntax error the comment/comma scan does not see."""
    from engram.hosts.syntax import Dialect

    if dialect is not Dialect.JSON:
        return None
    try:
        json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        return f"{exc.msg} at line {exc.lineno}"
    return None


def check_gemini_trust(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.gemini_trust``: Gemini must still ask before ``engram_commit``."""
    if not ctx.wants_host("gemini"):
        return
    for path in (
        ctx.workspace / ".gemini" / "settings.json",
        ctx.home / ".gemini" / "settings.json",
    ):
        found = _read(path)
        entry = _dig(found[1], "mcpServers", "engram") if found else None
        if not isinstance(entry, dict):
            continue
        if entry.get("trust") is True:
            yield Finding(
                "host.gemini_trust",
                Severity.WARN,
                "Gemini CLI trusts the engram server: engram_commit runs without asking",
                str(path),
                'remove "trust": true from mcpServers.engram so a human approves every commit',
            )
        else:
            yield Finding(
                "host.gemini_trust", Severity.PASS, "Gemini asks before engram_commit", str(path)
            )


def _folder_trusted(rules: Any, folder: Path) -> bool:
    if not isinstance(rules, dict):
        return False
    for raw, level in rules.items():
        rule = Path(raw)
        if level == "TRUST_FOLDER" and rule == folder:
            return True
        if level == "TRUST_PARENT" and (folder == rule.parent or rule.parent in folder.parents):
            return True
        if level == "TRUST_FOLDER" and rule in folder.parents:
            return True
    return False


def check_gemini_folder(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.gemini_folder_untrusted``: Gemini ignores workspace settings in untrusted folders."""
    settings = ctx.workspace / ".gemini" / "settings.json"
    if not ctx.wants_host("gemini"):
        return
    found = _read(settings)
    if not found or "engram" not in found[0]:
        return
    trusted = _read(ctx.home / ".gemini" / "trustedFolders.json")
    if trusted and _folder_trusted(trusted[1], ctx.workspace):
        yield Finding(
            "host.gemini_folder_untrusted",
            Severity.PASS,
            "Gemini trusts this folder",
            str(settings),
        )
        return
    yield Finding(
        "host.gemini_folder_untrusted",
        Severity.WARN,
        f"Gemini CLI ignores {settings} until you trust {ctx.workspace}",
        str(settings),
        "start `gemini` in this folder and choose to trust it (or use `engram link gemini --global`)",
    )


def check_claude_approval(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.claude_pending_approval``: a project ``.mcp.json`` server the user has not approved."""
    mcp = ctx.workspace / ".mcp.json"
    if not ctx.wants_host("claude"):
        return
    found = _read(mcp)
    if not found or not isinstance(_dig(found[1], "mcpServers", "engram"), dict):
        return
    local = _read(ctx.workspace / ".claude" / "settings.local.json")
    settings = local[1] if local else {}
    enabled = _dig(settings, "enabledMcpjsonServers")
    disabled = _dig(settings, "disabledMcpjsonServers")
    if isinstance(disabled, list) and "engram" in disabled:
        yield Finding(
            "host.claude_pending_approval",
            Severity.WARN,
            "Claude Code has the project's engram server disabled",
            str(mcp),
            "remove engram from disabledMcpjsonServers in .claude/settings.local.json",
        )
    elif (isinstance(enabled, list) and "engram" in enabled) or _dig(
        settings, "enableAllProjectMcpServers"
    ) is True:
        yield Finding(
            "host.claude_pending_approval", Severity.PASS, "Claude Code approved engram", str(mcp)
        )
    else:
        yield Finding(
            "host.claude_pending_approval",
            Severity.WARN,
            "Claude Code shows the project's engram server as pending approval",
            str(mcp),
            "run `claude` in this folder and approve the engram server (or /mcp)",
        )


def _hook_commands(value: Any) -> Iterator[str]:
    """Every ``command`` string inside a hook file's ``hooks`` object."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "command" and isinstance(item, str):
                yield item
            else:
                yield from _hook_commands(item)
    elif isinstance(value, list):
        for item in value:
            yield from _hook_commands(item)


def hook_files(ctx: DoctorContext) -> dict[str, list[Path]]:
    """Where each host keeps hook entries (workspace and user level)."""
    home, ws = ctx.home, ctx.workspace
    return {
        "claude": [ws / ".claude" / "settings.json", home / ".claude" / "settings.json"],
        "codex": [_codex_home(ctx) / "hooks.json"],
        "gemini": [ws / ".gemini" / "settings.json", home / ".gemini" / "settings.json"],
        "cursor": [ws / ".cursor" / "hooks.json", home / ".cursor" / "hooks.json"],
        "windsurf": [
            ws / ".windsurf" / "hooks.json",
            home / ".codeium" / "windsurf" / "hooks.json",
        ],
        "droid": [ws / ".factory" / "settings.json", home / ".factory" / "settings.json"],
        "qwen": [ws / ".qwen" / "settings.json", home / ".qwen" / "settings.json"],
    }


def check_hook_commands(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.hook_command``: Engram's hook commands resolve where hosts look for them."""
    minimal = minimal_path(ctx.env)
    for host, paths in hook_files(ctx).items():
        if not ctx.wants_host(host):
            continue
        for path in paths:
            try:
                found = _read(path)
            except EngramError:
                continue  # a broken file is reported by the registration checks
            if not found:
                continue
            for command in _hook_commands(_dig(found[1], "hooks")):
                program = engram_hook_program(command)
                if program is not None:
                    yield _resolve(program, command, minimal, ctx, path)


def engram_hook_program(command: str) -> str | None:
    """The program an Engram hook command starts (``engram``, ``/abs/bin/engram`` or a
    launcher such as ``uvx``), or None when ``command`` is not an Engram hook."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for at in range(len(words) - 1):
        if Path(words[at]).name in ("engram", "engram.exe") and words[at + 1] == "hook":
            return words[0]
    return None


def _resolve(program: str, command: str, minimal: str, ctx: DoctorContext, path: Path) -> Finding:
    if shutil.which(program, path=minimal):
        return Finding("host.hook_command", Severity.PASS, f"`{command}` resolves", str(path))
    shell_only = shell_path_only(program, ctx.env, str(path))
    if shell_only is not None:
        return shell_only
    return Finding(
        "host.hook_command",
        Severity.FAIL,
        f"the hook command `{command}` points at a missing program `{program}`",
        str(path),
        "install Engram (`pipx install engram-keeper`) or run `engram unlink <host>`",
    )


def _snake(event: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")


def codex_engram_hooks(hooks_file: Path, value: Any) -> Iterator[tuple[str, str]]:
    """``(event, trust key)`` of each Engram handler in a Codex ``hooks.json`` value.

    Codex keys its trust records ``"<hooks.json path>:<event_snake>:<group>:<handler>"``.
    """
    events = _dig(value, "hooks")
    if not isinstance(events, dict):
        return
    for event, groups in events.items():
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = _dig(group, "hooks")
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
                command = _dig(handler, "command")
                if isinstance(command, str) and command.split()[:2] == ["engram", "hook"]:
                    yield event, f"{hooks_file}:{_snake(event)}:{gi}:{hi}"


def check_codex_hook_trust(ctx: DoctorContext) -> Iterator[Finding]:
    """``host.codex_hook_untrusted``: Codex runs a user hook only after the user trusts it."""
    import tomllib

    if not ctx.wants_host("codex"):
        return
    home = _codex_home(ctx)
    hooks_file = home / "hooks.json"
    found = _read(hooks_file)
    if not found:
        return
    try:
        config = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    except FileNotFoundError:
        config = {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise EngramError(
            "host.unreadable", f"cannot read {home / 'config.toml'}: {exc}", ""
        ) from exc
    state = _dig(config, "hooks", "state")
    state = state if isinstance(state, dict) else {}
    pending: list[str] = []
    trusted: list[str] = []
    for event, key in codex_engram_hooks(hooks_file, found[1]):
        record = state.get(key)
        ok = isinstance(record, dict) and isinstance(record.get("trusted_hash"), str)
        (trusted if ok else pending).append(event)
    if pending:
        yield Finding(
            "host.codex_hook_untrusted",
            Severity.WARN,
            f"Codex will not run Engram's {', '.join(pending)} hook(s) until you trust them",
            str(hooks_file),
            "start `codex` and trust the engram hooks when it asks (or in /hooks)",
        )
    elif trusted:
        yield Finding(
            "host.codex_hook_untrusted",
            Severity.PASS,
            f"Codex trusts Engram's {', '.join(trusted)} hook(s)",
            str(hooks_file),
        )


CHECKS: list[Check] = [
    check_codex_hook_trust,
    check_strict_json,
    check_gemini_trust,
    check_gemini_folder,
    check_claude_approval,
    check_hook_commands,
]
