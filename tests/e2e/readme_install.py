"""The README's install command, read from the README itself, so the tests install Engram
exactly the way a new user is told to."""

from __future__ import annotations

import re
import shlex

from tests.e2e.conftest import REPO


def readme_install_argv() -> list[str]:
    """The first command of README's "Install" block (`uv tool install ...`), as argv."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Install", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "README's Install section has no sh block"
    line = block.group(1).strip().splitlines()[0].split("#", 1)[0]
    argv = shlex.split(line)
    assert argv[:3] == ["uv", "tool", "install"], line
    return argv
