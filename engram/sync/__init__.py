"""Sync: the mutation journal's export and import (docs/sync.md).

- :mod:`engram.sync.mutation` — the wire format of one mutation (pure; the cloud imports it).
- :mod:`engram.sync.chunk` — gzipped JSONL chunks: ``encode_chunk``, ``read_chunk``.
- :mod:`engram.sync.manifest` — ``.engram/manifest.json``, one line per chunk (merge=union).
- :mod:`engram.sync.apply` — the convergence rule (``Applier``).
- :mod:`engram.sync.export` / :mod:`engram.sync.importer` — ``engram sync`` and ``--import``.
- :mod:`engram.sync.status` — ``engram sync --status`` and ``GET /sync/status``.
- :mod:`engram.sync.gitdir` — the git working-tree transport (the ``.engram`` folder).

Nothing here knows HTTP; the store's SQL lives in ``engram.store.sync_*``.
"""
