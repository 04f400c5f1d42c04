"""The tool contract: every tool's name, annotations, _meta and input schema, against a golden file.

A change to any tool's public shape fails here until it is reviewed and the golden file is
regenerated on purpose:  ENGRAM_UPDATE_GOLDEN=1 scripts/test tests/server/test_tool_contract.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from engram.server.app import EngramServer
from engram.server.options import ServerOptions
from engram.server.registry import all_tools, select_tools

GOLDEN = Path(__file__).parent / "golden" / "tools.json"


def _normalized(value: Any) -> Any:
    """Key order never matters; list order (enums, required) does."""
    if isinstance(value, dict):
        return {k: _normalized(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


def contract() -> list[dict[str, Any]]:
    """What hosts see of every registered tool (all profiles)."""
    out = []
    for spec in sorted(all_tools(), key=lambda t: t.name):
        listed = spec.listing()
        out.append(
            _normalized(
                {
                    "name": spec.name,
                    "family": spec.family,
                    "profiles": sorted(spec.profiles),
                    "annotations": listed["annotations"],
                    "_meta": listed.get("_meta", {}),
                    "inputSchema": listed["inputSchema"],
                    "outputSchema": listed["outputSchema"],
                    "title": listed["title"],
                }
            )
        )
    return out


def test_tool_contract_matches_the_reviewed_golden_file() -> None:
    current = json.dumps(contract(), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("ENGRAM_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(current, encoding="utf-8")
    assert GOLDEN.exists(), "no golden file: run with ENGRAM_UPDATE_GOLDEN=1 once, then review it"
    assert current == GOLDEN.read_text(encoding="utf-8"), (
        "the tool contract changed; review the diff, then regenerate with ENGRAM_UPDATE_GOLDEN=1"
    )


def test_all_23_journal_tools_are_registered_with_hints() -> None:
    journal = [t for t in all_tools() if t.family == "mem"]
    assert len(journal) == 23
    for tool in journal:
        hints = tool.annotations()
        assert isinstance(hints["readOnlyHint"], bool)
        if tool.name in ("mem_delete", "mem_merge_projects"):
            assert hints["destructiveHint"] is True
        if tool.name in ("mem_search", "mem_context", "mem_get_observation", "mem_stats"):
            assert hints["readOnlyHint"] is True


def test_profiles_select_tools() -> None:
    agent, _ = select_tools(["agent"])
    admin, _ = select_tools(["admin"])
    names = {t.name for t in agent}
    assert "mem_save" in names and "mem_list_projects" in names and "mem_compare" in names
    assert "mem_delete" not in names and "mem_merge_projects" not in names
    assert {t.name for t in admin} >= {"mem_delete", "mem_merge_projects", "mem_stats"}
    picked, unknown = select_tools(["mem_search", "mem_nope"])
    assert [t.name for t in picked] == ["mem_search"] and unknown == ["mem_nope"]
    everything = EngramServer(ServerOptions())
    assert set(everything.tools) == {t.name for t in all_tools()}
