"""Data-dir resolution, privacy and the network-filesystem refusal."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engram.errors import EngramError
from engram.store.datadir import filesystem_type, resolve_data_dir
from engram.store.db import Store
from engram.testing import Sandbox


def test_env_var_wins_when_absolute(tmp_path: Path) -> None:
    assert resolve_data_dir({"ENGRAM_DATA_DIR": str(tmp_path), "HOME": "/nowhere"}) == tmp_path


@pytest.mark.parametrize("value", ["", "   ", "\t"])
def test_blank_env_var_falls_back_to_home(value: str, tmp_path: Path) -> None:
    env = {"ENGRAM_DATA_DIR": value, "HOME": str(tmp_path)}
    assert resolve_data_dir(env) == tmp_path / ".engram"


def test_home_is_read_per_call(tmp_path: Path) -> None:
    assert resolve_data_dir({"HOME": str(tmp_path / "a")}) == tmp_path / "a" / ".engram"
    assert resolve_data_dir({"HOME": str(tmp_path / "b")}) == tmp_path / "b" / ".engram"


@pytest.mark.parametrize("value", ["data", "./data", "~/engram", "../x"])
def test_relative_data_dir_is_rejected(value: str) -> None:
    with pytest.raises(EngramError) as info:
        resolve_data_dir({"ENGRAM_DATA_DIR": value, "HOME": "/tmp"})
    assert info.value.code == "store.relative_data_dir"
    assert info.value.remedy


def test_store_creates_private_dir_and_db(sandbox: Sandbox) -> None:
    with Store.open() as store:
        assert store.path == sandbox.data_dir / "engram.db"
    assert stat.S_IMODE(os.stat(sandbox.data_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(sandbox.data_dir / "engram.db").st_mode) == 0o600


def _mountinfo(tmp_path: Path, *entries: tuple[str, str]) -> Path:
    for point, _ in entries:
        Path(point).mkdir(parents=True, exist_ok=True)  # a mount point always exists
    lines = [
        f"{n} 1 0:{n} / {point} rw,relatime - {fstype} src rw"
        for n, (point, fstype) in enumerate(entries, start=20)
    ]
    path = tmp_path / "mountinfo"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("fstype", ["nfs", "nfs4", "cifs", "smb3", "smbfs"])
def test_network_filesystem_is_refused_before_any_file_exists(tmp_path: Path, fstype: str) -> None:
    data = tmp_path / "share" / "engram"
    info = _mountinfo(tmp_path, ("/", "ext4"), (str(tmp_path / "share"), fstype))
    with pytest.raises(EngramError) as caught:
        Store.open(data, mountinfo=info)
    assert caught.value.code == "store.network_filesystem"
    assert "ENGRAM_DATA_DIR" in caught.value.remedy
    assert not data.exists()


def test_longest_mount_prefix_wins(tmp_path: Path) -> None:
    # A local mount nested inside an NFS mount is local.
    info = _mountinfo(
        tmp_path, ("/", "ext4"), (str(tmp_path), "nfs"), (str(tmp_path / "local"), "ext4")
    )
    assert filesystem_type(tmp_path / "local" / "engram", info) == "ext4"
    assert filesystem_type(tmp_path / "localish" / "engram", info) == "nfs"
    with Store.open(tmp_path / "local" / "engram", mountinfo=info) as store:
        assert store.integrity_check() == "ok"


def test_escaped_mount_point(tmp_path: Path) -> None:
    spaced = tmp_path / "my share"
    spaced.mkdir()
    escaped = str(spaced).replace(" ", "\\040")
    info = tmp_path / "mountinfo"
    info.write_text(f"1 0 0:1 / / rw - ext4 a rw\n2 1 0:2 / {escaped} rw - cifs b rw\n")
    assert filesystem_type(spaced / "x", info) == "cifs"


def test_unknown_filesystem_is_allowed(tmp_path: Path) -> None:
    with Store.open(tmp_path / "d", mountinfo=tmp_path / "missing") as store:
        assert store.integrity_check() == "ok"


def test_data_dir_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("not a dir")
    with pytest.raises(EngramError) as caught:
        Store.open(target)
    assert caught.value.code == "store.bad_data_dir"
    assert target.read_text() == "not a dir"


@pytest.mark.parametrize(
    "raw",
    ["/a/b", "/a//b/", "/a/./b/.", "//net/share", "///a", "a/../b", "./a", "", ".", "/", "a/"],
)
def test_plain_paths_are_spelled_as_pathlib_spells_them(raw: str) -> None:
    from engram.store.datadir import plain_path

    assert plain_path(raw) == str(Path(raw))


def test_a_data_dir_with_a_trailing_slash_is_the_same_folder(tmp_path: Path) -> None:
    from engram.store.datadir import data_dir_of

    env = {"ENGRAM_DATA_DIR": f"{tmp_path}//engram/./", "HOME": "/nowhere"}
    assert data_dir_of(env) == str(tmp_path / "engram") == str(resolve_data_dir(env))
    store = Store.open(env=env)
    try:
        assert store.path == tmp_path / "engram" / "engram.db"
    finally:
        store.close()
