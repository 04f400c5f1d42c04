"""Through the CLI alone: save, find (ranked), dedup, revise, redact, delete, bad input.

Most checks run the CLI entry point in-process (``cli``); the journey at the end runs the real
console script in subprocesses (``engram``).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable
from typing import Any

from engram.testing import Sandbox

Run = Callable[..., subprocess.CompletedProcess[str]]


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stderr
    return result


def as_json(result: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(ok(result).stdout)


def dump(sandbox: Sandbox) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the user-visible tables, read-only."""
    path = sandbox.data_dir / "engram.db"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            for table in ("sessions", "observations", "user_prompts", "memory_relations")
        }
    finally:
        conn.close()


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: ")
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def test_save_then_search_ranks_title_matches_first(cli: Run) -> None:
    ok(
        cli(
            "save",
            "Cache warmup",
            "We warm the cache; JWT tokens are unrelated here.",
            "--project",
            "acme",
        )
    )
    ok(
        cli(
            "save",
            "JWT rotation",
            "Signing keys rotate nightly.",
            "--project",
            "acme",
            "--type",
            "decision",
        )
    )
    ok(cli("save", "Unrelated", "Nothing about that.", "--project", "acme"))

    found = as_json(cli("search", "jwt", "--project", "acme", "--json"))
    titles = [hit["title"] for hit in found["results"]]
    assert titles == ["JWT rotation", "Cache warmup"]
    assert found["results"][0]["type"] == "decision"

    plain = ok(cli("search", "jwt", "--project", "acme")).stdout
    assert plain.index("JWT rotation") < plain.index("Cache warmup")


def test_exact_duplicates_are_counted_not_stored_twice(cli: Run) -> None:
    first = as_json(cli("save", "Port", "The API listens on 8080.", "--project", "acme", "--json"))
    second = as_json(
        cli("save", "Port", "The  API listens on 8080.", "--project", "acme", "--json")
    )
    assert (first["action"], second["action"]) == ("created", "deduplicated")
    assert second["id"] == first["id"]
    assert second["observation"]["duplicate_count"] == 2
    assert as_json(cli("stats", "--project", "acme", "--json"))["observations"] == 1


def test_a_topic_key_revises_the_same_memory(cli: Run) -> None:
    ok(
        cli(
            "save",
            "Auth model",
            "Sessions in cookies.",
            "--project",
            "acme",
            "--topic",
            "architecture/auth",
        )
    )
    revised = as_json(
        cli(
            "save",
            "Auth model",
            "JWT in headers now.",
            "--project",
            "acme",
            "--topic",
            "architecture/auth",
            "--json",
        )
    )
    assert revised["action"] == "revised"
    assert revised["observation"]["revision_count"] == 2
    assert as_json(cli("search", "cookies", "--project", "acme", "--json"))["results"] == []
    hits = as_json(cli("search", "headers", "--project", "acme", "--json"))["results"]
    assert [hit["id"] for hit in hits] == [revised["id"]]


def test_private_spans_never_reach_the_database(sandbox: Sandbox, cli: Run) -> None:
    saved = as_json(
        cli(
            "save",
            "Key setup",
            "Use <private>sk-secret-4242</private> for staging.",
            "--project",
            "acme",
            "--json",
        )
    )
    assert saved["observation"]["content"] == "Use [REDACTED] for staging."
    for name in ("engram.db", "engram.db-wal"):
        path = sandbox.data_dir / name
        if path.exists():
            assert b"sk-secret-4242" not in path.read_bytes()


