"""Set and remove tables in TOML text, keeping comments and formatting.

A new table (``[mcp_servers.engram]`` plus sub-tables such as
``[mcp_servers.engram.tools.engram_commit]``) is rendered by ``tomlkit`` and appended to the
end of the file after one blank line; removing it deletes exactly that text, so link then
unlink gives back the original bytes. Anything else (replacing an existing value, a table the
user moved or edited, a document where appending is not valid TOML) goes through ``tomlkit``'s
own document model, which keeps comments and layout of everything it does not touch.
"""

from __future__ import annotations

from typing import Any, cast

import tomlkit
from tomlkit.exceptions import ParseError

from engram.edit.jsonc.document import same, without
from engram.edit.plan import JSONValue
from engram.errors import EngramError

BOM = "\ufeff"


def load(text: str, where: str = "<text>") -> dict[str, Any]:
    """The plain data of a TOML document; ``edit.parse_error`` (file, line, column) if bad."""
    text = text.removeprefix(BOM)
    data: dict[str, Any] = _parse(text, where).unwrap()
    return data


def get(text: str, path: tuple[str, ...], where: str = "<text>") -> tuple[bool, JSONValue]:
    """``(found, value)`` at ``path``."""
    node: Any = load(text, where)
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    return True, cast(JSONValue, node)


def set_value(
    text: str, path: tuple[str, ...], value: JSONValue, where: str = "<text>"
) -> tuple[str, str | None]:
    """``text`` with ``value`` at ``path``, and the exact text appended (None if not appended)."""
    if text.startswith(BOM):  # tomlkit does not read a BOM: edit the body, keep the mark
        new, appended = set_value(text[1:], path, value, where)
        return BOM + new, appended
    data = load(text, where)
    expected = _with(data, path, value)
    if isinstance(value, dict) and _absent(data, path):
        eol = "\r\n" if "\r\n" in text else "\n"
        block = _render_tables(path, value).replace("\n", eol)
        sep = (
            "" if text == "" or text.endswith(eol + eol) else eol if text.endswith(eol) else eol * 2
        )
        candidate = text + sep + block
        if _parses_to(candidate, expected):
            return candidate, sep + block
    doc = _parse(text, where)
    container: Any = doc
    for key in path[:-1]:
        if key not in container:
            container[key] = tomlkit.table(is_super_table=True)
        container = container[key]
        if not isinstance(container, dict):
            raise _type_conflict(path, where)
    container[path[-1]] = value
    return tomlkit.dumps(doc), None


def remove_value(
    text: str, path: tuple[str, ...], appended: str | None = None, where: str = "<text>"
) -> str:
    """``text`` without ``path``; the exact inverse of :func:`set_value` when ``appended`` is given.

    Parent tables left empty by the removal are removed too when they had no header of their
    own (the implicit ``mcp_servers`` of ``[mcp_servers.engram]``).
    """
    if text.startswith(BOM):
        return BOM + remove_value(text[1:], path, appended, where)
    data = load(text, where)
    if _absent(data, path):
        return text
    if appended and appended in text:
        at = text.rindex(appended)
        candidate = text[:at] + text[at + len(appended) :]
        if _parses_to(candidate, without(data, path, prune=True)) or _parses_to(
            candidate, without(data, path, prune=False)
        ):
            return candidate
    doc = _parse(text, where)
    containers: list[Any] = [doc]
    for key in path[:-1]:
        containers.append(containers[-1][key])
    del containers[-1][path[-1]]
    for depth in range(len(path) - 1, 0, -1):
        table = containers[depth]
        if len(table) == 0 and getattr(table, "is_super_table", lambda: False)():
            del containers[depth - 1][path[depth - 1]]
    return tomlkit.dumps(doc)


def _render_tables(path: tuple[str, ...], value: dict[str, Any]) -> str:
    doc = tomlkit.document()
    container: Any = doc
    for key in path[:-1]:
        container[key] = tomlkit.table(is_super_table=True)
        container = container[key]
    container[path[-1]] = value
    return tomlkit.dumps(doc)


