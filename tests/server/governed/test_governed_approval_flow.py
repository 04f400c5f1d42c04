"""The whole approval flow through a real ``engram-mcp``, in both protocol eras.

After every scenario the store holds exactly what the human approved — nothing else.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

import pytest
from governed_client import Client, accept, data

from engram.testing import Sandbox

UV = {"title": "Use uv", "body": "Lock dependencies with uv.", "type": "rule"}
TWO = {
    "candidates": [
        {"title": "Store is SQLite", "body": "One SQLite file with FTS5.", "type": "decision"},
        {"title": "Four spaces", "body": "Indent Python with four spaces.", "type": "convention"},
    ]
}


def stored(sandbox: Sandbox) -> list[str]:
    path = sandbox.data_dir / "engram.db"
    if not path.exists():
        return []
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT title FROM governed_memories WHERE tier = 'durable' ORDER BY title"
        ).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()
    return [r[0] for r in rows]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Sandbox, Client]]:
    """One legacy server for the dialog tests (each test uses its own titles)."""
    box = Sandbox(tmp_path_factory.mktemp("legacy"))
    running = Client(box)
    yield box, running
    running.close()


def fresh(shared: tuple[Sandbox, Client], tag: str) -> tuple[Sandbox, Client, dict[str, str]]:
    """The shared server, and a candidate whose title no other test uses."""
    box, client = shared
    client.elicitations.clear()
    return box, client, {"title": f"Use uv {tag}", "body": f"Lock with uv ({tag}).", "type": "rule"}


def statuses(sandbox: Sandbox, title: str) -> list[str]:
    pending = json.loads((sandbox.workspace / ".engram" / "pending-approvals.json").read_text())
    return [p["status"] for p in pending["proposals"] if p["candidates"][0]["title"] == title]


# --- legacy era: elicitation/create ---------------------------------------------------------


def test_accept_writes_exactly_the_selected_candidates(shared: tuple[Sandbox, Client]) -> None:
    sandbox, client, _ = fresh(shared, "accept")
    result = client.call(
        "engram_save_session", TWO, reply=accept({"c1": False, "c2": True, "scope": "project"})
    )
    form = client.elicitations[0]
    assert form["mode"] == "form"
    assert "1. ADD — Store is SQLite" in form["message"]
    assert "One SQLite file" not in json.dumps(form)  # titles only, never memory text
    assert form["requestedSchema"]["properties"]["scope"]["enum"] == ["project"]
    assert "approval_token" not in data(result) and data(result)["saved"] is True
    assert stored(sandbox) == ["Four spaces"]


def test_decline_revokes_and_writes_nothing(shared: tuple[Sandbox, Client]) -> None:
    sandbox, client, candidate = fresh(shared, "decline")
    result = client.call("engram_save", candidate, reply={"action": "decline"})
    assert "Declined" in result["content"][0]["text"]
    assert statuses(sandbox, candidate["title"]) == ["declined"]
    assert candidate["title"] not in stored(sandbox)


def test_cancel_falls_back_to_the_token_then_commit_writes(
    shared: tuple[Sandbox, Client],
) -> None:
    sandbox, client, candidate = fresh(shared, "cancel")
    result = client.call("engram_save", candidate, reply={"action": "cancel"})
    text = result["content"][0]["text"]
    assert text.startswith("nothing was saved (the approval dialog was cancelled)")
    assert candidate["title"] not in stored(sandbox)
    token = data(result)["approval_token"]
    committed = client.call("engram_commit", {"approval_token": token, "approve": "all"})
    assert committed["isError"] is False
    assert candidate["title"] in stored(sandbox)
    again = client.call("engram_commit", {"approval_token": token, "approve": "all"})
    assert again["isError"] is True


def test_client_error_falls_back_to_the_token(shared: tuple[Sandbox, Client]) -> None:
    sandbox, client, candidate = fresh(shared, "client error")
    reply = {"error": {"code": -32603, "message": "dialog crashed"}}
    result = client.call("engram_save", candidate, reply=reply)
    assert result["content"][0]["text"].startswith("nothing was saved (the approval dialog failed")
    assert data(result)["approval_token"]
    assert candidate["title"] not in stored(sandbox)


def test_invalid_answer_revokes(shared: tuple[Sandbox, Client]) -> None:
    sandbox, client, candidate = fresh(shared, "invalid")
    result = client.call("engram_save", candidate, reply=accept({"c1": True, "scope": "galaxy"}))
    assert result["isError"] is True
    assert result["structuredContent"]["data"]["code"] == "governed.invalid_answer"
    assert statuses(sandbox, candidate["title"]) == ["declined"]
    assert candidate["title"] not in stored(sandbox)


def test_note_needs_one_yes(shared: tuple[Sandbox, Client]) -> None:
    sandbox, client, _ = fresh(shared, "note")
    before = stored(sandbox)
    result = client.call(
        "engram_note",
        {"text": "Ranking half done", "objective": "search"},
        reply=accept({"save": True}),
    )
    note = data(result)["note"]
    assert set(note) == {"id", "file", "valid_until"}
    assert (sandbox.workspace / ".engram" / "working" / f"{note['id']}.md").exists()
    nothing = client.call("engram_note", {"text": "Other note"}, reply={"action": "cancel"})
    assert nothing["content"][0]["text"].startswith("nothing was saved")
    assert stored(sandbox) == before  # notes are never durable


def test_timeout_falls_back_to_the_token(sandbox: Sandbox) -> None:
    slow = Client(sandbox, env={"ENGRAM_ELICITATION_TIMEOUT": "1"})
    try:
        result = slow.call("engram_save", UV, reply=None)
        assert "nothing was saved (the approval dialog timed out)" in result["content"][0]["text"]
        assert data(result)["approval_token"]
    finally:
        slow.close()
    assert stored(sandbox) == []


@pytest.mark.parametrize(
    ("args", "capabilities"), [((), {}), (("--no-elicitation",), {"elicitation": {"form": {}}})]
)
def test_token_flow_without_the_capability_or_with_no_elicitation(
    sandbox: Sandbox, args: tuple[str, ...], capabilities: dict[str, object]
) -> None:
    plain = Client(sandbox, *args, capabilities=capabilities)
    try:
        result = plain.call("engram_save", UV, reply=accept({"c1": True}))
        assert plain.elicitations == []
        assert not result["content"][0]["text"].startswith("nothing was saved")
        assert data(result)["approval_token"]
    finally:
        plain.close()
    assert stored(sandbox) == []


# --- 2026-07-28: input_required and requestState -------------------------------------------


def ask_modern(client: Client, arguments: dict[str, object]) -> dict[str, object]:
    first = client.modern_call("engram_save", arguments)["result"]
    assert first["resultType"] == "input_required"
    request = first["inputRequests"]["engram_approval"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "form"
    return first  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def modern_shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Sandbox, Client]]:
    """One server spoken to only in the 2026-07-28 era."""
    box = Sandbox(tmp_path_factory.mktemp("modern"))
    running = Client(box, handshake=False)
    yield box, running
    running.close()


def test_modern_accept_on_retry(modern_shared: tuple[Sandbox, Client]) -> None:
    sandbox, client, candidate = fresh(modern_shared, "modern accept")
    first = ask_modern(client, candidate)
    assert candidate["title"] not in stored(sandbox)
    answer = {"engram_approval": accept({"c1": True})}
    done = client.modern_call(
        "engram_save", candidate, inputResponses=answer, requestState=first["requestState"]
    )["result"]
    assert done["resultType"] == "complete" and done["isError"] is False
    assert candidate["title"] in stored(sandbox)
    replay = client.modern_call(
        "engram_save", candidate, inputResponses=answer, requestState=first["requestState"]
    )
    assert replay["error"]["code"] == -32602


def test_modern_decline_and_cancel(modern_shared: tuple[Sandbox, Client]) -> None:
    sandbox, client, candidate = fresh(modern_shared, "modern decline")
    first = ask_modern(client, candidate)
    declined = client.modern_call(
        "engram_save",
        candidate,
        inputResponses={"engram_approval": {"action": "decline"}},
        requestState=first["requestState"],
    )["result"]
    assert "Declined" in declined["content"][0]["text"]
    second = ask_modern(client, candidate)
    cancelled = client.modern_call(
        "engram_save",
        candidate,
        inputResponses={"engram_approval": {"action": "cancel"}},
        requestState=second["requestState"],
    )["result"]
    assert cancelled["content"][0]["text"].startswith("nothing was saved")
    assert cancelled["structuredContent"]["data"]["approval_token"]
    assert candidate["title"] not in stored(sandbox)


def test_forged_or_mismatched_state_is_invalid_params(
    modern_shared: tuple[Sandbox, Client],
) -> None:
    sandbox, client, candidate = fresh(modern_shared, "forged")
    answer = {"engram_approval": accept({"c1": True})}
    state = str(ask_modern(client, candidate)["requestState"])
    body, mac = state.split(".")
    forged = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + mac
    other_args = dict(candidate, body="Something else entirely.")
    for arguments, sent in ((candidate, forged), (other_args, state), (candidate, "garbage")):
        reply = client.modern_call(
            "engram_save", arguments, inputResponses=answer, requestState=sent
        )
        assert reply["error"]["code"] == -32602, reply
    other_tool = client.modern_call(
        "engram_note", {"text": "x"}, inputResponses=answer, requestState=state
    )
    assert other_tool["error"]["code"] == -32602
    assert candidate["title"] not in stored(sandbox)


def test_a_restart_invalidates_open_states(sandbox: Sandbox) -> None:
    first = Client(sandbox, handshake=False)
    try:
        state = ask_modern(first, UV)["requestState"]
    finally:
        first.close()
    second = Client(sandbox, handshake=False)
    try:
        reply = second.modern_call(
            "engram_save",
            UV,
            inputResponses={"engram_approval": accept({"c1": True})},
            requestState=state,
        )
        assert reply["error"]["code"] == -32602
    finally:
        second.close()
    assert stored(sandbox) == []


def test_modern_save_session_with_explicit_candidates(
    modern_shared: tuple[Sandbox, Client],
) -> None:
    """A 2026-07-28 client that declared elicitation passes its own candidates list (it was
    `server.internal: TypeError: Object of type Candidate is not JSON serializable`)."""
    sandbox, client, candidate = fresh(modern_shared, "session candidates")
    arguments = {"candidates": [candidate]}
    first = client.modern_call("engram_save_session", arguments)["result"]
    assert first["resultType"] == "input_required", first
    answer = {"engram_approval": accept({"c1": True})}
    done = client.modern_call(
        "engram_save_session", arguments, inputResponses=answer, requestState=first["requestState"]
    )["result"]
    assert done["resultType"] == "complete" and done["isError"] is False, done
    assert candidate["title"] in stored(sandbox)
