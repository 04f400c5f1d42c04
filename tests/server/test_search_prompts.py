"""mem_search also lists the user's recorded prompts that match — after the memories, labelled,
never mixed into the memory results."""

from __future__ import annotations

from engram.testing import Sandbox
from tests.server.mcp_process import call, initialize, run_server


def test_search_lists_matching_prompts_after_the_memories(sandbox: Sandbox) -> None:
    project = sandbox.workspace / "shop"
    project.mkdir()
    lines = [
        *initialize(1),
        call(2, "mem_save", {"title": "Rate limit login", "content": "5 tries a minute"}),
        call(3, "mem_save_prompt", {"content": "please add rate limiting to the login form"}),
        call(4, "mem_save_prompt", {"content": "rename the checkout button"}),
        call(5, "mem_search", {"query": "rate limiting"}),
        call(6, "mem_search", {"query": "checkout button"}),
        call(7, "mem_search", {"query": "checkout", "type": "decision"}),
        call(8, "mem_search", {"query": "nothing like this"}),
    ]
    answered = run_server(sandbox, lines, cwd=project)

    both = answered.structured(5)["data"]
    assert [hit["title"] for hit in both["result"]] == ["Rate limit login"]
    assert [p["content"] for p in both["prompts"]] == ["please add rate limiting to the login form"]
    text = answered.result(5)["content"][0]["text"]
    assert text.startswith("Found 1 memory:")
    assert text.index("Rate limit login") < text.index("Prompts the user wrote that match (1")

    only_prompt = answered.structured(6)["data"]
    assert only_prompt["result"] == [] and len(only_prompt["prompts"]) == 1
    assert answered.result(6)["content"][0]["text"].startswith("No memories found")
    assert "rename the checkout button" in answered.result(6)["content"][0]["text"]

    # A type filter narrows to memories of that type: prompts have no type.
    assert answered.structured(7)["data"]["prompts"] == []
    assert answered.structured(8)["data"]["prompts"] == []


def test_a_bad_query_is_one_error_for_memories_and_prompts(sandbox: Sandbox) -> None:
    lines = [*initialize(1), call(2, "mem_search", {"query": "   "})]
    answered = run_server(sandbox, lines)
    result = answered.result(2)
    assert result["isError"] is True
    assert "query" in result["content"][0]["text"].lower()
