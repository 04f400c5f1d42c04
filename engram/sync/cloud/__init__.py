"""The cloud transport of ``engram sync``: replicate enrolled projects through Engram Cloud.

- :mod:`.config` — ``cloud.json`` in the data dir: the global remote and per-project remotes.
- :mod:`.client` — the HTTP client (stdlib ``urllib``) and the deterministic reason codes.
- :mod:`.replicate` — push the journal, pull and apply remote mutations, status.
- :mod:`.autosync` — background replication for ``engram serve`` and ``engram-mcp``.
- :mod:`.upgrade` — bringing an existing local project's history into the cloud and back out.

The local store stays authoritative; nothing here holds a store lock during network I/O.
"""
