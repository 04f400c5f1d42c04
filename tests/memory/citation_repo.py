"""A real git repository with some code, for the citation tests (memory, CLI, MCP, hooks)."""

from __future__ import annotations

import subprocess
from pathlib import Path

FILES = {
    "billing/retry.py": "def backoff(n):\n    return 2**n\n\n\nclass RetryPolicy:\n    pass\n\n"
    "MAX_TRIES = 5\n",
    "app/settings.py": "def load_settings():\n    return {}\n",
    "web/cart.ts": "export function addItem(cart: Cart, item: Item) {\n  return cart;\n}\n"
    "export const MAX_ITEMS = 50;\n",
    "svc/queue.go": "package svc\n\nfunc Enqueue(job Job) error {\n\treturn nil\n}\n",
    "README.md": "# demo\n",
}


def git(folder: Path, *args: str) -> str:
    """Run git in ``folder`` (a fixed identity, no user config) and return its stdout."""
    done = subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def make_repo(folder: Path, files: dict[str, str] | None = None) -> Path:
    """``folder`` as a git repository holding ``files`` (default :data:`FILES`), committed."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    for path, text in (files or FILES).items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    commit(folder, "initial")
    return folder


def commit(folder: Path, message: str) -> str:
    """Commit everything in ``folder``; the new commit's short id."""
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", message)
    return git(folder, "rev-parse", "--short", "HEAD").strip()
