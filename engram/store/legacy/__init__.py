"""Another tool's database in the data directory: the Go ``engram``'s SQLite store.

- :mod:`.detect` — recognise it (v0.1.x or 2.x schema) and refuse it with a reason before
  anything is written; refuse a database that is neither ours nor the Go tool's.
- :mod:`.backup` — copy the database triplet (db, -wal, -shm) to a dated backup beside it and
  verify the copy.
- :mod:`.convert` — turn it into an Engram store inside one transaction, every record kept.
- :mod:`.migrate_go` — the two ways in: convert in place (``engram migrate``, or the first
  write) and a converted scratch copy for reads before any write.

The rest of the store never learns about the Go schema: :mod:`engram.store.migrate` hands a
database it does not recognise to :func:`.detect.refuse_foreign`.
"""