def test_soft_delete_hides_and_hard_delete_removes(sandbox: Sandbox, cli: Run) -> None:
    kept = as_json(cli("save", "Keep me", "alpha note", "--project", "acme", "--json"))["id"]
    soft = as_json(cli("save", "Soft gone", "alpha note two", "--project", "acme", "--json"))["id"]
    hard = as_json(cli("save", "Hard gone", "alpha note three", "--project", "acme", "--json"))[
        "id"
    ]

    ok(cli("delete", str(soft), "--project", "acme"))
    ok(cli("delete", str(hard), "--hard", "--project", "acme"))

    hits = as_json(cli("search", "alpha", "--project", "acme", "--json"))["results"]
    assert [hit["id"] for hit in hits] == [kept]
    rows = {row[0] for row in dump(sandbox)["observations"]}
    assert soft in rows and hard not in rows


def test_delete_refuses_another_projects_memory(sandbox: Sandbox, cli: Run) -> None:
    obs = as_json(cli("save", "Theirs", "belongs to billing", "--project", "billing", "--json"))[
        "id"
    ]
    before = dump(sandbox)
    message = one_line_error(cli("delete", str(obs), "--project", "acme"))
    assert "billing" in message and "--project" in message  # the CLI's own flag, not MCP's
    assert dump(sandbox) == before


def test_an_unknown_match_mode_is_a_usage_error(cli: Run) -> None:
    ok(cli("save", "Foo handling", "how foo works", "--project", "acme"))
    result = cli("search", "foo", "--project", "acme", "--match", "sometimes")
    assert result.returncode == 2
    assert "sometimes" in result.stderr


def test_bad_input_gives_one_line_and_changes_nothing(sandbox: Sandbox, cli: Run) -> None:
    ok(cli("save", "Existing", "a foo note", "--project", "acme"))
    before = dump(sandbox)

    assert "title" in one_line_error(cli("save", "   ", "content", "--project", "acme"))
    assert "content" in one_line_error(cli("save", "Title", "", "--project", "acme"))
    one_line_error(cli("save", "Title", "content", "--project", "a/b"))
    bad_scope = cli("save", "Title", "content", "--project", "acme", "--scope", "galaxy")
    assert bad_scope.returncode == 2 and "'galaxy' is not one of" in bad_scope.stderr  # a choice
    one_line_error(cli("search", "(((", "--project", "acme"))
    one_line_error(cli("delete", "abc"))
    one_line_error(cli("delete", "999", "--project", "acme"))
    one_line_error(cli("timeline", "999"))
    unknown = one_line_error(cli("search", "foo", "--project", "nope"))
    assert "acme" in unknown
    # Bytes that are not UTF-8 reach Python as lone surrogates (argv's surrogateescape).
    assert "UTF-8" in one_line_error(cli("save", "bad \udcff", "x", "--project", "acme"))
    assert "UTF-8" in one_line_error(cli("search", "\udcff\udcfefoo", "--project", "acme"))

    assert dump(sandbox) == before


def test_malformed_fts_syntax_is_searched_literally(cli: Run) -> None:
    ok(cli("save", "Foo handling", "how foo works", "--project", "acme"))
    cases = [('"foo', "all"), ("foo*", "all"), ("foo:", "all")]
    cases += [("foo AND OR (", "any"), ('" OR foo', "any"), ("NEAR( foo", "any")]
    for query, mode in cases:
        result = cli("search", query, "--project", "acme", "--match", mode, "--json")
        assert result.returncode == 0, (query, result.stderr)
        titles = [hit["title"] for hit in json.loads(result.stdout)["results"]]
        assert titles == ["Foo handling"], query
    # Operators are words like any other: the row holding them all as words ranks first.
    ok(cli("save", "Notes", "foo and or both", "--project", "acme"))
    strict = as_json(cli("search", "foo AND OR (", "--project", "acme", "--json"))
    assert [hit["title"] for hit in strict["results"]] == ["Notes", "Foo handling"]


def test_a_relative_data_dir_is_refused_before_anything_is_created(
    sandbox: Sandbox, cli: Run
) -> None:
    result = cli("stats", env={"ENGRAM_DATA_DIR": "relative/dir"})
    assert "absolute" in one_line_error(result)
    assert not (sandbox.workspace / "relative").exists()


