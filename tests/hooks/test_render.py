"""Instruction blocks, rules, the skill and hook entries render the way each host reads them."""

from __future__ import annotations

from engram.hooks import render


def frontmatter(text: str) -> dict[str, str]:
    assert text.startswith("---\n")
    head = text.split("---\n", 2)[1]
    pairs = (line.split(":", 1) for line in head.splitlines() if line.strip())
    return {key.strip(): value.strip() for key, value in pairs}


def test_instruction_block_carries_the_protocol() -> None:
    block = render.instruction_block("codex")
    for words in ("mem_context", "mem_save", "mem_session_summary", "After compaction"):
        assert words in block
    assert "{{" not in block and "{%" not in block
    assert len(block.encode()) < 4000  # always loaded: keep it compact


def test_cursor_rule_is_always_applied() -> None:
    meta = frontmatter(render.rule_file("cursor"))
    assert meta["alwaysApply"] == "true"
    assert meta["description"]


def test_windsurf_rule_is_always_on() -> None:
    assert frontmatter(render.rule_file("windsurf"))["trigger"] == "always_on"


def test_skill_has_name_and_description() -> None:
    files = render.skill_files()
    skill = files["memory-protocol/SKILL.md"]
    meta = frontmatter(skill)
    assert meta["name"] == "memory-protocol"
    assert "compaction" in meta["description"]


def test_hook_timeouts_are_in_each_hosts_unit() -> None:
    claude = render.hook_groups("claude")["SessionStart"]
    gemini = render.hook_groups("gemini")["SessionStart"]
    assert isinstance(claude, dict) and isinstance(gemini, dict)
    assert claude["hooks"] == [{"type": "command", "command": "engram hook claude", "timeout": 10}]
    hooks = gemini["hooks"]
    assert isinstance(hooks, list) and isinstance(hooks[0], dict)
    assert hooks[0]["timeout"] == 10_000  # milliseconds


def test_hook_commands_carry_no_version_or_path() -> None:
    for host in ("claude", "codex", "gemini", "cursor", "windsurf"):
        assert render.hook_command(host) == f"engram hook {host}"


def test_cursor_and_windsurf_list_commands_directly() -> None:
    assert render.hook_groups("cursor")["sessionStart"] == {"command": "engram hook cursor"}
    assert render.hook_groups("windsurf")["pre_user_prompt"] == {
        "command": "engram hook windsurf",
        "show_output": False,
    }
    assert render.hook_groups("antigravity") == {}


def test_the_installed_protocol_asks_for_key_learnings_and_explains_scope() -> None:
    from engram.hooks import render

    for text in (
        render.instruction_block("claude"),
        render.skill_files()["memory-protocol/SKILL.md"],
    ):
        assert "## Key Learnings:" in text
        assert "mem_capture_passive" in text
        assert "`personal`" in text and "`global`" in text and "`project`" in text


def test_the_skill_maps_forced_slash_requests_to_the_cli_write_path() -> None:
    from engram.hooks import render

    skill = render.skill_files()["memory-protocol/SKILL.md"]
    assert (
        "`/engram save-session --force` or `/engram ss -f` | `engram save-session --force`" in skill
    )
    assert "`engram save-session --query-level 50 --force`" in skill
