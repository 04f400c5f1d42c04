"""A remembered detection answers what detection answers, and is only kept when it is safe to.

What each change on disk does to a remembered detection is tested through the tools in
tests/server/test_detection_follows_changes.py; this file covers what is remembered at all.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from engram.errors import EngramError
from engram.memory.detection_cache import MAX_ENTRIES, DetectionCache
from engram.memory.project import detect_project
from engram.memory.project_binding import origin_of
from engram.testing import Sandbox
from tests.memory.test_project import make_repo


def _settle(*tops: Path) -> None:
    past = time.time() - 60
    for top in tops:
        for folder, _, files in os.walk(top):
            for name in files:
                os.utime(os.path.join(folder, name), (past, past))


@pytest.mark.parametrize("layout", ["remote", "root", "config", "config-no-repo"])
def test_a_remembered_detection_is_what_detection_says(sandbox: Sandbox, layout: str) -> None:
    folder = sandbox.root / "src" / "shop"
    if layout == "config-no-repo":
        (folder / ".engram").mkdir(parents=True)
    else:
        make_repo(folder, "git@github.com:team/Shop.git" if layout == "remote" else None)
    if layout.startswith("config"):
        (folder / ".engram").mkdir(exist_ok=True)
        (folder / ".engram" / "config.json").write_text('{"project_name": "Store"}')
    cache = DetectionCache()
    cache.detect(folder)  # the first call writes the clone's binding
    _settle(sandbox.root)
    remembered = cache.detect(folder)
    assert remembered == detect_project(folder)
    assert cache.detect(folder) is remembered
    assert cache.origin_of(remembered) == origin_of(remembered)


def test_the_binding_warning_is_given_once_as_without_the_cache(sandbox: Sandbox) -> None:
    plain, cached = (
        make_repo(sandbox.root / name, f"git@github.com:team/My--App-{name}.git")
        for name in ("plain", "cached")
    )
    cache = DetectionCache()
    first, again = cache.detect(cached), cache.detect(cached)
    assert first.warning and "my-app-cached" in first.warning
    assert again.warning is None
    assert [first.warning is None, again.warning is None] == [
        detect_project(plain).warning is None,
        detect_project(plain).warning is None,
    ]


def test_files_written_just_now_are_read_again(sandbox: Sandbox) -> None:
    folder = make_repo(sandbox.root / "api", "git@github.com:team/api.git")
    cache = DetectionCache()
    cache.detect(folder)  # writes the binding: just now
    assert cache.detect(folder) is not cache.detect(folder)
    _settle(folder)
    cache.detect(folder)
    assert cache.detect(folder) is cache.detect(folder)


def test_a_failed_detection_is_not_remembered(sandbox: Sandbox) -> None:
    folder = make_repo(sandbox.root / "api")
    config = folder / ".engram" / "config.json"
    config.parent.mkdir()
    config.write_text("{not json")
    _settle(folder)
    cache = DetectionCache()
    for _ in range(2):
        with pytest.raises(EngramError) as failed:
            cache.detect(folder)
        assert failed.value.code == "project.bad_config"
    config.write_text('{"project_name": "fixed"}')
    assert cache.detect(folder).project == "fixed"


def test_a_folder_without_a_repository_is_scanned_on_every_call(sandbox: Sandbox) -> None:
    folder = sandbox.root / "work"
    folder.mkdir()
    _settle(sandbox.root)
    cache = DetectionCache()
    assert cache.detect(folder).source == "dir_basename"
    make_repo(folder / "only-child", "git@github.com:team/child.git")
    child = cache.detect(folder)
    assert (child.project, child.source) == ("child", "git_child")


def test_remembered_folders_are_bounded(sandbox: Sandbox) -> None:
    cache = DetectionCache()
    folders = []
    for n in range(MAX_ENTRIES + 8):
        folder = sandbox.root / f"app{n}"
        (folder / ".engram").mkdir(parents=True)
        (folder / ".engram" / "config.json").write_text(f'{{"project_name": "app{n}"}}')
        folders.append(folder)
    _settle(sandbox.root)
    for folder in folders:
        assert cache.detect(folder).project == folder.name
    assert len(cache._entries) == MAX_ENTRIES
    assert cache.detect(folders[-1]) is cache.detect(folders[-1])
