"""Export to a file, import into an empty data dir: the same answers, through the CLI alone.

Export and import of the round trip run the real console script; the answers are compared
through the in-process entry point.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram.testing import Sandbox

Run = Callable[..., subprocess.CompletedProcess[str]]


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def answers(cli: Run, env: dict[str, str]) -> dict[str, Any]:
    """What a user sees: searches, contexts, a timeline and stats (JSON)."""
    return {
        "search": json.loads(ok(cli("search", "cache", "--all", "--json", env=env))),
        "search_any": json.loads(
            ok(cli("search", "jwt redis", "--match", "any", "--project", "acme", "--json", env=env))
        ),
        "context": json.loads(ok(cli("context", "acme", "--json", env=env))),
        "context_all": json.loads(ok(cli("context", "--all", "--json", env=env))),
        "timeline": json.loads(ok(cli("timeline", "2", "--json", env=env))),
        "stats": json.loads(ok(cli("stats", "--all", "--json", env=env))),
    }


def populate(cli: Run) -> None:
    saves = [
        ("Cache layer", "Redis cache in front of the API", "acme", []),
        ("JWT auth", "Tokens signed with RS256; cache the JWKS", "acme", ["--type", "decision"]),
        ("Billing cache", "Invoices cached for 60s", "billing", []),
        ("Auth model", "Cookie sessions", "acme", ["--topic", "architecture/auth"]),
        ("Auth model", "JWT in headers", "acme", ["--topic", "architecture/auth"]),
        ("Temp", "to be deleted cache", "acme", []),
    ]
    for title, content, project, extra in saves:
        ok(cli("save", title, content, "--project", project, *extra))
    ok(cli("delete", "5", "--project", "acme"))


def test_export_import_into_an_empty_data_dir_gives_identical_answers(
    sandbox: Sandbox, cli: Run, engram: Run
) -> None:
    populate(cli)
    backup = sandbox.root / "backup.json"
    ok(engram("export", str(backup), "--all"))  # the real console script, end to end
    data = json.loads(backup.read_text())
    assert data["version"] == "0.2.0"

    fresh = {"ENGRAM_DATA_DIR": str(sandbox.root / "fresh")}
    imported = json.loads(ok(engram("import", str(backup), "--json", env=fresh)))
    assert imported["observations"] == len(data["observations"]) == 5
    assert answers(cli, fresh) == answers(cli, {})


def test_project_export_goes_to_stdout_and_only_holds_that_project(cli: Run) -> None:
    populate(cli)
    data = json.loads(ok(cli("export", "--project", "billing")))
    assert {o["project"] for o in data["observations"]} == {"billing"}


def test_a_corrupt_or_foreign_file_imports_nothing(sandbox: Sandbox, cli: Run) -> None:
    populate(cli)
    good = sandbox.root / "good.json"
    ok(cli("export", str(good), "--all"))
    before = json.loads(ok(cli("export", "--all")))

    data = json.loads(good.read_text())
    data["observations"].append({"sync_id": "obs-new", "title": "no content", "project": "acme"})
    cases: dict[str, str] = {
        "truncated.json": good.read_text()[:200],
        "version.json": json.dumps({**json.loads(good.read_text()), "version": "3.0.0"}),
        "missing-field.json": json.dumps(data),
        "binary.json": "\x00\x01",
    }
    for name, text in cases.items():
        path = sandbox.root / name
        path.write_text(text)
        result = cli("import", str(path))
        assert result.returncode == 1, (name, result.stderr)
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), name

    missing = cli("import", str(sandbox.root / "nope.json"))
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1
    after = json.loads(ok(cli("export", "--all")))
    before.pop("exported_at")
    after.pop("exported_at")
    assert after == before


def test_export_to_an_unwritable_place_leaves_no_file(sandbox: Sandbox, cli: Run) -> None:
    populate(cli)
    target = sandbox.root / "no-such-dir" / "backup.json"
    result = cli("export", str(target), "--all")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert not Path(target).parent.exists()
