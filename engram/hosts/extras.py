"""What ``engram link`` installs beside the MCP entry: hooks, the skill, instructions, rules.

Placement comes from each host's declared :class:`~engram.hosts.base.HostFiles`; content comes
from :mod:`engram.hooks.render` (templates, the shipped skill, hook entries with timeouts in the
host's unit). Unlink needs no plan: the engine takes back what the ledger recorded.

- hooks: one list item per event under ``hooks.<Event>`` (Cursor also needs ``version: 1``);
  OpenCode's "hook file" is Engram's plugin, written whole; Goose's is Engram's plugin folder
  (manifest + ``hooks/hooks.json``); Cline's is a folder of executable scripts named for the
  hooks.
- instructions: a managed block ``engram`` in ``AGENTS.md`` / ``CLAUDE.md`` / ``GEMINI.md``.
- skills: ``<skills dir>/memory-protocol/SKILL.md``, a file Engram owns.
- rules: ``engram.mdc`` (Cursor) and ``engram.md`` (Windsurf, Kiro steering, Cline, Continue)
  are files Engram owns, with the front matter each host needs to always apply them; any other
  rules file (Windsurf's shared ``global_rules.md``) gets a managed block instead.
"""

from __future__ import annotations

from engram.edit.plan import AddToList, Edit, ManagedBlock, OwnedFile, SetValue
from engram.hooks import render
from engram.hosts.base import HostFiles
from engram.hosts.context import HostContext

BLOCK_ID = "engram"


def hook_edits(host: str, files: HostFiles, ctx: HostContext) -> list[Edit]:
    """The edits that install ``host``'s hooks for ``ctx.scope`` (none when it has no hooks)."""
    if files.hooks is None or not ctx.hooks:
        return []
    path = ctx.path(files.hooks)
    if host == "opencode":
        return [OwnedFile(path, render.opencode_plugin(ctx.server.engram_argv()))]
    if host == "goose":  # Engram's own plugin folder: a manifest and hooks/hooks.json
        plugin = render.goose_plugin(ctx.server.hook_command(host))
        return [OwnedFile(path / rel, text) for rel, text in plugin.items()]
    if host == "cline":  # a folder of executables, one per hook, named for it
        script = render.cline_hook_script(ctx.server.hook_command(host))
        return [OwnedFile(path / event, script, 0o755) for event in render.HOOK_EVENTS[host]]
    if host == "kimi":  # an array of tables, each naming its event
        items = render.kimi_hooks(ctx.server.hook_command(host))
        return [AddToList(path, files.hooks_format, ("hooks",), item) for item in items]
    edits: list[Edit] = []
    if host == "cursor":
        edits.append(SetValue(path, files.hooks_format, ("version",), 1))
    for event, item in render.hook_groups(host, ctx.server.hook_command(host)).items():
        edits.append(AddToList(path, files.hooks_format, ("hooks", event), item))
    return edits


def guidance_edits(host: str, files: HostFiles, ctx: HostContext) -> list[Edit]:
    """The skill, the instruction block and the rule for ``host`` in ``ctx.scope``."""
    edits: list[Edit] = []
    if files.instructions is not None:
        block = render.instruction_block(host)
        edits.append(ManagedBlock(ctx.path(files.instructions), BLOCK_ID, block))
    if files.skills is not None:
        folder = ctx.path(files.skills)
        edits += [OwnedFile(folder / rel, text) for rel, text in render.skill_files().items()]
    if files.rules is not None:
        rule = ctx.path(files.rules)
        if rule.name in ("engram.mdc", "engram.md"):
            edits.append(OwnedFile(rule, render.rule_file(host)))
        else:
            edits.append(ManagedBlock(rule, BLOCK_ID, render.instruction_block(host)))
    return edits


def extra_edits(host: str, files: HostFiles | None, ctx: HostContext) -> list[Edit]:
    """Hooks, then skill, instructions and rules, for one host and scope (none for
    ``--mcp-only``: ``ctx.extras`` off)."""
    if files is None or not ctx.extras:
        return []
    return [*hook_edits(host, files, ctx), *guidance_edits(host, files, ctx)]


def installs_hooks(files: HostFiles | None, ctx: HostContext) -> bool:
    """Whether this link installs hooks (Claude Code: then no ``--always-load``)."""
    return ctx.hooks and files is not None and files.hooks is not None