def test_out_of_range_numbers_are_usage_errors(cli: Run) -> None:
    ok(cli("save", "Foo", "a foo note", "--project", "acme"))
    for args in (
        ("search", "foo", "--limit", "0"),
        ("search", "foo", "--limit", "21"),
        ("context", "--max-bytes", "-5"),
        ("timeline", "1", "--before", "-1"),
        ("timeline", "1", "--after", "51"),
    ):
        result = cli(*args, "--project", "acme")
        assert result.returncode == 2, (args, result.stdout)
        assert "Invalid value for" in result.stderr, args


def test_project_and_all_together_is_a_usage_error(cli: Run) -> None:
    result = cli("search", "x", "--project", "acme", "--all")
    assert result.returncode == 2


def test_reads_default_to_the_detected_project(sandbox: Sandbox, cli: Run) -> None:
    repo = sandbox.workspace / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    ok(cli("save", "Checkout flow", "three steps", cwd=repo))
    ok(cli("save", "Elsewhere flow", "other project", "--project", "other"))
    here = as_json(cli("search", "flow", "--json", cwd=repo))
    assert here["project"] == "shop"
    assert [hit["title"] for hit in here["results"]] == ["Checkout flow"]
    everywhere = as_json(cli("search", "flow", "--all", "--json", cwd=repo))
    assert len(everywhere["results"]) == 2
    env_pick = as_json(cli("search", "flow", "--json", env={"ENGRAM_PROJECT": "other"}))
    assert [hit["title"] for hit in env_pick["results"]] == ["Elsewhere flow"]


def test_context_timeline_and_stats_read_back_the_session(cli: Run) -> None:
    ids = [
        as_json(cli("save", f"Step {n}", f"did step {n}", "--project", "acme", "--json"))["id"]
        for n in range(1, 4)
    ]
    context = as_json(cli("context", "acme", "--json"))
    assert context["observations"] == 3
    assert "Step 3" in context["text"]
    compact = ok(cli("context", "--project", "acme", "--compact", "--max-bytes", "60")).stdout
    assert len(compact.encode()) <= 60

    line = as_json(cli("timeline", str(ids[1]), "--json"))
    assert [o["id"] for o in line["before"]] == [ids[0]]
    assert [o["id"] for o in line["after"]] == [ids[2]]

    stats = as_json(cli("stats", "--all", "--json"))
    assert stats["observations"] == 3 and stats["projects"] == ["acme"]


def test_similar_project_names_warn_on_save(cli: Run) -> None:
    ok(cli("save", "One", "first", "--project", "acme-api"))
    result = ok(cli("save", "Two", "second", "--project", "acmeapi"))
    assert "acme-api" in result.stderr and "warning" in result.stderr


def test_projects_list_and_merge_variants(cli: Run) -> None:
    ok(cli("save", "One", "first", "--project", "acme-api"))
    ok(cli("save", "Two", "second", "--project", "acme_api"))
    listed = as_json(cli("projects", "list", "--json"))["projects"]
    assert {entry["name"] for entry in listed} == {"acme-api", "acme_api"}

    preview = ok(cli("projects", "merge", "--from", "acme_api", "--to", "acme-api", "--dry-run"))
    assert "would move 1 observations" in preview.stdout
    assert len(as_json(cli("projects", "list", "--json"))["projects"]) == 2
    ok(cli("projects", "merge", "--from", "acme_api", "--to", "acme-api", "--apply"))
    listed = as_json(cli("projects", "list", "--json"))["projects"]
    assert [entry["name"] for entry in listed] == ["acme-api"]

    assert cli("projects", "merge", "--from", "a", "--to", "b").returncode == 2
    one_line_error(cli("projects", "merge", "--from", "billing", "--to", "acme-api", "--apply"))


