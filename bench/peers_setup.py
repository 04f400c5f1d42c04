"""The servers ``bench/peers_bench.py`` compares, installed into scratch places of their own.

- ``engram-mcp``: this checkout (the interpreter running the bench).
- ``engram-mcp v0.1.0``: the tagged release, installed from this repository's git history into
  a scratch venv (``git archive``). A clone without tags (CI clones often have none) falls back
  to the tag's commit id; a shallow clone without that commit skips it, saying so.
- ``@modelcontextprotocol/server-memory`` (npm): pinned in scripts/install-host-clis.
- ``basic-memory`` (PyPI): pinned below, installed into a scratch venv of a Python >= 3.12.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(__file__).resolve().parent / ".cache" / "peers"
OLD_TAG = "v0.1.0"
OLD_COMMIT = "52257f5"  # what v0.1.0 points at, for clones that carry no tags
BASIC_MEMORY = "basic-memory==0.24.1"
NPM_PREFIX = Path(os.environ.get("ENGRAM_TEST_CACHE", Path.home() / ".cache" / "engram-test"))


def say(text: str) -> None:
    """Progress goes to stderr; stdout carries the report."""
    print(text, file=sys.stderr, flush=True)


def current_engram() -> list[str]:
    """This checkout's ``engram-mcp``."""
    return [str(Path(sys.executable).with_name("engram-mcp"))]


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, check=False)


def old_engram_ref() -> str | None:
    """The tag if this clone has it, else the commit it names, else None."""
    for ref in (OLD_TAG, OLD_COMMIT):
        if _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode == 0:
            return ref
    return None


def old_engram() -> list[str] | None:
    """``engram-mcp`` of v0.1.0 from a scratch venv (installed on first use), or None."""
    venv = CACHE / "engram-v0.1.0"
    binary = venv / "bin" / "engram-mcp"
    if binary.exists():
        return [str(binary)]
    ref = old_engram_ref()
    if ref is None:
        say(
            f"peers: neither tag {OLD_TAG} nor commit {OLD_COMMIT} is in this clone "
            "(a shallow CI clone?): run `git fetch --tags` to compare with v0.1.0; skipping it"
        )
        return None
    say(f"peers: installing engram {ref} into {venv} ...")
    source = CACHE / "engram-v0.1.0-src"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    archive = _git("archive", "--format=tar", ref)
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(source)], check=True)
    return [str(binary)]


def node_memory() -> list[str] | None:
    """The reference Node memory server, installed on first use at the version pinned in
    scripts/install-host-clis (npm, into the test cache), or None saying why."""
    binary = NPM_PREFIX / "npm" / "node_modules" / ".bin" / "mcp-server-memory"
    if binary.exists():
        return [str(binary)]
    pin = node_memory_pin()
    if pin is None or shutil.which("npm") is None:
        why = "npm is not installed" if pin else "scripts/install-host-clis pins no version"
        say(f"peers: @modelcontextprotocol/server-memory is missing and {why}")
        return None
    say(f"peers: installing {pin} into {NPM_PREFIX / 'npm'} (npm registry) ...")
    (NPM_PREFIX / "npm").mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["npm", "install", "--prefix", str(NPM_PREFIX / "npm"), "--no-fund", "--no-audit", pin],
        check=False,
        stdout=sys.stderr,
    )
    if done.returncode != 0 or not binary.exists():
        say(f"peers: npm could not install {pin} (exit {done.returncode})")
        return None
    return [str(binary)]


def node_memory_pin() -> str | None:
    """``@modelcontextprotocol/server-memory@VERSION`` as scripts/install-host-clis pins it."""
    script = (ROOT / "scripts" / "install-host-clis").read_text(encoding="utf-8")
    found = re.search(r'"(@modelcontextprotocol/server-memory@[^"\s]+)"', script)
    return found.group(1) if found else None


def _python_312() -> str | None:
    """A Python >= 3.12 that runs: on PATH, else one pyenv installed (its shims refuse a
    version that is not selected, so the versions folder is read too)."""
    candidates = [shutil.which(name) for name in ("python3.13", "python3.12")]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    for version in ("3.13", "3.12"):
        candidates += [str(p) for p in sorted(pyenv.glob(f"{version}*/bin/python{version}"))]
    for found in candidates:
        if (
            found
            and subprocess.run(
                [found, "-c", "pass"], check=False, stderr=subprocess.DEVNULL
            ).returncode
            == 0
        ):
            return found
    return None


def basic_memory() -> list[str] | None:
    """``basic-memory mcp`` from a scratch venv (installed on first use), or None."""
    venv = CACHE / "basic-memory"
    binary = venv / "bin" / "basic-memory"
    if binary.exists():
        return [str(binary), "mcp"]
    python = _python_312()
    if python is None:
        say(
            "peers: basic-memory needs Python >= 3.12 (python3.12 / python3.13 on PATH or in pyenv); skipping"
        )
        return None
    say(f"peers: installing {BASIC_MEMORY} into {venv} ...")
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", BASIC_MEMORY], check=True)
    return [str(binary), "mcp"]
