"""The text and hook entries ``engram link`` installs beside the MCP registration.

Everything here is content, not placement: host plugins (``engram.hosts``) decide which file
each piece goes to and wrap it in an edit. Instruction blocks and rules are rendered from the
jinja2 templates in ``templates/``; the skill is shipped as ``skills/memory-protocol/SKILL.md``.

Hook commands come from the same resolution as the MCP entry (``engram hook codex`` when
``engram-mcp`` is on PATH, ``/abs/bin/engram hook codex`` beside an absolute ``engram-mcp``), so
a host that can start the server can run the hooks. They carry no version and no interpreter
path, so they stay byte-stable across upgrades: Codex re-asks the user to trust a hook whose
command changed.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from engram.assets import asset_path
from engram.edit.plan import JSONValue

if TYPE_CHECKING:
    import jinja2

SKILL_NAME = "memory-protocol"
HOOK_TIMEOUT_SECONDS = 10

# host -> {event: matcher or None}; the events each host's hook file registers.
HOOK_EVENTS: dict[str, dict[str, str | None]] = {
    # Goose (Open Plugins hooks in Engram's plugin folder): observe only, no matchers.
    "goose": {"SessionStart": None, "UserPromptSubmit": None, "SessionEnd": None},
    # Cline runs one executable per hook, named for the hook: no matchers.
    "cline": {
        "TaskStart": None,
        "TaskResume": None,
        "UserPromptSubmit": None,
        "PreCompact": None,
        "TaskComplete": None,
    },
    "claude": {
        "SessionStart": "startup|resume|clear|compact",
        "UserPromptSubmit": None,
        "PreCompact": None,
        "SessionEnd": None,
    },
    "codex": {
        "SessionStart": "startup|resume|clear|compact",
        "UserPromptSubmit": None,
        "PostCompact": None,
    },
    "gemini": {
        "SessionStart": "*",
        "BeforeAgent": "*",
        "PreCompress": "*",
        "SessionEnd": "*",
    },
    "cursor": {
        "sessionStart": None,
        "beforeSubmitPrompt": None,
        "preCompact": None,
        "sessionEnd": None,
    },
    # Windsurf's pre_user_prompt cannot reach the model: record prompts, show nothing.
    "windsurf": {"pre_user_prompt": None},
    # Factory Droid and Qwen Code read Claude Code's hook shape (timeouts in seconds).
    "droid": {
        "SessionStart": "startup|resume|clear|compact",
        "UserPromptSubmit": None,
        "PreCompact": None,
        "SessionEnd": None,
    },
    # Kimi Code CLI: [[hooks]] tables in ~/.kimi/config.toml; what a hook prints never reaches
    # the model, so these record sessions and prompts only.
    "kimi": {
        "SessionStart": None,
        "UserPromptSubmit": None,
        "PreCompact": None,
        "SessionEnd": None,
    },
    "qwen": {
        "SessionStart": None,
        "UserPromptSubmit": None,
        "PreCompact": None,
        "SessionEnd": None,
    },
}
# Hosts whose hook entries are Claude Code's ``{"type": "command", "command", "timeout"}``.
CLAUDE_SHAPED = ("claude", "codex", "droid", "qwen")


def hook_command(host: str) -> str:
    """The bare hook command, ``engram hook <host>`` (for ``engram`` on the host's PATH)."""
    return f"engram hook {host}"


def _hook_entry(host: str, command: str) -> dict[str, JSONValue]:
    if host in CLAUDE_SHAPED:
        return {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}
    if host == "gemini":  # Gemini CLI counts hook timeouts in milliseconds
        return {
            "type": "command",
            "command": command,
            "name": "engram",
            "timeout": HOOK_TIMEOUT_SECONDS * 1000,
        }
    if host == "windsurf":
        return {"command": command, "show_output": False}
    return {"command": command}  # cursor


def hook_groups(host: str, command: str | None = None) -> dict[str, JSONValue]:
    """The item to add to each event's list in ``host``'s hook file (empty: no hooks).

    ``command`` is the resolved hook command (default: the bare ``engram hook <host>``).

    Claude Code, Codex and Gemini CLI nest commands in matcher groups
    (``{"matcher", "hooks": [...]}``); Cursor and Windsurf list the commands directly.
    """
    groups: dict[str, JSONValue] = {}
    for event, matcher in HOOK_EVENTS.get(host, {}).items():
        entry = _hook_entry(host, command or hook_command(host))
        if host in ("cursor", "windsurf"):
            groups[event] = entry
            continue
        group: dict[str, JSONValue] = {}
        if matcher is not None:
            group["matcher"] = matcher
        group["hooks"] = [entry]
        groups[event] = group
    return groups


def kimi_hooks(command: str | None = None) -> list[JSONValue]:
    """Kimi's ``[[hooks]]`` tables, one per event: ``{event, command, timeout}`` (seconds)."""
    run = command or hook_command("kimi")
    return [
        {"event": event, "command": run, "timeout": HOOK_TIMEOUT_SECONDS}
        for event in HOOK_EVENTS["kimi"]
    ]


def installs_claude_hooks() -> bool:
    """Whether ``engram link claude`` installs hooks (then ``--always-load`` is not added)."""
    return bool(HOOK_EVENTS.get("claude"))


@cache
def _environment() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(asset_path("templates"))),
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def _render(template: str, **variables: object) -> str:
    text = _environment().get_template(template).render(compact=False, **variables)
    return text.strip("\n") + "\n"


