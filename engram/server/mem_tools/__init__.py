"""The 23 ``mem_*`` journal tools: thin adapters from MCP arguments to engram.memory calls.

Modules register their tools with :func:`engram.server.registry.register` on import:
``journal`` (save, update, get, topic keys, prompts, passive capture), ``recall`` (search,
context, timeline), ``sessions``, ``projects`` (current/list/stats/merge/doctor) and
``curation`` (judge, compare, review, pin, unpin, delete). Shared plumbing — the store, project
resolution, the answer envelope — lives in ``context``; shared parameters in ``params``.
"""
