"""Loading host plugins and finding a host by name or alias.

Built-in hosts are plugins like any other: the modules in :data:`DEFAULT_PLUGINS` are registered
first, then third-party plugins from the ``engram`` entry-point group. Entry points are skipped
under tests (``sys._called_from_test``, set by the test suite) and can be narrowed with
``ENGRAM_LOAD_PLUGINS`` (comma-separated distribution names; empty loads none).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from functools import cache
from importlib import metadata

import pluggy

from engram.errors import EngramError
from engram.hosts import hookspecs
from engram.hosts.base import Host

DEFAULT_PLUGINS: tuple[str, ...] = (
    "engram.hosts.claude",
    "engram.hosts.codex",
    "engram.hosts.gemini",
    "engram.hosts.cursor",
    "engram.hosts.opencode",
    "engram.hosts.windsurf",
    "engram.hosts.antigravity",
    "engram.hosts.amp",
    "engram.hosts.auggie",
    "engram.hosts.claude_desktop",
    "engram.hosts.cline",
    "engram.hosts.continue_dev",
    "engram.hosts.copilot",
    "engram.hosts.crush",
    "engram.hosts.droid",
    "engram.hosts.goose",
    "engram.hosts.kilo",
    "engram.hosts.kimi",
    "engram.hosts.kiro",
    "engram.hosts.qwen",
    "engram.hosts.vibe",
    "engram.hosts.vscode",
    "engram.hosts.zed",
)
ENTRY_POINT_GROUP = "engram"


def plugin_manager(env: Mapping[str, str] | None = None) -> pluggy.PluginManager:
    """A plugin manager with the hookspecs, the built-in plugins and the allowed third-party ones."""
    env = os.environ if env is None else env
    pm = pluggy.PluginManager("engram")
    pm.add_hookspecs(hookspecs)
    for name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(name), name=name)
    if not hasattr(sys, "_called_from_test") or "ENGRAM_LOAD_PLUGINS" in env:
        _load_entry_points(pm, env.get("ENGRAM_LOAD_PLUGINS"))
    return pm


def _load_entry_points(pm: pluggy.PluginManager, allowed: str | None) -> None:
    """Register the ``engram`` entry points (only those of ``allowed`` distributions, if set)."""
    if allowed is None:
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        return
    wanted = {name.strip() for name in allowed.split(",") if name.strip()}
    for dist in metadata.distributions():
        if dist.metadata["Name"] not in wanted:
            continue
        for entry in dist.entry_points:
            if entry.group == ENTRY_POINT_GROUP and pm.get_plugin(entry.name) is None:
                pm.register(entry.load(), name=entry.name)


def collect_hosts(pm: pluggy.PluginManager) -> dict[str, Host]:
    """Every registered host by canonical name, in registration order."""
    hosts: dict[str, Host] = {}
    taken: dict[str, str] = {}

    def register(host: Host) -> None:
        for label in (host.name, *host.aliases):
            if label in taken:
                raise EngramError(
                    "hosts.duplicate_name",
                    f"two plugins register a host called {label!r} ({taken[label]}, {host.name})",
                    "uninstall one of the plugins, or narrow ENGRAM_LOAD_PLUGINS",
                )
            taken[label] = host.name
        hosts[host.name] = host

    # pluggy calls implementations last-registered first; walk them in registration order so
    # built-ins come in DEFAULT_PLUGINS order and `engram link all` reads predictably.
    for impl in pm.hook.register_hosts.get_hookimpls():
        impl.function(register=register)
    return hosts


@cache
def all_hosts() -> dict[str, Host]:
    """Every host available in this process (built-in and plugins), by canonical name."""
    return collect_hosts(plugin_manager())


def find_host(label: str, hosts: Mapping[str, Host] | None = None) -> Host:
    """The host called ``label`` (canonical name or alias, case-insensitive).

    Raises:
        EngramError: ``hosts.unknown`` listing the hosts there are.
    """
    hosts = all_hosts() if hosts is None else hosts
    wanted = label.strip().lower()
    for host in hosts.values():
        if wanted == host.name or wanted in host.aliases:
            return host
    import difflib

    names = ", ".join(hosts)
    spelled = {alias: host.name for host in hosts.values() for alias in (host.name, *host.aliases)}
    close = difflib.get_close_matches(wanted, list(spelled), n=1, cutoff=0.6)
    guess = f"did you mean {spelled[close[0]]!r}? " if close else ""
    raise EngramError(
        "hosts.unknown",
        f"unknown host {label!r}",
        f"{guess}choose one of: {names}, all",
        available_hosts=list(hosts),
    )
