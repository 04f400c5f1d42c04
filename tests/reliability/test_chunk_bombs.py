"""A chunk file cannot exhaust memory (issue 22, point 3).

A gzip bomb, a symlink to ``/dev/zero``, a fifo and an oversized file in ``.engram/chunks``
are refused with one line and exit 1; the bomb costs ``engram sync --import`` well under
100 MB above the resting peak of the same command (both peaks are printed).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import zlib
from pathlib import Path

import pytest

from engram.sync.chunk import MAX_CHUNK_BYTES
from engram.testing import Sandbox
from tests.reliability.conftest import ENGRAM, Run, assert_one_line_error

MB = 1024 * 1024


def _bomb(size: int) -> bytes:
    """A gzip member that inflates to ``size`` zero bytes, built in pieces (never held whole)."""
    deflater = zlib.compressobj(9, zlib.DEFLATED, 31)
    block, parts = b"\0" * MB, []
    for _ in range(size // MB):
        parts.append(deflater.compress(block))
    parts.append(deflater.flush())
    return b"".join(parts)


def _repo(sandbox: Sandbox) -> Path:
    repo = sandbox.workspace / "app"
    (repo / ".engram" / "chunks").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _peak_rss_mb(sandbox: Sandbox, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``engram sync --import`` and return it with its own peak RSS (MB, from wait4)."""
    out, err = cwd.parent / "out.txt", cwd.parent / "err.txt"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        proc = subprocess.Popen(
            [str(ENGRAM), "sync", "--import"], cwd=cwd, env=sandbox.env(), stdout=stdout,
            stderr=stderr, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out.read_text(), err.read_text())
    return done, usage.ru_maxrss / 1024


def test_a_gzip_bomb_is_refused_before_memory_grows(sandbox: Sandbox, engram: Run) -> None:
    repo = _repo(sandbox)
    resting = engram("sync", "--import", cwd=repo)  # binds the folder, applies nothing
    assert resting.returncode == 0, resting.stderr
    _, rest_mb = _peak_rss_mb(sandbox, repo)
    bomb = _bomb(1024 * MB)  # 1 GiB of zeros in about 1 MB
    name = hashlib.sha256(b"bomb").hexdigest()[:16]
    (repo / ".engram" / "chunks" / f"{name}.jsonl.gz").write_bytes(bomb)

    done, bomb_mb = _peak_rss_mb(sandbox, repo)

    print(f"\nbomb {len(bomb) / MB:.1f} MB -> 1024 MB; peak RSS resting {rest_mb:.0f} MB,"
          f" under the bomb {bomb_mb:.0f} MB (+{bomb_mb - rest_mb:.0f} MB);"
          f" load {os.getloadavg()[0]:.2f}")  # fmt: skip
    assert_one_line_error(done)
    assert f"{MAX_CHUNK_BYTES}-byte cap" in done.stderr
    assert bomb_mb - rest_mb < 100


@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "fifo", "oversized", "folder"])
def test_a_chunk_that_is_not_a_small_regular_file_is_refused(
    sandbox: Sandbox, engram: Run, kind: str
) -> None:
    repo = _repo(sandbox)
    path = repo / ".engram" / "chunks" / "0123456789abcdef.jsonl.gz"
    if kind == "symlink to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        with open(path, "wb") as handle:
            handle.truncate(MAX_CHUNK_BYTES + 1)  # sparse: no disk used

    done = engram("sync", "--import", cwd=repo)

    assert_one_line_error(done)
    expected = "over the" if kind == "oversized" else "not a regular file"
    assert expected in done.stderr and "0123456789abcdef" in done.stderr


def test_an_export_larger_than_one_chunk_is_split_and_imports_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram.sync import export
    from tests.sync.replica import Replica

    monkeypatch.setattr(export, "CHUNK_CONTENT_BYTES", 4000)
    a, b = Replica(tmp_path / "a"), Replica(tmp_path / "b")
    try:
        for n in range(30):
            a.save(f"note {n}", "x" * 500)
        report = export.export_chunk(a.store, a.folder, project=None)
        assert len(report.chunk_ids) > 3 and report.mutations >= 30
        assert all(p.stat().st_size < 4000 for p in a.folder.chunk_files().values())
        b.pull_from(a)
        b.import_()
        b_rows = b.store.connection.execute("SELECT count(*) FROM observations").fetchone()[0]
        assert b_rows == 30
    finally:
        a.close()
        b.close()
