"""Project identity: name normalization and the six detection cases, on real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.errors import EngramError
from engram.memory.git_repo import BINDING_FILE, MAX_READ_BYTES
from engram.memory.project import (
    detect_project,
    normalize_project_name,
    require_known,
    require_single,
    resolve_project,
    similar_projects,
    write_project_config,
)
from engram.testing import Sandbox


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def make_repo(path: Path, remote: str | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    if remote:
        git(path, "remote", "add", "origin", remote)
    return path


# --- normalization -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Engram", "engram"),
        ("  ENGRAM  ", "engram"),
        ("my--app", "my-app"),
        ("my___app", "my_app"),
        ("My-_App", "my-_app"),
    ],
)
def test_normalization_lowercases_trims_and_collapses(raw: str, expected: str) -> None:
    named = normalize_project_name(raw)
    assert named.name == expected
    assert named.warning is not None and expected in named.warning


def test_an_already_normal_name_has_no_warning() -> None:
    assert normalize_project_name("engram-memory").warning is None


def test_hyphen_and_underscore_stay_distinct() -> None:
    assert (
        normalize_project_name("engram-memory").name != normalize_project_name("engram_memory").name
    )


@pytest.mark.parametrize("raw", ["", "   ", "a/b", "..", "C:\\work\\app", "bad\x00name"])
def test_invalid_names_are_rejected_with_one_line(raw: str) -> None:
    with pytest.raises(EngramError) as caught:
        normalize_project_name(raw)
    assert caught.value.code == "project.invalid_name"
    assert "\n" not in caught.value.one_line()


# --- detection -----------------------------------------------------------------------------


def test_config_wins_inside_a_git_repo_and_nearest_config_wins_in_a_monorepo(
    sandbox: Sandbox,
) -> None:
    repo = make_repo(sandbox.workspace / "mono", remote="git@github.com:acme/mono.git")
    backend = repo / "backend" / "src"
    backend.mkdir(parents=True)
    write_project_config(repo / "backend", "Backend", force=False)
    write_project_config(repo, "mono-root", force=False)

    deep = detect_project(backend)
    assert (deep.project, deep.source, deep.path) == ("backend", "config", str(repo / "backend"))
    assert detect_project(repo).project == "mono-root"


def test_config_above_the_git_root_does_not_leak_in(sandbox: Sandbox) -> None:
    write_project_config(sandbox.workspace, "outer", force=False)
    repo = make_repo(sandbox.workspace / "inner")
    detected = detect_project(repo)
    assert (detected.project, detected.source) == ("inner", "git_root")


def test_git_remote_names_the_project_and_survives_a_remote_rename(sandbox: Sandbox) -> None:
    repo = make_repo(sandbox.workspace / "checkout", remote="https://github.com/acme/Acme-API.git")
    (repo / "pkg").mkdir()
    first = detect_project(repo / "pkg")
    assert (first.project, first.source, first.path) == ("acme-api", "git_remote", str(repo))
    assert (repo / ".git" / BINDING_FILE).is_file()

    git(repo, "remote", "set-url", "origin", "git@github.com:acme/renamed.git")
    assert detect_project(repo).project == "acme-api"


def test_git_root_without_origin_uses_the_root_basename(sandbox: Sandbox) -> None:
    repo = make_repo(sandbox.workspace / "Local_Tool")
    detected = detect_project(repo)
    assert (detected.project, detected.source) == ("local_tool", "git_root")


def test_linked_worktree_shares_the_clone_binding(sandbox: Sandbox) -> None:
    repo = make_repo(sandbox.workspace / "main-clone", remote="git@host:team/service.git")
    git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@e",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    assert detect_project(repo).project == "service"
    git(repo, "remote", "set-url", "origin", "git@host:team/other.git")
    git(repo, "worktree", "add", "-q", str(sandbox.workspace / "wt"), "-b", "feature")
    detected = detect_project(sandbox.workspace / "wt")
    assert (detected.project, detected.path) == ("service", str(sandbox.workspace / "wt"))


def test_a_corrupt_binding_fails_closed(sandbox: Sandbox) -> None:
    repo = make_repo(sandbox.workspace / "repo")
    (repo / ".git" / BINDING_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(EngramError) as caught:
        detect_project(repo)
    assert caught.value.code == "project.binding_unavailable"


def test_single_git_child_is_promoted_with_a_warning(sandbox: Sandbox) -> None:
    make_repo(sandbox.workspace / "only", remote="git@host:team/only-child.git")
    (sandbox.workspace / "notes").mkdir()
    detected = detect_project(sandbox.workspace)
    assert (detected.project, detected.source) == ("only-child", "git_child")
    assert detected.path == str(sandbox.workspace / "only")
    assert detected.warning and "only" in detected.warning


def test_several_git_children_are_ambiguous(sandbox: Sandbox) -> None:
    make_repo(sandbox.workspace / "a", remote="git@host:team/alpha.git")
    make_repo(sandbox.workspace / "b")
    make_repo(sandbox.workspace / "node_modules" / "x")
    detected = detect_project(sandbox.workspace)
    assert detected.source == "ambiguous"
    assert detected.project == ""
    assert detected.available_projects == ("alpha", "b")
    with pytest.raises(EngramError) as caught:
        require_single(detected)
    assert caught.value.details["available_projects"] == ["alpha", "b"]


def test_parent_config_beats_child_scanning(sandbox: Sandbox) -> None:
    make_repo(sandbox.workspace / "a")
    make_repo(sandbox.workspace / "b")
    write_project_config(sandbox.workspace, "aggregator", force=False)
    detected = detect_project(sandbox.workspace)
    assert (detected.project, detected.source) == ("aggregator", "config")


def test_plain_directory_uses_its_basename(sandbox: Sandbox) -> None:
    folder = sandbox.workspace / "Scratch Pad"
    folder.mkdir()
    detected = detect_project(folder)
    assert (detected.project, detected.source) == ("scratch pad", "dir_basename")


def test_invalid_config_fails_closed(sandbox: Sandbox) -> None:
    config = sandbox.workspace / ".engram" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"project_name": "a/b"}), encoding="utf-8")
    with pytest.raises(EngramError) as caught:
        detect_project(sandbox.workspace)
    assert caught.value.code == "project.bad_config"
    config.write_text("[" * 100_000, encoding="utf-8")  # too deep for the JSON decoder
    with pytest.raises(EngramError) as caught:
        detect_project(sandbox.workspace)
    assert caught.value.code == "project.bad_config"


# --- resolution and guards -----------------------------------------------------------------


def test_explicit_beats_override_beats_environment_beats_cwd(sandbox: Sandbox) -> None:
    env = {"ENGRAM_PROJECT": "From-Env"}
    cwd = sandbox.workspace
    assert resolve_project("Named", cwd, process_override="proc", environ=env).project == "named"
    assert resolve_project(None, cwd, process_override="proc", environ=env).source == (
        "process_override"
    )
    assert resolve_project(None, cwd, environ=env).project == "from-env"
    assert resolve_project(None, cwd, environ={}).source == "dir_basename"


def test_environment_project_must_be_a_name_not_a_path(sandbox: Sandbox) -> None:
    with pytest.raises(EngramError):
        resolve_project(None, sandbox.workspace, environ={"ENGRAM_PROJECT": "/home/me/app"})


def test_init_refuses_to_overwrite_without_force(sandbox: Sandbox) -> None:
    write_project_config(sandbox.workspace, "first", force=False)
    with pytest.raises(EngramError) as caught:
        write_project_config(sandbox.workspace, "second", force=False)
    assert caught.value.code == "project.config_exists"
    write_project_config(sandbox.workspace, "second", force=True)
    assert detect_project(sandbox.workspace).project == "second"


def test_unknown_project_lists_the_known_ones() -> None:
    with pytest.raises(EngramError) as caught:
        require_known("nope", ["b", "a"])
    assert caught.value.details["available_projects"] == ["a", "b"]
    require_known("a", ["a"])


def test_similar_projects_catch_separator_and_typo_variants() -> None:
    known = ["acme-api", "billing", "frontend"]
    assert similar_projects("acmeapi", known) == ["acme-api"]
    assert similar_projects("billng", known) == ["billing"]
    assert similar_projects("unrelated", known) == []


def test_normalized_name_unpacks_as_name_and_warning() -> None:
    name, warning = normalize_project_name("Acme--API")
    assert (name, warning is not None) == ("acme-api", True)


# --- a folder from anyone: files that never end ----------------------------------------------


def _unpacked_checkout(root: Path, config: str) -> Path:
    """A folder holding a ``.git`` as an unpacked archive could: its ``config`` is
    ``config`` (a symlink to a device, or a FIFO)."""
    git_dir = root / ".git"
    (git_dir / "objects").mkdir(parents=True)
    (git_dir / "refs").mkdir()
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    if config == "fifo":
        os.mkfifo(git_dir / "config")
    else:
        (git_dir / "config").symlink_to(config)
    return root


@pytest.mark.parametrize("config", ["/dev/zero", "/dev/urandom", "fifo"])
def test_a_git_config_that_never_ends_is_not_read(sandbox: Sandbox, config: str) -> None:
    repo = _unpacked_checkout(sandbox.workspace / "Unpacked", config)
    detected = detect_project(repo)  # returns at once, with no origin to name the project
    assert (detected.project, detected.source) == ("unpacked", "git_root")


def test_a_project_config_above_the_bound_fails_closed_in_one_line(sandbox: Sandbox) -> None:
    big = sandbox.root / "big.json"
    big.write_text('{"project_name": "acme", "pad": "' + "x" * MAX_READ_BYTES + '"}')
    config = sandbox.workspace / ".engram" / "config.json"
    config.parent.mkdir()
    config.symlink_to(big)
    with pytest.raises(EngramError) as caught:
        detect_project(sandbox.workspace)
    assert caught.value.code == "project.bad_config"
    assert "larger than 1,048,576 bytes" in caught.value.message
    assert "\n" not in caught.value.message


def test_the_cli_in_such_a_folder_answers_at_once(sandbox: Sandbox) -> None:
    repo = _unpacked_checkout(sandbox.workspace / "unpacked", "/dev/zero")
    done = subprocess.run(
        [str(Path(sys.executable).parent / "engram"), "context"],
        cwd=repo, env=sandbox.env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
