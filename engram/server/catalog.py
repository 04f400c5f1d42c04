"""Resources and prompts ``engram-mcp`` serves, registered by the tool families that own them.

The governed family registers ``engram://index`` / ``engram://memory/{id}`` and the ``propose``
prompt here. With nothing registered, ``resources/list`` and ``prompts/list`` answer with empty
lists (never -32601), so hosts that probe them keep working.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

# list() -> resource dicts ({uri, name, description?, mimeType?}) for resources/list.
ResourceLister = Callable[[], list[dict[str, Any]]]
# read(uri) -> contents dicts ({uri, mimeType?, text}) or None when the URI is not theirs.
ResourceReader = Callable[[str], list[dict[str, Any]] | None]


@dataclass(frozen=True)
class ResourceProvider:
    """A family's resources.

    Args:
        name: who provides them (for logs).
        list_resources: the concrete resources for ``resources/list``.
        read: the contents of one URI, or None when the URI belongs to another provider.
        templates: ``resources/templates/list`` entries ({uriTemplate, name, description?}).
    """

    name: str
    list_resources: ResourceLister
    read: ResourceReader
    templates: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class PromptSpec:
    """One prompt: its ``prompts/list`` entry and ``get(arguments) -> messages``."""

    name: str
    description: str
    get: Callable[[dict[str, str]], list[dict[str, Any]] | Awaitable[list[dict[str, Any]]]]
    arguments: tuple[dict[str, Any], ...] = ()


RESOURCE_PROVIDERS: list[ResourceProvider] = []
PROMPTS: dict[str, PromptSpec] = {}


def register_resources(provider: ResourceProvider) -> None:
    """Add a resource provider (once per name)."""
    if all(p.name != provider.name for p in RESOURCE_PROVIDERS):
        RESOURCE_PROVIDERS.append(provider)


def register_prompt(prompt: PromptSpec) -> None:
    """Add a prompt."""
    PROMPTS[prompt.name] = prompt
