"""The hook's window on memory: every memory operation a hook performs goes through here.

:class:`Memory` opens the store once per hook call and adapts ``engram.memory`` to what the
runtime needs (a pack, a delta, session and prompt bookkeeping). It imports only the store and
the memory modules on the hook path (no pydantic).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from engram.errors import EngramError
from engram.memory.fence import FENCE_CLOSE, FENCE_NOTE, FENCE_OPEN, fenced, one_line, quoted

TYPE_CHECKING = False  # typing costs the hook more than its work
if TYPE_CHECKING:
    from engram.store.db import Store
    from engram.store.records import Observation

PACK_FOOTER = (
    "Engram: this is your memory of the project. Use mem_search / mem_get_observation for "
    "details; save decisions, fixes and discoveries with mem_save as they happen; call "
    "mem_session_summary before you finish."
)
DELTA_LIMIT = 10
# A hook facing a held lock gives up after one wait this long: far inside the 10 s timeout
# Engram installs in each host, so the host never kills (or waits on) the hook.
HOOK_BUSY_MS = 2000
FENCE_BYTES = len(f"{FENCE_OPEN}\n{FENCE_NOTE}\n\n\n{FENCE_CLOSE}\n".encode())


class Memory:
    """One open store plus the project rules, for the length of one hook call."""

    def __init__(self, store: Store, data_dir: str | os.PathLike[str]) -> None:
        self.store = store
        self.data_dir = os.fspath(data_dir)  # a string: the hook path imports no pathlib

    def project_for(self, cwd: str | os.PathLike[str], env: Mapping[str, str]) -> str:
        """The project the host works in ("" when the folder is ambiguous).

        Raises:
            EngramError: ``project.unconfirmed`` when the repository claims a project it is
                not bound to (the hook then injects and records nothing).
        """
        from engram.memory.project import resolve_project
        from engram.memory.project_binding import is_trusted, untrusted_error

        detection = resolve_project(None, cwd, environ=env)
        if not is_trusted(self.store, self.data_dir, detection):
            raise untrusted_error(detection)
        return detection.project

    def start_session(self, session_id: str, project: str, directory: str) -> None:
        """Register the host's session (idempotent; an ended or foreign session is left be)."""
        if not session_id or not project:
            return
        from engram.memory.sessions import start_session

        try:
            start_session(self.store, session_id, project=project, directory=directory)
        except EngramError as exc:
            if exc.code not in ("memory.session_already_ended", "memory.session_project_mismatch"):
                raise

    def end_session(self, session_id: str) -> None:
        """Close the host's session (hosts may send the end twice, or for unknown sessions)."""
        if not session_id:
            return
        from engram.memory.sessions import end_session

        try:
            end_session(self.store, session_id)
        except EngramError as exc:
            if exc.code != "memory.unknown_session":
                raise

    def record_prompt(self, session_id: str, project: str, prompt: str) -> None:
        """Save the user's prompt (redacted) in the host's session, or the project's default."""
        if not project:
            return
        from engram.memory.prompts import save_prompt

        try:
            save_prompt(self.store, prompt, project=project, session_id=session_id or None)
        except EngramError as exc:
            if exc.code not in ("memory.unknown_session", "memory.session_project_mismatch"):
                raise
            save_prompt(self.store, prompt, project=project)

    def pack(
        self, project: str, max_bytes: int, cwd: str = "", objective: str = ""
    ) -> tuple[str, int]:
        """The memory pack for ``project`` and the newest observation id it covers: the
        governed knowledge first (:meth:`governed_pack`), then the journal in what is left."""
        if not project:
            return "", 0
        governed = self.governed_pack(project, cwd, objective, max_bytes // 2)
        journal, newest = self._journal_pack(project, max_bytes - len(governed.encode("utf-8")))
        return governed + journal, newest

    def governed_pack(self, project: str, cwd: str, objective: str, max_bytes: int) -> str:
        """The project's governed knowledge as ``engram_load`` gives it at session start
        (an empty task): durable memories as bodies, working notes as one-line cards unless
        ``objective`` matches theirs. "" when the project has none (or nothing fits). Kept
        between sessions while its inputs are unchanged (:mod:`engram.memory.session_knowledge`)."""
        from engram.memory.session_knowledge import session_knowledge

        budget = (max_bytes - FENCE_BYTES) // 4  # the governed estimate: 4 bytes a token
        return session_knowledge(
            self.store.connection, self.data_dir, project, cwd, objective, budget
        )

    def _journal_pack(self, project: str, max_bytes: int) -> tuple[str, int]:
        """The compact journal pack for ``project`` and the newest observation id it covers."""
        from engram.memory.changes import recent_observations
        from engram.memory.context import build_context

        newest = recent_observations(self.store, project=project, limit=1)
        if not newest:
            return "", 0
        footer = "\n" + PACK_FOOTER + "\n"
        result = build_context(
            self.store,
            project=project,
            prompts_limit=3,
            compact=False,
            max_bytes=max(max_bytes - len(footer.encode("utf-8")) - FENCE_BYTES, 256),
            fenced=True,
        )
        return fenced(result.text) + footer, newest[0].id

    def changes_since(self, project: str, after_id: int, max_bytes: int) -> tuple[str, int]:
        """Observations saved since ``after_id`` as a short list ("" when none), newest id."""
        if not project:
            return "", after_id
        from engram.memory.changes import recent_observations
        from engram.memory.context import fit_bytes

        fresh = recent_observations(
            self.store, project=project, limit=DELTA_LIMIT, after_id=after_id
        )
        if not fresh:
            return "", after_id
        lines = [
            f"## Engram: {len(fresh)} new memories in {one_line(project)} since your last prompt"
        ]
        lines += [_line(o) for o in fresh]
        text, _ = fit_bytes("\n".join(lines) + "\n", max(max_bytes - FENCE_BYTES, 256))
        return fenced(text), max(o.id for o in fresh)


def _line(observation: Observation) -> str:
    preview = " ".join(observation.content.split())
    preview = preview if len(preview) <= 160 else preview[:159].rstrip() + "…"
    title, kind = one_line(observation.title), one_line(observation.type)
    origin = f" ({one_line(observation.origin)})" if observation.origin else ""
    return f"- [{kind}] **{title}** (#{observation.id}){origin}: {quoted(preview)}"


@contextmanager
def open_memory(env: Mapping[str, str], *, close: bool = True) -> Iterator[Memory]:
    """Open the store named by ``env`` (``ENGRAM_DATA_DIR`` or ``~/.engram``) for one call.

    ``close=False`` leaves the connection open for a process that ends right after without
    tearing down (every write is committed by then; the WAL stays for the next connection)."""
    from engram.store.datadir import data_dir_of
    from engram.store.db import Store

    data_dir = data_dir_of(env)
    # Lexical only: a hook must answer fast and never loads an embedding model (hooks save
    # sessions and prompts, no observations, so nothing here would need a vector).
    store = Store.open(data_dir, env=env, busy_timeout_ms=HOOK_BUSY_MS, semantic=False)
    try:
        yield Memory(store, data_dir)
    finally:
        if close:
            store.close()
