"""Governed settings read from ``<data dir>/config.json``.

Keys (nested objects or dotted names both work)::

    {"mcp": {"resource_limit": 20}, "load": {"working_ttl_days": 7, "budget_tokens": 1200}}

``mcp.resource_limit`` (0-200, default 20): memories listed by ``resources/list`` besides the
index. ``load.working_ttl_days`` (1-365, default 7): how long a working-tier note stays valid.
``load.budget_tokens`` (1-200000, default 1200): the default token budget of a load.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.errors import EngramError

CONFIG_FILE = "config.json"
_LIMITS = {
    "mcp.resource_limit": (0, 200, 20),
    "load.working_ttl_days": (1, 365, 7),
    "load.budget_tokens": (1, 200_000, 1200),
}


@dataclass(frozen=True, slots=True)
class GovernedConfig:
    """The governed knobs, validated."""

    resource_limit: int = 20
    working_ttl_days: int = 7
    budget_tokens: int = 1200


def _lookup(data: dict[str, Any], dotted: str) -> Any:
    if dotted in data:
        return data[dotted]
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def load_config(data_dir: Path) -> GovernedConfig:
    """Read and validate ``config.json`` in ``data_dir``; defaults when the file is absent."""
    path = data_dir / CONFIG_FILE
    if not path.exists():
        return GovernedConfig()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise EngramError(
            "config.invalid_json", f"{path} is not valid JSON ({exc})", "fix or delete the file"
        ) from exc
    if not isinstance(data, dict):
        raise EngramError("config.invalid_json", f"{path} must hold a JSON object", "fix it")
    values: dict[str, int] = {}
    for dotted, (low, high, default) in _LIMITS.items():
        raw = _lookup(data, dotted)
        if raw is None:
            values[dotted] = default
            continue
        if isinstance(raw, bool) or not isinstance(raw, int) or not low <= raw <= high:
            raise EngramError(
                "config.out_of_range",
                f"{dotted} in {path} must be an integer from {low} to {high}, got {raw!r}",
                f"set it within range or remove it (default {default})",
            )
        values[dotted] = raw
    return GovernedConfig(
        resource_limit=values["mcp.resource_limit"],
        working_ttl_days=values["load.working_ttl_days"],
        budget_tokens=values["load.budget_tokens"],
    )
