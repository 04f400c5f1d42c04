"""One edit, or the reversal of one ledger entry, applied to a file's text in memory.

These functions never touch the disk: they take the file's current text (None when it does
not exist) and return the new text (None to delete the file) plus what the ledger should
remember. The engine reads, verifies and writes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from engram.edit import markdown, toml_doc
from engram.edit.jsonc import document as jsonc
from engram.edit.jsonc.document import Undo, same
from engram.edit.ledger import (
    JSON_LIST_ITEM,
    JSON_VALUE,
    MD_BLOCK,
    OWNED_FILE,
    TOML_LIST_ITEM,
    TOML_VALUE,
    YAML_LIST_ITEM,
    YAML_VALUE,
    Entry,
    Ledger,
    fingerprint,
    text_fingerprint,
)
from engram.edit.plan import (
    AddToList,
    DocFormat,
    Edit,
    JSONValue,
    ManagedBlock,
    OwnedFile,
    RemoveBlock,
    RemoveFile,
    RemoveFromList,
    RemoveValue,
    SetValue,
)


@dataclass
class Step:
    """The outcome of one edit on a file's text.

    Args:
        text: the file's new text (None: the file is to be deleted).
        entry: what to record in the ledger (None: record nothing new).
        forget: identity of a ledger entry to drop (a removal).
        note: a line for the report ("already linked", "left alone: edited since link").
        conflict: set when the edit was refused (an existing entry differs; ``--force``).
    """

    text: str | None
    entry: Entry | None = None
    forget: tuple[str, str, str, str, str] | None = None
    note: str = ""
    conflict: str = ""


def apply_edit(
    edit: Edit,
    text: str | None,
    ledger: Ledger,
    *,
    force: bool,
    blocks_this_run: Collection[tuple[str, str]] = (),
) -> Step:
    """Apply ``edit`` to ``text`` (the file's current content, None when missing).

    ``blocks_this_run`` lists ``(file, block_id)`` blocks an earlier plan of the same run
    wrote: they are Engram's even though the ledger does not record them yet.
    """
    file = str(edit.file)
    if isinstance(edit, SetValue):
        return _set_value(edit, text, ledger, force=force)
    if isinstance(edit, AddToList):
        return _add_to_list(edit, text, force=force)
    if isinstance(edit, ManagedBlock):
        return _managed_block(edit, text, ledger, force, (file, edit.block_id) in blocks_this_run)
    if isinstance(edit, OwnedFile):
        return _owned_file(edit, text, ledger, force=force)
    return _removal(edit, text, ledger, force=force)


def _managed_block(
    edit: ManagedBlock, text: str | None, ledger: Ledger, force: bool, written_now: bool
) -> Step:
    """Write Engram's block; a block with Engram's markers the ledger never recorded is the
    user's (copied from another machine, pasted from docs): a conflict unless ``force``."""
    file = str(edit.file)
    probe = Entry(file, MD_BLOCK, "", "markdown", block_id=edit.block_id)
    found = None if text is None else markdown.find_block(text, edit.block_id, file)
    foreign = None
    if found is not None and not written_now and _recorded(ledger, probe) is None:
        if not force:
            return Step(
                text,
                conflict=f"a '{edit.block_id}' block Engram did not write is already there — "
                "use --force to replace it",
            )
        assert text is not None
        foreign = text[found[0] : found[1]]  # given back byte for byte by unlink
    new, sep = markdown.set_block(text or "", edit.block_id, edit.content, file)
    entry = Entry(file, MD_BLOCK, text_fingerprint(_block_text(edit.content)), "markdown")
    entry.block_id, entry.created_file, entry.undo = edit.block_id, text is None, {}
    if sep is not None:
        entry.undo = {"sep": sep}
    else:
        entry = _keep_creation(entry, ledger)
    if foreign is not None:
        entry.undo = {**entry.undo, "replaced": foreign}
    return Step(new, entry, note="" if new != text else "already up to date")


def reverse_entry(entry: Entry, text: str | None, *, force: bool) -> Step:
    """Take back what ``entry`` wrote; leave it (with a note) when the user changed it."""
    ident = entry.identity()
    if text is None:
        return Step(None, forget=ident, note="already gone")
    current = current_fingerprint(entry, text)
    if current is None:
        return Step(text, forget=ident, note="already removed")
    if current != entry.sha256 and not force:
        what = _describe(entry)
        return Step(
            text,
            note=f"left alone: {what} was changed after linking (remove it by hand if it should go)",
        )
    where = entry.file
    path = tuple(entry.path)
    if entry.kind == JSON_VALUE:
        undo = Undo.from_dict(entry.undo) if entry.undo else None
        new: str | None = jsonc.remove_value(text, path, undo, where=where)
    elif entry.kind == JSON_LIST_ITEM:
        undo = Undo.from_dict(entry.undo) if entry.undo else None
        new = jsonc.remove_from_list(text, path, entry.item, undo, where=where)
    elif entry.kind == TOML_VALUE and "replaced" in entry.undo:
        new, _ = toml_doc.set_value(text, path, entry.undo["replaced"], where)
    elif entry.kind == TOML_VALUE:
        new = toml_doc.remove_value(text, path, entry.undo.get("appended"), where)
    elif entry.kind == TOML_LIST_ITEM:
        appended, keep = entry.undo.get("appended"), bool(entry.undo.get("had_list"))
        new = toml_doc.remove_from_list(text, path, entry.item, appended, where, keep_empty=keep)
    elif entry.kind in (YAML_VALUE, YAML_LIST_ITEM):
        new = _reverse_yaml(entry, text)
    elif entry.kind == MD_BLOCK and "replaced" in entry.undo:
        new = markdown.restore_block(text, entry.block_id, str(entry.undo["replaced"]), where)
    elif entry.kind == MD_BLOCK:
        new = markdown.remove_block(text, entry.block_id, entry.undo.get("sep"), where)
    else:
        new = None
    if entry.created_file and new is not None and new.strip() == "":
        new = None
    return Step(new, forget=ident)


def _reverse_yaml(entry: Entry, text: str) -> str:
    from engram.edit import yaml_doc  # ruamel only for the hosts that need it

    path, inserted = tuple(entry.path), entry.undo.get("inserted")
    if entry.kind == YAML_LIST_ITEM:
        text = yaml_doc.remove_from_list(text, path, entry.item, inserted, entry.file)
        for item in entry.undo.get("replaced", []):  # the user's items --force replaced
            done = yaml_doc.add_to_list(text, path, item, entry.file)
            text = text if done is None else done[0]
        return text
    if "replaced" in entry.undo:
        return yaml_doc.set_value(text, path, entry.undo["replaced"], entry.file)[0]
    return yaml_doc.remove_value(text, path, inserted, entry.file)


def _reader(kind: str) -> Callable[[str, tuple[str, ...], str], tuple[bool, JSONValue]]:
    """The ``get`` of the editor that wrote an entry of ``kind``."""
    if kind in (TOML_VALUE, TOML_LIST_ITEM):
        return toml_doc.get
    if kind in (YAML_VALUE, YAML_LIST_ITEM):
        from engram.edit import yaml_doc

        return yaml_doc.get
    return jsonc.get


def _value_kind(fmt: DocFormat) -> str:
    return {DocFormat.TOML: TOML_VALUE, DocFormat.YAML: YAML_VALUE}.get(fmt, JSON_VALUE)


def _list_kind(fmt: DocFormat) -> str:
    return {DocFormat.TOML: TOML_LIST_ITEM, DocFormat.YAML: YAML_LIST_ITEM}.get(fmt, JSON_LIST_ITEM)


def entry_value(entry: Entry, text: str) -> tuple[bool, JSONValue]:
    """``(found, value)`` now at the path of a value or list entry, read by its own editor."""
    return _reader(entry.kind)(text, tuple(entry.path), entry.file)


def current_fingerprint(entry: Entry, text: str) -> str | None:
    """Fingerprint of what is now where ``entry`` wrote (None when it is gone)."""
    where, path = entry.file, tuple(entry.path)
    if entry.kind in (JSON_VALUE, TOML_VALUE, YAML_VALUE):
        found, value = _reader(entry.kind)(text, path, where)
        return fingerprint(value) if found else None
    if entry.kind in (JSON_LIST_ITEM, YAML_LIST_ITEM, TOML_LIST_ITEM):
        found, value = _reader(entry.kind)(text, path, where)
        items = value if found and isinstance(value, list) else []
        return entry.sha256 if any(same(item, entry.item) for item in items) else None
    if entry.kind == MD_BLOCK:
        content = markdown.block_content(text, entry.block_id, where)
        return None if content is None else text_fingerprint(content)
    return text_fingerprint(text)


def _set_value(edit: SetValue, text: str | None, ledger: Ledger, *, force: bool) -> Step:
    file, path = str(edit.file), edit.path
    kind = _value_kind(edit.format)
    probe = Entry(file, kind, "", edit.format.value, list(path))
    owned = _recorded(ledger, probe)
    found, current = _reader(kind)(text or "", path, file)
    if found and same(current, edit.value):
        return Step(text, owned, note="already linked")
    mine = owned is not None and owned.sha256 == fingerprint(current)
    if found and not (edit.replace or force or mine):
        return Step(text, conflict=f"existing {'.'.join(path)} differs — use --force to replace it")
    entry = Entry(file, kind, fingerprint(edit.value), edit.format.value, list(path))
    entry.created_file = text is None
    if kind == TOML_VALUE:
        new, appended = toml_doc.set_value(text or "", path, edit.value, file)
        entry.undo = {"appended": appended} if appended else {}
        if found:  # unlink puts the user's value back
            entry.undo = {"replaced": current}
    elif kind == YAML_VALUE:
        from engram.edit import yaml_doc

        new, inserted = yaml_doc.set_value(text or "", path, edit.value, file)
        entry.undo = {"replaced": current} if found else {"inserted": inserted} if inserted else {}
    else:
        strict = edit.format is DocFormat.JSON
        new, undo = jsonc.set_value(text or "", path, edit.value, strict=strict, where=file)
        entry.undo = undo.to_dict()
    if found and mine and owned is not None:
        # Re-pinning our own value: removal must still restore the bytes before the first link.
        entry.undo, entry.created_file = owned.undo, owned.created_file
        entry.created_dirs = owned.created_dirs
    return Step(new, entry, note="replaced the existing value" if found and not mine else "")


def _add_to_list(edit: AddToList, text: str | None, *, force: bool) -> Step:
    file = str(edit.file)
    if edit.format is DocFormat.YAML:
        return _add_to_yaml_list(edit, text, force=force)
    if edit.format is DocFormat.TOML:
        return _add_to_toml_list(edit, text)
    strict = edit.format is DocFormat.JSON
    new, undo = jsonc.add_to_list(text or "", edit.path, edit.item, strict=strict, where=file)
    entry = Entry(file, JSON_LIST_ITEM, fingerprint(edit.item), edit.format.value, list(edit.path))
    entry.item, entry.created_file = edit.item, text is None
    if undo is None:
        return Step(text, None, note="already linked")
    entry.undo = undo.to_dict()
    return Step(new, entry)


def _add_to_toml_list(edit: AddToList, text: str | None) -> Step:
    file = str(edit.file)
    had_list, _ = toml_doc.get(text or "", edit.path, file)
    done = toml_doc.add_to_list(text or "", edit.path, edit.item, file)
    if done is None:
        return Step(text, None, note="already linked")
    entry = Entry(file, TOML_LIST_ITEM, fingerprint(edit.item), edit.format.value, list(edit.path))
    entry.item, entry.created_file = edit.item, text is None
    entry.undo = {"appended": done[1], "had_list": had_list} if done[1] else {"had_list": had_list}
    return Step(done[0], entry)


def _add_to_yaml_list(edit: AddToList, text: str | None, *, force: bool) -> Step:
    from engram.edit import yaml_doc

    file = str(edit.file)
    rivals = _same_key(edit, text)
    if rivals and not force:
        shown = (
            f"{edit.key}: {edit.item.get(edit.key or '')}" if isinstance(edit.item, dict) else ""
        )
        return Step(
            text,
            conflict=f"an item '{shown}' Engram did not write is already in "
            f"{'.'.join(edit.path)} — use --force to replace it",
        )
    body = text or ""
    for rival in rivals:  # forced: the user's item goes, and comes back on unlink
        body = yaml_doc.remove_from_list(body, edit.path, rival, None, file)
    done = yaml_doc.add_to_list(body, edit.path, edit.item, file)
    if done is None:
        return Step(text, None, note="already linked")
    entry = Entry(file, YAML_LIST_ITEM, fingerprint(edit.item), edit.format.value, list(edit.path))
    entry.item, entry.created_file = edit.item, text is None
    entry.undo = {"inserted": done[1]} if done[1] and not rivals else {}
    if rivals:
        entry.undo["replaced"] = rivals
    return Step(done[0], entry)


def _same_key(edit: AddToList, text: str | None) -> list[JSONValue]:
    """Items of the list with ``edit.item``'s ``key`` that differ from it (rivals for its place)."""
    from engram.edit import yaml_doc

    if edit.key is None or not isinstance(edit.item, dict) or text is None:
        return []
    found, items = yaml_doc.get(text, edit.path, str(edit.file))
    wanted = edit.item.get(edit.key)
    return [
        i
        for i in (items if found and isinstance(items, list) else [])
        if isinstance(i, dict) and i.get(edit.key) == wanted and not same(i, edit.item)
    ]


def _owned_file(edit: OwnedFile, text: str | None, ledger: Ledger, *, force: bool) -> Step:
    file = str(edit.file)
    entry = Entry(file, OWNED_FILE, text_fingerprint(edit.content), "file")
    entry.created_file = text is None
    owned = _recorded(ledger, entry)
    if text is not None and text.replace("\r\n", "\n") == edit.content.replace("\r\n", "\n"):
        return Step(text, owned, note="already linked")
    if text is not None and not force and (owned is None or owned.sha256 != text_fingerprint(text)):
        reason = "edited since Engram wrote it" if owned else "not Engram's"
        return Step(text, conflict=f"{file} exists and is {reason} — use --force to replace it")
    if owned is not None:
        entry.created_file, entry.created_dirs = owned.created_file, owned.created_dirs
    return Step(edit.content, entry)


def _removal(edit: Edit, text: str | None, ledger: Ledger, *, force: bool) -> Step:
    """RemoveValue / RemoveFromList / RemoveBlock / RemoveFile as planned by a host."""
    file = str(edit.file)
    if isinstance(edit, RemoveValue):
        probe = Entry(file, _value_kind(edit.format), "", edit.format.value, list(edit.path))
    elif isinstance(edit, RemoveFromList):
        kind = _list_kind(edit.format)
        probe = Entry(file, kind, fingerprint(edit.item), edit.format.value)
        probe.path, probe.item = list(edit.path), edit.item
    elif isinstance(edit, RemoveBlock):
        probe = Entry(file, MD_BLOCK, "", "markdown", block_id=edit.block_id)
    else:
        assert isinstance(edit, RemoveFile)
        probe = Entry(file, OWNED_FILE, "", "file")
    recorded = _recorded(ledger, probe)
    if recorded is None and isinstance(edit, RemoveBlock):
        # Never Engram's to remove, even with --force: the user (or another machine) wrote it.
        found = text is not None and current_fingerprint(probe, text) is not None
        return Step(
            text, note="left alone: not written by Engram" if found else "nothing to remove"
        )
    if recorded is None and not force:
        if text is not None and current_fingerprint(probe, text) is not None:
            return Step(text, note=f"left alone: {_describe(probe)} was not written by Engram")
        return Step(text, note="nothing to remove")
    target = recorded or probe
    if recorded is None:
        target.sha256 = current_fingerprint(probe, text) or "" if text is not None else ""
    return reverse_entry(target, text, force=force)


def _recorded(ledger: Ledger, probe: Entry) -> Entry | None:
    identity = probe.identity()
    for link in ledger.links:
        found = link.find(identity)
        if found is not None:
            return found
    return None


def _keep_creation(entry: Entry, ledger: Ledger) -> Entry:
    owned = _recorded(ledger, entry)
    if owned is not None:
        entry.undo, entry.created_file = owned.undo, owned.created_file
        entry.created_dirs = owned.created_dirs
    return entry


def _block_text(content: str) -> str:
    body = content.replace("\r\n", "\n")
    return body if not body or body.endswith("\n") else body + "\n"


def _describe(entry: Entry) -> str:
    if entry.kind == MD_BLOCK:
        return f"the '{entry.block_id}' block"
    if entry.kind == OWNED_FILE:
        return "the file"
    if entry.kind in (JSON_LIST_ITEM, YAML_LIST_ITEM, TOML_LIST_ITEM):
        return f"the entry in {'.'.join(entry.path)}"
    return ".".join(entry.path)
