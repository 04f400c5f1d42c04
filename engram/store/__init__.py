"""Engram's SQLite store: the only package that knows SQL.

Public API (import from the submodules; this package imports nothing heavy):

- :mod:`engram.store.datadir` — ``resolve_data_dir(env)``, ``ensure_data_dir(path, mountinfo)``,
  ``check_local_filesystem(path, mountinfo)``; errors ``store.relative_data_dir``,
  ``store.network_filesystem``, ``store.bad_data_dir``.
- :mod:`engram.store.db` — ``Store.open(data_dir=None, env=None, mountinfo=...)``;
  ``store.write()`` (BEGIN IMMEDIATE transaction), ``store.read()`` (snapshot),
  ``store.connection``, ``store.integrity_check()``, ``store.close()``.
- :mod:`engram.store.migrate` — numbered ``migrations/NNNN_name.sql`` files applied in order,
  tracked by ``PRAGMA user_version``; ``migrate(conn)``, ``schema_version(conn)``.
- :mod:`engram.store.records` — frozen ``@record`` classes ``Observation``, ``Session``,
  ``Prompt``, ``Relation`` (each with ``to_dict()``; not dataclasses: the hook path imports the
  store), ``record``, ``field_names(cls)``, ``replace(item, **changes)``, ``new_sync_id(prefix)``.
- :mod:`engram.store.observations`, :mod:`engram.store.sessions`,
  :mod:`engram.store.prompts` —
  SQL functions taking a ``sqlite3.Connection``; writers run inside ``store.write()``.
- :mod:`engram.store.fts` — ``MatchQuery.build(text, mode)``: sanitised FTS5 queries that never
  raise a syntax error, ``rank_window`` (prompts' bounded ranking); :mod:`engram.store.ranking`
  — ``rank``: the observations' best-match ranking; :mod:`engram.store.search` —
  ``search_observations(conn, query, project=, type=, scope=, limit=)``.

Nothing here imports pydantic, typer or the MCP SDK: the hook path imports the store.
"""
