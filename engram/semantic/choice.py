"""Whether semantic recall is on for a store, and which embedder it uses.

On by default once an embedder is installed (the ``semantic`` extra brings the built-in one).
Off when ``ENGRAM_SEARCH=lexical`` is set, or when the store's ``search.mode`` setting is
``lexical`` (``engram embed --mode lexical``). ``ENGRAM_EMBEDDER`` (or the store's
``semantic.embedder`` setting, ``engram embed --use NAME``) picks an embedder by name;
otherwise the built-in one, else the only one a plugin registered.

Embedders come from plugins' ``register_embedders(register)`` hook: the built-in modules in
:data:`DEFAULT_EMBEDDERS` first, then the ``engram`` entry-point group, loaded like host
plugins (skipped under tests, narrowed by ``ENGRAM_LOAD_PLUGINS``).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from engram.errors import EngramError
from engram.semantic.embedder import Embedder
from engram.semantic.wordllama import NAME as BUILT_IN
from engram.semantic.wordllama import install_command

DEFAULT_EMBEDDERS: tuple[str, ...] = ("engram.semantic.wordllama",)
MODES = ("hybrid", "lexical")


@dataclass(frozen=True)
class SemanticChoice:
    """The decision for one store: the embedder (None: lexical search only) and why."""

    embedder: Embedder | None
    reason: str  # one line for doctor and `engram embed --status`

    @property
    def on(self) -> bool:
        """Whether writes embed and searches fuse vectors."""
        return self.embedder is not None


def _plugin_manager(env: Mapping[str, str]) -> object:
    import pluggy

    from engram.hosts import hookspecs

    pm = pluggy.PluginManager("engram")
    pm.add_hookspecs(hookspecs)
    for name in DEFAULT_EMBEDDERS:
        pm.register(importlib.import_module(name), name=name)
    if not hasattr(sys, "_called_from_test") or "ENGRAM_LOAD_PLUGINS" in env:
        allowed = env.get("ENGRAM_LOAD_PLUGINS")
        if allowed is None:
            pm.load_setuptools_entrypoints("engram")
        else:
            for wanted in {n.strip() for n in allowed.split(",") if n.strip()}:
                _load_distribution(pm, wanted)
    return pm


def _load_distribution(pm: object, wanted: str) -> None:
    from importlib import metadata

    for dist in metadata.distributions():
        if dist.metadata["Name"] != wanted:
            continue
        for entry in dist.entry_points:
            if entry.group == "engram" and pm.get_plugin(entry.name) is None:  # type: ignore[attr-defined]
                pm.register(entry.load(), name=entry.name)  # type: ignore[attr-defined]


def collect_embedders(env: Mapping[str, str] | None = None) -> dict[str, Embedder]:
    """Every registered embedder by name, built-ins first."""
    env = os.environ if env is None else env
    pm = _plugin_manager(env)
    found: dict[str, Embedder] = {}

    def register(embedder: Embedder) -> None:
        if not isinstance(embedder, Embedder):
            raise EngramError(
                "semantic.bad_embedder",
                f"a plugin registered {embedder!r}, which is not an embedder",
                "an embedder needs name, dimension and embed(texts)",
            )
        if embedder.name in found:
            raise EngramError(
                "semantic.duplicate_embedder",
                f"two plugins register an embedder called {embedder.name!r}",
                "uninstall one of the plugins, or narrow ENGRAM_LOAD_PLUGINS",
            )
        found[embedder.name] = embedder

    for impl in pm.hook.register_embedders.get_hookimpls():  # type: ignore[attr-defined]
        impl.function(register=register)
    return found


@cache
def _embedders_cached(plugins: str | None) -> dict[str, Embedder]:
    """Embedders are loaded once a process (the model itself loads on first use)."""
    return collect_embedders({} if plugins is None else {"ENGRAM_LOAD_PLUGINS": plugins})


def choose(
    *, mode: str | None, embedder: str | None, env: Mapping[str, str] | None = None
) -> SemanticChoice:
    """The decision, given the store's settings (``mode``, ``embedder``: None when unset)."""
    env = os.environ if env is None else env
    wanted_mode = (env.get("ENGRAM_SEARCH") or "").strip().lower()
    if wanted_mode == "lexical":
        return SemanticChoice(None, "semantic recall is off (ENGRAM_SEARCH=lexical)")
    if not wanted_mode and mode == "lexical":
        return SemanticChoice(
            None, "semantic recall is off (`engram embed --mode hybrid` turns it on)"
        )
    found = _embedders_cached(env.get("ENGRAM_LOAD_PLUGINS"))
    name = (env.get("ENGRAM_EMBEDDER") or "").strip() or embedder
    if name:
        if name in found:
            return SemanticChoice(found[name], f"semantic recall is on ({name})")
        known = ", ".join(found) or "none installed"
        return SemanticChoice(
            None, f"semantic recall is off: no embedder called {name!r} (installed: {known})"
        )
    if BUILT_IN in found:
        return SemanticChoice(found[BUILT_IN], f"semantic recall is on ({BUILT_IN})")
    if found:
        first = next(iter(found))
        return SemanticChoice(found[first], f"semantic recall is on ({first})")
    return SemanticChoice(
        None, f"semantic recall is off (no embedder installed): turn it on with {install_command()}"
    )
