"""The cloud's Postgres store: the only place that holds SQL for ``engram cloud serve``.

- :mod:`.db` — ``CloudStore.open(url)``: a psycopg 3 connection pool, migrated on open;
  ``store.transaction()`` is one unit of work.
- :mod:`.migrate` — numbered ``migrations/NNNN_name.sql`` files, applied under an advisory
  lock so several servers starting at once migrate once.
- :mod:`.mutations` — the replicated mutation log and chunk history.
- :mod:`.projects` — per-project sync controls (pause/resume) and the sync audit log.
- :mod:`.principals` — managed users, hashed tokens, project grants.
- :mod:`.auth_audit` — ``cloud_auth_audit_log``.
- :mod:`.claims` — session authorities and prompt-pair claims.
"""
