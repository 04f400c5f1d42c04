"""The hooks an Engram plugin may implement (pluggy project name ``"engram"``).

A plugin is a module (or object) with functions marked ``@hookimpl``, registered either in
:data:`engram.hosts.registry.DEFAULT_PLUGINS` (built-ins) or through the ``engram`` entry-point
group (third-party packages). Every hook takes a ``register`` callback; call it once per thing
the plugin contributes. Results are not collected, so ordering between plugins never matters.
"""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("engram")
hookimpl = pluggy.HookimplMarker("engram")


# -- hosts: implemented by any plugin; every implementation is called -------------------------


@hookspec
def register_hosts(register: Any) -> None:
    """Register host integrations: register(HostInstance()) once per host."""


# -- doctor: implemented by any plugin; every implementation is called ------------------------


@hookspec
def register_doctor_checks(register: Any) -> None:
    """Register extra doctor checks: register(check) once per check."""


# -- semantic recall: implemented by any plugin; every implementation is called ---------------


@hookspec
def register_embedders(register: Any) -> None:
    """Register embedding models for semantic recall: register(embedder) once per model."""
