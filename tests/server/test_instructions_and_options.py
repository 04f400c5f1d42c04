"""Server instructions (one string, at most 512 characters) and the command-line options."""

from __future__ import annotations

import io

from engram.server.app import INSTRUCTIONS
from engram.server.options import parse_options
from engram.testing import Sandbox
from tests.server.mcp_process import initialize, modern, request, run_server


def test_instructions_fit_codex_512_characters_and_name_the_human_gate() -> None:
    assert 0 < len(INSTRUCTIONS) <= 512
    assert "mem_search" in INSTRUCTIONS and "mem_save" in INSTRUCTIONS
    assert "engram_commit" in INSTRUCTIONS and "human" in INSTRUCTIONS


def test_initialize_and_discover_carry_the_same_instructions(sandbox: Sandbox) -> None:
    answered = run_server(sandbox, [initialize(1)[0], modern(2, "server/discover")])
    assert answered.result(1)["instructions"] == INSTRUCTIONS
    assert answered.result(2)["instructions"] == INSTRUCTIONS


def test_options_parse_both_spellings_and_ignore_unknown_ones() -> None:
    err = io.StringIO()
    options = parse_options(
        ["--tools", "agent,mem_stats", "--project=Demo", "--always-load", "--no-elicitation", "-x"],
        environ={},
        stderr=err,
    )
    assert options.tools == ("agent", "mem_stats")
    assert options.project == "Demo"
    assert options.always_load and options.no_elicitation
    assert options.ignored == ("-x",)
    assert "'-x'" in err.getvalue()


def test_engram_project_is_the_fallback_process_override() -> None:
    assert parse_options([], environ={"ENGRAM_PROJECT": " web "}).project == "web"
    assert parse_options(["--project", "api"], environ={"ENGRAM_PROJECT": "web"}).project == "api"
    assert parse_options([], environ={}).tools == ("all",)


def test_unknown_option_is_noted_on_stderr_and_the_server_still_serves(sandbox: Sandbox) -> None:
    lines = [*initialize(1), request(2, "tools/list")]
    answered = run_server(sandbox, lines, "--from-the-future", "--tools=nonsense,mem_search")
    assert answered.result(1)["protocolVersion"] == "2025-11-25"
    assert [t["name"] for t in answered.result(2)["tools"]] == ["mem_search"]
    assert "--from-the-future" in answered.stderr
    assert "nonsense" in answered.stderr


def test_engram_mcp_subcommand_starts_the_same_server(sandbox: Sandbox) -> None:
    import sys
    from pathlib import Path

    engram = str(Path(sys.executable).parent / "engram")
    answered = run_server(sandbox, [initialize(1)[0]], command=[engram, "mcp"])
    assert answered.result(1)["serverInfo"]["name"] == "engram"
    assert answered.result(1)["instructions"] == INSTRUCTIONS
