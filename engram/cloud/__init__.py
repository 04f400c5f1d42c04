"""Engram Cloud: ``engram cloud serve`` — team replication over Postgres.

Local SQLite stays authoritative; enrolled projects replicate through this server, which keeps
their mutation history in Postgres. Nothing in this package opens the local SQLite store.

- :mod:`engram.cloud.settings` — the server's environment, refused in one line when incoherent.
- :mod:`engram.cloud.store` — every Postgres statement (pool, numbered migrations, tables).
- :mod:`engram.cloud.auth` — bearer parsing, managed and legacy principals, project access.
- :mod:`engram.cloud.replication` — push/pull of mutations and chunks, pause controls.
- :mod:`engram.cloud.identity` — managed users, tokens and grants (the admin operations).
- :mod:`engram.cloud.bootstrap` — ``engram cloud bootstrap admin`` / ``recover-token``.
- :mod:`engram.cloud.app` — the Starlette app: route groups registered from a list.

psycopg, Starlette and uvicorn are imported only by this package, so the ``engram`` CLI loads
them only when a cloud server command runs.
"""
