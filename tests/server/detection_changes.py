"""Changes to what project detection reads, made between two ``mem_search`` calls.

A world of three confirmed repositories (``src/api``, ``src/web``, ``src/ops``; web and ops each
with a linked worktree under ``wt/``). Each scenario starts a server (or the tools in-process) in
one folder and is a list of steps: a change on disk, then what the next call must report:
``(project, project_source, project_path)`` or ``("error", code)``.

Before each change every file is dated a minute back (:meth:`World.settle`): a file written less
than two seconds before detection read it is never remembered, so without this the cache would
not be exercised at all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.memory.project_binding import BINDINGS_FILE, confirm_here
from engram.testing import Sandbox

Seen = tuple[str, ...]
ENGRAM = str(Path(sys.executable).parent / "engram")
GIT_USER = ["-c", "user.name=Engram Tests", "-c", "user.email=tests@example.invalid"]


def _git(*args: str) -> None:
    subprocess.run(["git", *GIT_USER, *args], check=True, capture_output=True)


@dataclass
class World:
    """The repositories of one test, below ``root``."""

    sandbox: Sandbox
    root: Path

    @classmethod
    def make(cls, sandbox: Sandbox) -> World:
        """Three repositories with remotes, two linked worktrees, all confirmed."""
        world = cls(sandbox, Path(os.path.realpath(sandbox.root)))
        for name in ("api", "web", "ops"):
            folder = world.src(name)
            folder.mkdir(parents=True)
            _git("init", "-q", str(folder))
            _git("-C", str(folder), "remote", "add", "origin", f"git@github.com:team/{name}.git")
            confirm_here(sandbox.data_dir, folder)
        for name in ("web", "ops"):
            _git("-C", str(world.src(name)), "commit", "-q", "--allow-empty", "-m", "start")
            _git("-C", str(world.src(name)), "worktree", "add", "-q", str(world.worktree(name)))
        return world

    def src(self, name: str) -> Path:
        return self.root / "src" / name

    def worktree(self, name: str) -> Path:
        return self.root / "wt" / f"{name}-feature"

    def settle(self) -> None:
        """Date every file a minute back, so what detection reads next may be remembered."""
        past = time.time() - 60
        for top in (self.root, self.sandbox.data_dir):
            for folder, _, files in os.walk(top):
                for name in files:
                    os.utime(os.path.join(folder, name), (past, past))


def seen(result: dict[str, Any]) -> Seen:
    """What a ``mem_search`` result says about the project (or its error code)."""
    data = result["structuredContent"]["data"]
    if result.get("isError"):
        return ("error", data["code"])
    return (data["project"], data["project_source"], data["project_path"])


def _edit_remote_in_place(world: World) -> None:
    config = world.src("api") / ".git" / "config"
    with open(config, "r+", encoding="utf-8") as handle:  # same inode, same size
        text = handle.read()
        handle.seek(0)
        handle.write(text.replace("team/api", "team/apx"))


def _set_url(world: World) -> None:
    _git("-C", str(world.src("api")), "remote", "set-url", "origin", "https://github.com/x/api")


def _confirm(world: World) -> None:
    done = subprocess.run(
        [ENGRAM, "init", "--confirm"],
        cwd=world.src("api"),
        env=world.sandbox.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def _unbind(world: World) -> None:
    path = world.sandbox.data_dir / BINDINGS_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data["projects"]["api"] = ["remote:github.com/team/elsewhere"]
    path.write_text(json.dumps(data), encoding="utf-8")


def _relabel(world: World) -> None:
    binding = world.src("api") / ".git" / "engram-project.json"
    binding.write_text(json.dumps({"format": 1, "id": "x", "label": "api-v2"}), encoding="utf-8")


def _config(name: str) -> Callable[[World], None]:
    def write(world: World) -> None:
        folder = world.src("api") / ".engram"
        folder.mkdir(exist_ok=True)
        (folder / "config.json").write_text(json.dumps({"project_name": name}), encoding="utf-8")

    return write


def _nested_repository(world: World) -> None:
    _git("init", "-q", str(world.src("api") / "tools"))


def _gitdir_of(world: World, name: str) -> str:
    return (world.worktree(name) / ".git").read_text(encoding="utf-8")


def _dot_git_becomes_link(world: World) -> None:
    api = world.src("api")
    (api / ".git").rename(api / "old-git")
    (api / ".git").write_text(_gitdir_of(world, "web"), encoding="utf-8")


def _link_retargeted(world: World) -> None:
    (world.worktree("web") / ".git").write_text(_gitdir_of(world, "ops"), encoding="utf-8")


def _commondir_retargeted(world: World) -> None:
    commondir = world.src("web") / ".git" / "worktrees" / "web-feature" / "commondir"
    commondir.write_text(str(world.src("ops") / ".git") + "\n", encoding="utf-8")


def _link_through_symlink(world: World) -> Path:
    """The web worktree, its ``.git`` naming its git dir through the symlink ``links/feature``."""
    links = world.root / "links"
    links.mkdir()
    (links / "feature").symlink_to(world.src("web") / ".git" / "worktrees" / "web-feature")
    (world.worktree("web") / ".git").write_text("gitdir: ../../links/feature\n", encoding="utf-8")
    return world.worktree("web")


def _symlink_retargeted(world: World) -> None:
    link = world.root / "links" / "feature"
    link.unlink()
    link.symlink_to(world.src("ops") / ".git" / "worktrees" / "ops-feature")


def _delete_repository(world: World) -> None:
    shutil.rmtree(world.src("api") / ".git")


def _move_checkout(world: World) -> None:
    world.src("api").rename(world.src("api-moved"))


def _delete_folder(world: World) -> None:
    shutil.rmtree(world.src("api"))


def _api(world: World) -> Seen:
    return ("api", "git_remote", str(world.src("api")))


def _refused(world: World) -> Seen:
    return ("error", "project.unconfirmed")


Step = tuple[Callable[[World], None], Callable[[World], Seen]]


@dataclass
class Scenario:
    """Where the calls run, what they report there first, and the steps."""

    start: Callable[[World], Path]
    first: Callable[[World], Seen]
    steps: list[Step]


def _in_api(world: World) -> Path:
    return world.src("api")


SCENARIOS: dict[str, Scenario] = {
    "remote edited in place": Scenario(_in_api, _api, [(_edit_remote_in_place, _refused)]),
    "git remote set-url, then engram init --confirm": Scenario(
        _in_api, _api, [(_set_url, _refused), (_confirm, _api)]
    ),
    "binding removed from project-bindings.json": Scenario(_in_api, _api, [(_unbind, _refused)]),
    "clone binding relabelled": Scenario(
        _in_api, _api, [(_relabel, lambda w: ("api-v2", "git_remote", str(w.src("api"))))]
    ),
    "config appears, then is edited": Scenario(
        _in_api,
        _api,
        [
            (_config("payments"), lambda w: ("payments", "config", str(w.src("api")))),
            (_config("billing"), lambda w: ("billing", "config", str(w.src("api")))),
        ],
    ),
    "a repository appears below the root": Scenario(
        lambda w: _made(w.src("api") / "tools"),
        lambda w: ("api", "git_remote", str(w.src("api"))),
        [(_nested_repository, lambda w: ("tools", "git_root", str(w.src("api") / "tools")))],
    ),
    ".git replaced by a worktree link": Scenario(
        _in_api,
        _api,
        [(_dot_git_becomes_link, lambda w: ("web", "git_remote", str(w.src("api"))))],
    ),
    "worktree link retargeted": Scenario(
        lambda w: w.worktree("web"),
        lambda w: ("web", "git_remote", str(w.worktree("web"))),
        [(_link_retargeted, lambda w: ("ops", "git_remote", str(w.worktree("web"))))],
    ),
    "worktree commondir retargeted": Scenario(
        lambda w: w.worktree("web"),
        lambda w: ("web", "git_remote", str(w.worktree("web"))),
        [(_commondir_retargeted, lambda w: ("ops", "git_remote", str(w.worktree("web"))))],
    ),
    "symlinked git dir retargeted": Scenario(
        _link_through_symlink,
        lambda w: ("web", "git_remote", str(w.worktree("web"))),
        [(_symlink_retargeted, lambda w: ("ops", "git_remote", str(w.worktree("web"))))],
    ),
    "repository deleted": Scenario(_in_api, _api, [(_delete_repository, _refused)]),
    "checkout moved": Scenario(
        _in_api,
        _api,
        [(_move_checkout, lambda w: ("api", "git_remote", str(w.src("api-moved"))))],
    ),
    "folder deleted": Scenario(
        _in_api, _api, [(_delete_folder, lambda w: ("error", "project.cwd_missing"))]
    ),
}


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def play(
    sandbox: Sandbox,
    scenario: Scenario,
    start: Callable[[Path], Callable[[], dict[str, Any]]],
    remembered: Callable[[], bool] = lambda: True,
) -> None:
    """Run ``scenario``: ``start(folder)`` gives the search to call; before each change the
    last answer is checked again on settled files, and ``remembered()`` must say the cache
    holds it."""
    world = World.make(sandbox)
    folder = scenario.start(world)
    search = start(folder)
    expected = scenario.first(world)
    for change, after in scenario.steps:
        world.settle()
        assert seen(search()) == expected
        assert remembered(), "the detection was not remembered: the test would prove nothing"
        change(world)
        expected = after(world)
        assert seen(search()) == expected
