"""CLI twins of the governed tools: ``engram load``, ``route``, ``save-session``, ``promote``,
``verify``.

Each command is one call into :mod:`engram.memory.governed`; nothing heavy is imported until a
command runs, so ``--help`` never opens the store.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

ProjectOpt = Annotated[
    str | None, typer.Option("--project", help="Project name (default: detected from the cwd).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print stable JSON instead of text.")]


def _print(data: dict[str, Any] | list[Any], text: str, as_json: bool) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False) if as_json else text.rstrip("\n"))


def load_command(
    query: Annotated[str, typer.Argument(help="The task, in words.")] = "",
    id: Annotated[str | None, typer.Option("--id", help="Fetch one memory by id.")] = None,
    budget: Annotated[
        int | None, typer.Option("--budget", help="Token budget (default load.budget_tokens).")
    ] = None,
    disclosure: Annotated[
        str, typer.Option("--disclosure", help="tiered | cards | bodies")
    ] = "tiered",
    full: Annotated[
        bool, typer.Option("--full", help="Route every memory, not only matches.")
    ] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Say why each memory routed.")] = False,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Route and print governed memory for a task (bodies that fit the budget, then cards)."""
    from engram.memory.governed import load, open_knowledge_base

    with open_knowledge_base(project=project) as kb:
        pack = load(
            kb,
            query,
            id=id,
            budget_tokens=budget,
            disclosure=disclosure,
            full=full,
            explain=explain,
        )
    text = pack.with_journal() or "(no governed memory routed to this task)"
    if explain and not as_json:
        text += "\n" + "\n".join(
            f"  {e['id']}: {e['tier']} — {e['reason']} (score {e['score']})" for e in pack.explain
        )
    _print(pack.to_dict() | {"text": pack.text}, text, as_json)


def route_command(
    query: Annotated[str, typer.Argument(help="The task, in words.")],
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Classify a task and list the memories it routes to, in load order."""
    from engram.memory.governed import open_knowledge_base, route

    with open_knowledge_base(project=project) as kb:
        result = route(kb, query)
    lines = [f"task kinds: {', '.join(result.kinds)}"]
    lines += [
        f"{n}. [{e.type}] {e.id} ({e.scope}{', note' if e.tier == 'working' else ''}) "
        f"score {e.score} — {e.reason}"
        for n, e in enumerate(result.entries, 1)
    ]
    _print(result.to_dict(), "\n".join(lines), as_json)


def save_session_command(
    force: Annotated[
        bool, typer.Option("--force", "-f", help="Write now (you are the approving human).")
    ] = False,
    query_level: Annotated[
        int, typer.Option("--query-level", help="How many recent sessions to read.")
    ] = 1,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Propose the last sessions' decisions, patterns and fixes as governed memory.

    Without --force it prints the numbered proposal and its approval token; with --force it
    writes them now (duplicates and related candidates are deferred).
    """
    from engram.memory.governed import open_knowledge_base, propose_session, save_session_forced

    with open_knowledge_base(project=project) as kb:
        if force:
            outcome = save_session_forced(kb, query_level)
            _print(outcome.to_dict(), outcome.text, as_json)
        else:
            proposal = propose_session(kb, None, query_level)
            _print(proposal.to_dict(), proposal.text, as_json)


def promote_command(
    note_id: Annotated[str, typer.Argument(help="Id of the working-tier note.")],
    type: Annotated[
        str | None, typer.Option("--type", help="Durable type (default: convention).")
    ] = None,
    scope: Annotated[str | None, typer.Option("--scope", help="project | global")] = None,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Make a working-tier note durable (the only way a note becomes durable)."""
    from engram.memory.governed import open_knowledge_base, promote

    with open_knowledge_base(project=project) as kb:
        outcome = promote(kb, note_id, type=type, scope=scope)
    _print(outcome.to_dict(), outcome.text, as_json)
    if not outcome.written:
        raise typer.Exit(1)


def verify_command(project: ProjectOpt = None, as_json: JsonOpt = False) -> None:
    """Recompute every governed memory's content hash; exit 1 on a mismatch."""
    from engram.memory.governed import open_knowledge_base, verify

    with open_knowledge_base(project=project) as kb:
        report = verify(kb)
    _print(report.to_dict(), report.text(), as_json)
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the governed commands to the root app."""
    app.command("load")(load_command)
    app.command("route")(route_command)
    app.command("save-session")(save_session_command)
    app.command("promote")(promote_command)
    app.command("verify")(verify_command)