def instruction_block(host: str) -> str:
    """The memory-protocol block Engram manages in ``host``'s instruction file."""
    return _render("instructions.md.j2", host=host)


RULE_TEMPLATES = {
    "cursor": "cursor-rule.mdc.j2",
    "windsurf": "windsurf-rule.md.j2",
    "kiro": "kiro-steering.md.j2",
    "continue": "continue-rule.md.j2",
}


def rule_file(host: str) -> str:
    """The rule file Engram owns for ``host`` (``engram.md`` / ``engram.mdc``): the protocol,
    with the front matter that makes that host always apply it (plain Markdown otherwise)."""
    return _render(RULE_TEMPLATES.get(host, "instructions.md.j2"), host=host)


def goose_plugin(command: str) -> dict[str, str]:
    """Engram's Goose plugin (Open Plugins layout): ``plugin.json`` and ``hooks/hooks.json``
    running ``command`` (``engram hook goose``) at session start, each prompt and session end."""
    import json

    manifest = {
        "name": "engram",
        "version": "1.0.0",
        "description": "Engram: record Goose sessions and prompts in project memory",
    }
    action = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}
    hooks = {event: [{"hooks": [action]}] for event in HOOK_EVENTS["goose"]}
    return {
        "plugin.json": json.dumps(manifest, indent=2) + "\n",
        "hooks/hooks.json": json.dumps({"hooks": hooks}, indent=2) + "\n",
    }


def cline_hook_script(command: str) -> str:
    """One of Cline's hook files (``.clinerules/hooks/TaskStart``...): a POSIX shell script that
    hands stdin to ``command`` (``engram hook cline``), which answers in Cline's JSON."""
    return (
        "#!/bin/sh\n"
        "# Engram's Cline hook, written by `engram link cline` (`engram unlink cline` removes it).\n"
        f"exec {command}\n"
    )


def skill_files() -> dict[str, str]:
    """The skill's files, keyed by path relative to a host's skills folder."""
    root = asset_path("skills", SKILL_NAME)
    return {
        f"{SKILL_NAME}/{path.relative_to(root).as_posix()}": path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def opencode_plugin(engram_argv: list[str] | None = None) -> str:
    """Engram's OpenCode plugin (``plugin/opencode/engram.js``), installed by link.

    ``engram_argv`` is how to run the resolved ``engram`` (default: ``engram`` on PATH); the
    plugin spawns it with ``hook opencode``.
    """
    import json

    text = asset_path("plugin", "opencode", "engram.js").read_text(encoding="utf-8")
    if not engram_argv or engram_argv == ["engram"]:
        return text
    return text.replace(_OPENCODE_ENGRAM, f"const ENGRAM = {json.dumps(engram_argv)};", 1)


_OPENCODE_ENGRAM = 'const ENGRAM = ["engram"];'