def _parse(text: str, where: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except ParseError as err:
        raise EngramError(
            "edit.parse_error",
            f"{where}:{err.line}:{err.col}: {str(err).split(' at line ')[0]}",
            "fix the file by hand (Engram never rewrites a file it cannot parse), then retry",
            file=where,
            line=err.line,
            column=err.col,
        ) from None


def _parses_to(text: str, expected: dict[str, Any]) -> bool:
    try:
        data = tomlkit.parse(text).unwrap()
    except ParseError:
        return False
    return same(cast(JSONValue, data), cast(JSONValue, expected))


def _absent(data: dict[str, Any], path: tuple[str, ...]) -> bool:
    node: Any = data
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return True
        node = node[key]
    return False


def _with(data: dict[str, Any], path: tuple[str, ...], value: JSONValue) -> dict[str, Any]:
    """A copy of ``data`` with ``value`` at ``path``."""
    if not path:
        return cast(dict[str, Any], value)
    child = data.get(path[0], {})
    if not isinstance(child, dict):
        return {**data, path[0]: value}
    return {**data, path[0]: _with(child, path[1:], value) if len(path) > 1 else value}


def _type_conflict(path: tuple[str, ...], where: str) -> EngramError:
    shown = ".".join(path[:-1])
    return EngramError(
        "edit.type_conflict",
        f"{where}: {shown} is not a table, so Engram cannot add its entry there",
        f"fix {shown} in {where} by hand, then retry",
        file=where,
    )


def add_to_list(
    text: str, path: tuple[str, ...], item: JSONValue, where: str = "<text>"
) -> tuple[str, str | None] | None:
    """``text`` with the table ``item`` added to the array of tables at ``path`` (a
    ``[[mcp_servers]]`` block appended to the end of the file, so removing that text undoes it),
    and the exact text appended (None when the document model had to place it); None when an
    equal item is already there."""
    if text.startswith(BOM):
        done = add_to_list(text[1:], path, item, where)
        return None if done is None else (BOM + done[0], done[1])
    data = load(text, where)
    found, current = get(text, path, where)
    if found and not isinstance(current, list):
        raise _type_conflict((*path, "[]"), where)
    items = current if isinstance(current, list) else []
    if any(same(existing, item) for existing in items):
        return None
    expected = _with(data, path, [*items, item])
    if isinstance(item, dict):
        eol = "\r\n" if "\r\n" in text else "\n"
        block = _render_array_item(path, item).replace("\n", eol)
        sep = (
            "" if text == "" or text.endswith(eol + eol) else eol if text.endswith(eol) else eol * 2
        )
        if _parses_to(text + sep + block, expected):
            return text + sep + block, sep + block
    doc = _parse(text, where)
    container: Any = doc
    for key in path[:-1]:
        container = container.setdefault(key, tomlkit.table(is_super_table=True))
    if path[-1] in container:
        container[path[-1]].append(item)
    else:
        container[path[-1]] = tomlkit.aot() if isinstance(item, dict) else tomlkit.array()
        container[path[-1]].append(item)
    return tomlkit.dumps(doc), None


def remove_from_list(
    text: str,
    path: tuple[str, ...],
    item: JSONValue,
    appended: str | None = None,
    where: str = "<text>",
    *,
    keep_empty: bool = False,
) -> str:
    """``text`` without the last element equal to ``item`` in the array at ``path``; the exact
    inverse of :func:`add_to_list` when ``appended`` is given. An array left empty goes too,
    unless ``keep_empty`` (the user had the array before Engram added to it)."""
    if text.startswith(BOM):
        return BOM + remove_from_list(text[1:], path, item, appended, where, keep_empty=keep_empty)
    data = load(text, where)
    found, current = get(text, path, where)
    if not found or not isinstance(current, list):
        return text
    matches = [i for i, existing in enumerate(current) if same(existing, item)]
    if not matches:
        return text
    rest = [e for i, e in enumerate(current) if i != matches[-1]]
    gone = not rest and not keep_empty
    expected = without(data, path, prune=True) if gone else _with(data, path, rest)
    if appended and appended in text:
        at = text.rindex(appended)
        candidate = text[:at] + text[at + len(appended) :]
        if _parses_to(candidate, expected) or (
            gone and _parses_to(candidate, without(data, path, prune=False))
        ):
            return candidate
    doc = _parse(text, where)
    containers: list[Any] = [doc]
    for key in path[:-1]:
        containers.append(containers[-1][key])
    array = containers[-1][path[-1]]
    del array[matches[-1]]
    if len(array) == 0 and not keep_empty:
        del containers[-1][path[-1]]
    return tomlkit.dumps(doc)


def _render_array_item(path: tuple[str, ...], item: dict[str, Any]) -> str:
    doc = tomlkit.document()
    container: Any = doc
    for key in path[:-1]:
        container[key] = tomlkit.table(is_super_table=True)
        container = container[key]
    tables = tomlkit.aot()
    tables.append(item)
    container[path[-1]] = tables
    return tomlkit.dumps(doc)
