"""Check a computed change before it is written: it parses, and it says what was intended.

The new text must parse, hold every value Engram set, and hold the same data as before
everywhere else. If not, nothing is written: that would be an Engram bug, and the user's file
is worth more than the link.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from engram.edit import markdown, toml_doc
from engram.edit.jsonc import document as jsonc
from engram.edit.jsonc.document import same
from engram.edit.plan import (
    AddToList,
    DocFormat,
    Edit,
    JSONValue,
    ManagedBlock,
    OwnedFile,
    RemoveFromList,
    RemoveValue,
    SetValue,
)
from engram.errors import EngramError


def verify(path: Path, before: str | None, after: str | None, applied: list[Edit]) -> None:
    """Raise ``edit.verify_failed`` unless ``after`` is ``before`` plus exactly ``applied``."""
    if after is None or not applied:
        return
    where = str(path)
    first = applied[0]
    if isinstance(first, OwnedFile):
        _check(after.replace("\r\n", "\n") == first.content.replace("\r\n", "\n"), where, "content")
        return
    if isinstance(first, ManagedBlock):
        for edit in applied:
            if isinstance(edit, ManagedBlock):
                got = markdown.block_content(after, edit.block_id, where)
                want = edit.content.replace("\r\n", "\n")
                _check(got is not None and got.rstrip("\n") == want.rstrip("\n"), where, "block")
        return
    fmt = getattr(first, "format", DocFormat.JSON)
    reader = _loader(fmt)
    old: Any = reader(before or "", where)
    new: Any = reader(after, where)
    for edit in applied:
        if isinstance(edit, SetValue):
            found, value = _get(new, edit.path)
            _check(found and same(value, edit.value), where, ".".join(edit.path))
        elif isinstance(edit, AddToList):
            found, value = _get(new, edit.path)
            items = value if isinstance(value, list) else []
            _check(any(same(i, edit.item) for i in items), where, ".".join(edit.path))
    old_rest, new_rest = copy.deepcopy(old), copy.deepcopy(new)
    for edit in applied:
        for data in (old_rest, new_rest):
            _strip(data, edit)
    _check(same(old_rest, new_rest), where, "the rest of the file")


def _loader(fmt: DocFormat) -> Any:
    if fmt is DocFormat.TOML:
        return toml_doc.load
    if fmt is DocFormat.YAML:
        from engram.edit import yaml_doc  # ruamel only for the hosts that need it

        return yaml_doc.load
    return jsonc.load


def _get(data: Any, path: tuple[str, ...]) -> tuple[bool, JSONValue]:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return False, None
        data = data[key]
    return True, data


def _strip(data: Any, edit: Edit) -> None:
    """Remove what ``edit`` is about from ``data``, and containers on its path left empty."""
    if not isinstance(edit, SetValue | AddToList | RemoveValue | RemoveFromList):
        return
    chain = [data]
    for key in edit.path:
        node = chain[-1]
        if not isinstance(node, dict) or key not in node:
            break
        chain.append(node[key])
    if len(chain) == len(edit.path) + 1:
        leaf = chain[-1]
        if isinstance(edit, AddToList | RemoveFromList) and isinstance(leaf, list):
            leaf[:] = [i for i in leaf if not _same_entry(i, edit)]
        else:
            chain[-1] = None
    # Walk back up: drop what was removed and every container that is now empty.
    for depth in range(len(chain) - 1, 0, -1):
        node = chain[depth]
        if node is None or (isinstance(node, dict | list) and not node):
            del chain[depth - 1][edit.path[depth - 1]]
        else:
            return


def _same_entry(item: Any, edit: AddToList | RemoveFromList) -> bool:
    """``item`` is the edit's element, or (a keyed AddToList, forced) the one it replaced."""
    if same(item, edit.item):
        return True
    key = edit.key if isinstance(edit, AddToList) else None
    wanted = edit.item.get(key) if key and isinstance(edit.item, dict) else None
    return wanted is not None and isinstance(item, dict) and item.get(key) == wanted


def _check(ok: bool, where: str, what: str) -> None:
    if not ok:
        raise EngramError(
            "edit.verify_failed",
            f"{where}: the edited text did not come out as intended ({what}); nothing was written",
            "this is an Engram bug — please report it with the file (redact secrets)",
            file=where,
        )
