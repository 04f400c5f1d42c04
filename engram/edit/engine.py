"""Apply host plans to files, and take them back: what ``engram link`` / ``unlink`` call.

Everything a plan changes is computed in memory first, re-parsed and checked; only then are
files written, each atomically, while holding the ledger lock. A file that does not parse stops
the whole run before anything is written. ``dry_run`` computes the same report (with a unified
diff per file) and writes nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from engram import __version__
from engram.edit.atomic import (
    exclusive_lock,
    make_dirs,
    read_settled,
    read_text,
    remove_empty_dirs,
    remove_path,
    write_atomic,
)
from engram.edit.jsonc.document import same
from engram.edit.ledger import LIST_KINDS, MD_BLOCK, Entry, Ledger, Link
from engram.edit.plan import AddToList, Edit, LinkPlan, OwnedFile, RemoveFromList, Scope
from engram.edit.report import FileReport, Report, status_of, unified_diff
from engram.edit.steps import apply_edit, reverse_entry
from engram.edit.verify import verify
from engram.errors import EngramError

LOCK_NAME = "links.lock"


@dataclass
class _Pending:
    """One file's computed change inside a run."""

    path: Path
    before: str | None
    after: str | None
    mode: int | None = None
    link: Link | None = None
    put: list[Entry] = field(default_factory=list)
    forget: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)


class _Overlay:
    """The files of one run as they will be: plans later in the run see earlier plans' edits
    (``link all`` puts two hosts' blocks in one AGENTS.md), and each file is written once."""

    def __init__(self) -> None:
        self.disk: dict[Path, str | None] = {}
        self.now: dict[Path, str | None] = {}
        self.blocks: set[tuple[str, str]] = set()  # (file, block id) written by this run

    def read(self, path: Path) -> str | None:
        if path not in self.disk:
            self.disk[path] = self.now[path] = read_settled(path)
        return self.now[path]


# Another program rewriting a config while Engram edits it: start over this many times.
ATTEMPTS = 8
T = TypeVar("T")