def test_journey_through_the_console_script(sandbox: Sandbox, engram: Run) -> None:
    """Save, dedup, revise, redact, find, soft/hard delete — each a real `engram` process."""
    first = as_json(
        engram(
            "save",
            "Auth model",
            "Cookie <private>s3cr3t</private> sessions",
            "--project",
            "acme",
            "--topic",
            "architecture/auth",
            "--json",
        )
    )
    assert first["observation"]["content"] == "Cookie [REDACTED] sessions"
    again = as_json(
        engram(
            "save",
            "Auth model",
            "Cookie [REDACTED]  sessions",
            "--project",
            "acme",
            "--topic",
            "architecture/auth",
            "--json",
        )
    )
    assert again["action"] == "deduplicated"
    revised = as_json(
        engram(
            "save",
            "Auth model",
            "JWT sessions",
            "--project",
            "acme",
            "--topic",
            "architecture/auth",
            "--json",
        )
    )
    assert (revised["action"], revised["id"]) == ("revised", first["id"])
    ok(engram("save", "Session store", "sessions live in redis", "--project", "acme"))
    hits = as_json(engram("search", "sessions", "--project", "acme", "--json"))["results"]
    assert [hit["title"] for hit in hits] == ["Session store", "Auth model"] or hits[0][
        "title"
    ] in {
        "Session store",
        "Auth model",
    }
    assert len(hits) == 2
    ok(engram("delete", str(first["id"]), "--project", "acme"))
    assert len(as_json(engram("search", "sessions", "--project", "acme", "--json"))["results"]) == 1
    ok(engram("delete", str(first["id"]), "--hard", "--project", "acme"))
    assert first["id"] not in {row[0] for row in dump(sandbox)["observations"]}
    bad = engram("save", "", "x", "--project", "acme")
    one_line_error(bad)


def test_delete_prompt_and_only_empty_sessions(sandbox: Sandbox, cli: Run) -> None:
    from engram.memory.prompts import save_prompt
    from engram.memory.sessions import start_session
    from engram.store.db import Store

    with Store.open() as store:
        start_session(store, "s-empty", project="acme")
        start_session(store, "s-used", project="acme")
        prompt = save_prompt(store, "how do we deploy?", project="acme", session_id="s-used")
    prompt_id = prompt.prompt.id

    assert "not_empty" not in one_line_error(cli("delete", "session", "s-used"))
    ok(cli("delete", "prompt", str(prompt_id)))
    one_line_error(cli("delete", "prompt", str(prompt_id)))
    ok(cli("delete", "session", "s-used"))
    ok(cli("delete", "session", "s-empty"))
    one_line_error(cli("delete", "session", "s-empty"))
    assert dump(sandbox)["sessions"] == [] and dump(sandbox)["user_prompts"] == []
    assert cli("delete", "session").returncode == 2


def test_save_follows_init_config_then_environment_then_flag(sandbox: Sandbox, cli: Run) -> None:
    ok(cli("init", "Pinned-Name"))
    by_config = as_json(cli("save", "A", "from config", "--json"))
    by_env = as_json(cli("save", "B", "from env", "--json", env={"ENGRAM_PROJECT": "env-proj"}))
    by_flag = as_json(
        cli(
            "save",
            "C",
            "from flag",
            "--project",
            "flag-proj",
            "--json",
            env={"ENGRAM_PROJECT": "x"},
        )
    )
    assert [by_config["project"], by_env["project"], by_flag["project"]] == [
        "pinned-name",
        "env-proj",
        "flag-proj",
    ]


def test_an_ambiguous_directory_needs_a_project(sandbox: Sandbox, cli: Run) -> None:
    for name in ("api", "web"):
        (sandbox.workspace / name / ".git").mkdir(parents=True)
    error = one_line_error(cli("save", "T", "c"))
    assert "api" in error and "web" in error
    assert as_json(cli("save", "T", "c", "--project", "api", "--json"))["project"] == "api"
