"""Code citations through the real ``engram-mcp`` server in a real git repository: mem_search
marks a memory whose cited symbol was deleted ``state: stale``, mem_review action stale lists
it with the fix, mem_get_observation renews it, mem_context lists it apart and engram_load
labels it (by id, and among a load's journal matches)."""

from __future__ import annotations

from engram.testing import Sandbox
from tests.memory.citation_repo import FILES, commit
from tests.server.mcp_process import call_tools, git_repo


def test_stale_memory_through_mcp(sandbox: Sandbox) -> None:
    repo = git_repo(sandbox, "shop")
    for path, text in FILES.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    commit(repo, "initial")
    saves = call_tools(
        sandbox,
        repo,
        ("mem_save", {"title": "Cart limit", "content": "`MAX_ITEMS` in web/cart.ts caps carts"}),
        ("mem_save", {"title": "Cart adds", "content": "web/cart.ts:addItem adds one item"}),
    )
    assert all(not r.get("isError") for r in saves), saves
    (repo / "web/cart.ts").write_text("export const MAX_ITEMS = 50;\n")
    commit(repo, "drop addItem")
    search, review, fetched, context, loaded, matched = call_tools(
        sandbox,
        repo,
        ("mem_search", {"query": "cart"}),
        ("mem_review", {"action": "stale"}),
        ("mem_get_observation", {"id": 2}),
        ("mem_context", {}),
        ("engram_load", {"id": "#2"}),
        ("engram_load", {"query": "cart adds item"}),
    )
    text = search["content"][0]["text"]
    assert "stale: addItem() no longer in web/cart.ts\n" in text
    assert "state: stale" in text
    assert text.index("Cart limit") < text.index("Cart adds")
    results = search["structuredContent"]["data"]["result"]
    assert [(r["id"], r["state"], r["code"]["state"]) for r in results] == [
        (1, "active", "changed"),
        (2, "stale", "stale"),
    ]
    review_text = review["content"][0]["text"]
    assert "1 memories cite code that moved or is gone:" in review_text
    assert "  stale: addItem() no longer in web/cart.ts" in review_text
    assert "  fix: engram delete 2" in review_text
    assert fetched["structuredContent"]["data"]["result"]["code"]["reasons"] == [
        "addItem() no longer in web/cart.ts"
    ]
    assert "state: stale" in fetched["content"][0]["text"]
    listed = context["content"][0]["text"]
    recent, _, stale = listed.partition("### Stale Observations")
    assert "Cart adds" not in recent and "Cart adds" in stale
    assert "(web/cart.ts changed since saved)" in recent
    loaded_text = loaded["content"][0]["text"]
    assert "# Journal entry #2 (not approved knowledge)" in loaded_text
    assert "state: stale\nstale: addItem() no longer in web/cart.ts" in loaded_text
    assert (
        "#2 [manual] Cart adds (journal: `engram show 2`) — stale: addItem()"
        in (matched["content"][0]["text"])
    )
