"""Engram's hooks: the ``engram hook <host>`` runtime and the assets ``engram link`` installs.

- :mod:`engram.hooks.runtime` - the fail-open entry point (stdin JSON in, host schema out).
- :mod:`engram.hooks.events` - what each host's events mean (start, prompt, compaction, end).
- :mod:`engram.hooks.answers` - each host's exact output schema.
- :mod:`engram.hooks.respond` - what Engram does for each moment (memory pack, deltas).
- :mod:`engram.hooks.state` - the per-session state file that makes prompts incremental.
- :mod:`engram.hooks.render` - instruction blocks, rules, the skill and hook entries.

This package is on the hook's hot path: keep its imports light (no typer, pydantic or MCP SDK).
"""
