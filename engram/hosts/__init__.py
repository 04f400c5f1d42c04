"""Host plugins: one planner per agent host, registered through pluggy.

A host turns a :class:`HostContext` into a :class:`~engram.edit.plan.LinkPlan`; the engine in
:mod:`engram.edit` applies it. Nothing in this package writes a file.
"""

from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location, ServerCommand

__all__ = [
    "Base",
    "Host",
    "HostContext",
    "HostFiles",
    "Location",
    "McpHost",
    "McpTarget",
    "ServerCommand",
]