def _from_the_top(run: Callable[[], T]) -> T:
    """Run one whole read-compute-write pass, again from the top when a file changed under it
    (or was read half-written); after :data:`ATTEMPTS` give up with ``edit.changed_underneath``."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return run()
        except EngramError as exc:
            if attempt == ATTEMPTS or not _retryable(exc):
                raise
            time.sleep(0.01 * attempt)
    raise AssertionError("unreachable")


def _retryable(exc: EngramError) -> bool:
    if exc.code == "edit.changed_underneath":
        return True
    if exc.code != "edit.parse_error" or "file" not in exc.details:
        return False
    # A parse error is worth another pass only when the file is being rewritten right now.
    path = Path(str(exc.details["file"]))
    first = read_text(path) if path.exists() else None
    time.sleep(0.02)
    return (read_text(path) if path.exists() else None) != first


def apply(
    plans: Iterable[LinkPlan], ledger: Ledger, *, dry_run: bool = False, force: bool = False
) -> list[Report]:
    """Apply each plan's edits; one :class:`Report` per plan, in order.

    Args:
        plans: what the hosts want written.
        ledger: the link ledger (reloaded under its lock before use, saved after).
        dry_run: compute reports and diffs, write nothing.
        force: replace existing entries that differ, and remove entries the user edited.
    """
    plans = list(plans)
    with exclusive_lock(ledger.path.parent / LOCK_NAME):
        return _from_the_top(lambda: _apply_once(plans, ledger, dry_run, force))


def _apply_once(plans: list[LinkPlan], ledger: Ledger, dry_run: bool, force: bool) -> list[Report]:
    ledger.refresh()
    reports: list[Report] = []
    pending: list[_Pending] = []
    files_now = _Overlay()
    for plan in plans:
        link = ledger.link(plan.host, plan.scope.value, _root(plan), create=True)
        assert link is not None
        if plan.server_command is not None:
            link.command = list(plan.server_command)
        link.version = __version__
        files = [
            _plan_file(path, edits, ledger, link, force, files_now)
            for path, edits in _by_file(plan)
        ]
        pending.extend(files)
        reports.append(Report(plan.host, plan.scope.value, [], list(plan.notices)))
        reports[-1].files = [_report(f, dry_run) for f in files]
    if not dry_run:
        _commit(pending, ledger, files_now)
    else:
        ledger.refresh()
    return reports


def reverse(
    host: str,
    scope: Scope | str,
    ledger: Ledger,
    *,
    dry_run: bool = False,
    force: bool = False,
    root: Path | None = None,
) -> Report:
    """Take back everything the ledger says Engram wrote for ``host`` in ``scope``.

    Entries another link still uses (a shared ``AGENTS.md`` block) stay; entries the user changed
    since are left alone and reported, unless ``force``. ``root`` narrows to one workspace.
    """
    scope_name = Scope(scope).value
    with exclusive_lock(ledger.path.parent / LOCK_NAME):
        return _from_the_top(lambda: _reverse_once(host, scope_name, ledger, dry_run, force, root))


def _reverse_once(
    host: str, scope_name: str, ledger: Ledger, dry_run: bool, force: bool, root: Path | None
) -> Report:
    ledger.refresh()
    links = ledger.find_links(host, scope_name, None if root is None else str(root))
    report = Report(host, scope_name, [])
    pending: list[_Pending] = []
    files_now = _Overlay()
    for link in links:
        for file, entries in _entries_by_file(link.entries):
            pending.append(_reverse_file(file, entries, ledger, link, force, files_now))
    report.files = [_report(p, dry_run) for p in pending]
    if not links:
        report.notices.append(f"{host} ({scope_name}): not linked")
    if not dry_run:
        _commit(pending, ledger, files_now)
    else:
        ledger.refresh()
    return report


def _plan_file(
    path: Path, edits: list[Edit], ledger: Ledger, link: Link, force: bool, files_now: _Overlay
) -> _Pending:
    before = files_now.read(path)
    item = _Pending(path, before, before, link=link)
    applied: list[Edit] = []
    for edit in edits:
        inherited = _drop_stale_items(item, edit, edits, applied, ledger)
        step = apply_edit(edit, item.after, ledger, force=force, blocks_this_run=files_now.blocks)
        if step.conflict:
            item.conflicts.append(step.conflict)
            continue
        applied.append(edit)
        item.after = step.text
        if step.note:
            item.notes.append(step.note)
        if step.entry is not None:
            if step.entry.kind == MD_BLOCK:
                files_now.blocks.add((step.entry.file, step.entry.block_id))
            if inherited is not None:
                step.entry.created_file = step.entry.created_file or inherited.created_file
                step.entry.created_dirs = step.entry.created_dirs or inherited.created_dirs
                _inherit_containers(step.entry, inherited)
            item.put.append(step.entry)
        if step.forget is not None:
            item.forget.append(step.forget)
        if isinstance(edit, OwnedFile):
            item.mode = edit.mode
    verify(path, before, item.after, applied)
    files_now.now[path] = item.after
    if files_now.disk[path] is None:  # Engram creates it in this run, whichever plan is first
        for entry in item.put:
            entry.created_file = True
    return item


def _inherit_containers(entry: Entry, replaced: Entry) -> None:
    """A replacing list item keeps the containers the replaced one created (unlink removes them)."""
    before, now = replaced.undo.get("existing"), (entry.undo or {}).get("existing")
    if isinstance(before, int) and isinstance(now, int) and before < now:
        entry.undo = {**entry.undo, "existing": before}


def _drop_stale_items(
    item: _Pending, edit: Edit, edits: list[Edit], applied: list[Edit], ledger: Ledger
) -> Entry | None:
    """Take out list items this link wrote before and its plan no longer wants (an upgraded
    hook entry), so re-linking replaces them instead of adding a second one."""
    if not isinstance(edit, AddToList) or item.link is None:
        return None
    wanted = [e.item for e in edits if isinstance(e, AddToList) and e.path == edit.path]
    inherited = None
    for entry in list(item.link.entries):
        stale = (
            entry.kind in LIST_KINDS
            and entry.file == str(edit.file)
            and tuple(entry.path) == edit.path
            and not any(same(entry.item, w) for w in wanted)
            and entry.identity() not in item.forget
            and not ledger.others_using(item.link, entry)
        )
        if not stale:
            continue
        step = reverse_entry(entry, item.after, force=False)
        if step.forget is None:
            item.notes.extend([step.note] if step.note else [])
            continue
        item.after = step.text
        item.forget.append(step.forget)
        applied.append(RemoveFromList(edit.file, edit.format, edit.path, entry.item))
        item.notes.append("replaced the entry an earlier link wrote")
        inherited = inherited or entry
    return inherited


def _reverse_file(
    file: str,
    entries: list[Entry],
    ledger: Ledger,
    link: Link,
    force: bool,
    files_now: _Overlay,
) -> _Pending:
    path = Path(file)
    before = files_now.read(path)
    item = _Pending(path, before, before, link=link)
    for entry in reversed(entries):
        users = ledger.others_using(link, entry)
        if users:
            item.forget.append(entry.identity())
            names = ", ".join(sorted({f"{u.host} ({u.scope})" for u in users}))
            item.notes.append(f"kept: also linked for {names}")
            for other in users:  # the last link to go takes the file and folders with it
                shared = other.find(entry.identity())
                if shared is not None:
                    shared.created_file = shared.created_file or entry.created_file
                    shared.created_dirs = shared.created_dirs or entry.created_dirs
            continue
        step = reverse_entry(entry, item.after, force=force)
        item.after = step.text
        if step.note:
            item.notes.append(step.note)
        if step.forget is not None:
            item.forget.append(step.forget)
            item.dirs.extend(entry.created_dirs)
    files_now.now[path] = item.after
    return item


def _commit(pending: list[_Pending], ledger: Ledger, files_now: _Overlay) -> None:
    """Write each changed file once, recording each file's entries right after it is written
    (so a failure half-way leaves a ledger that matches the disk), then save the ledger."""
    if not os.access(ledger.path.parent, os.W_OK):
        # Checked first: a file written without its ledger entry could never be unlinked.
        raise EngramError(
            "edit.unwritable",
            f"cannot write the link ledger in {ledger.path.parent}: permission denied",
            "make Engram's data dir writable (or set ENGRAM_DATA_DIR), then retry",
            file=str(ledger.path),
        )
    emptied: list[Path] = []
    try:
        for path, items in _by_path(pending).items():
            disk, final = files_now.disk[path], files_now.now[path]
            created: list[str] = []
            if final != disk:
                mode = next((i.mode for i in reversed(items) if i.mode is not None), None)
                created = _write(path, disk, final, mode)
            for item in items:
                assert item.link is not None
                for identity in item.forget:
                    item.link.drop(identity)
                for entry in item.put:
                    if created and not entry.created_dirs:
                        entry.created_dirs = list(created)
                    item.link.put(entry)
            emptied.extend(Path(d) for item in items for d in item.dirs)
    finally:
        removed = remove_empty_dirs(emptied)  # all at once: innermost first, across files
        _hand_over_dirs([d for d in emptied if d not in removed], ledger)
        ledger.prune()
        ledger.save()


def _hand_over_dirs(kept: list[Path], ledger: Ledger) -> None:
    """Folders Engram created that still hold another link's file (``~/.gemini`` holding a
    ``GEMINI.md`` two hosts share) pass to an entry inside them: the last to go removes them."""
    for folder in kept:
        if not folder.is_dir():
            continue
        heir = next(
            (
                entry
                for link in ledger.links
                for entry in link.entries
                if Path(entry.file).is_relative_to(folder)
            ),
            None,
        )
        if heir is not None and str(folder) not in heir.created_dirs:
            heir.created_dirs.append(str(folder))


def _by_path(pending: list[_Pending]) -> dict[Path, list[_Pending]]:
    groups: dict[Path, list[_Pending]] = {}
    for item in pending:
        groups.setdefault(item.path, []).append(item)
    return groups


def _write(path: Path, disk: str | None, final: str | None, mode: int | None) -> list[str]:
    """Put ``final`` on disk (None deletes); return the folders created for it."""
    if final is None:
        remove_path(path)
        return []
    created = [str(d) for d in make_dirs(path.parent)] if disk is None else []
    write_atomic(path, final, mode, expect=disk)
    if mode is not None and disk is not None:
        path.chmod(mode)
    return created


def _report(item: _Pending, dry_run: bool) -> FileReport:
    status = status_of(item.before, item.after, bool(item.conflicts))
    diff = unified_diff(item.path, item.before, item.after) if dry_run else ""
    return FileReport(item.path, status, diff, item.notes, item.conflicts)


def _by_file(plan: LinkPlan) -> list[tuple[Path, list[Edit]]]:
    groups: dict[Path, list[Edit]] = {}
    for edit in plan.edits:
        groups.setdefault(Path(edit.file), []).append(edit)
    return list(groups.items())


def _entries_by_file(entries: list[Entry]) -> list[tuple[str, list[Entry]]]:
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.file, []).append(entry)
    return list(reversed(groups.items()))


def _root(plan: LinkPlan) -> str:
    return str(plan.root) if plan.root is not None else ""
