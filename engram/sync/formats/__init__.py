"""Chunk formats other than ours, each a reader/writer pair (docs/sync.md, "Mixed teams").

- :mod:`engram.sync.formats.go_chunk` — the Go tool's chunks (``<8 hex>.jsonl.gz``): one
  gzipped JSON document of sessions, observations and prompts (v0.1.x), with a ``mutations``
  list (2.x). Read into our mutations under the same trust gate and bounded decoding as our
  own; written instead of ours when the repository already holds Go chunks.
- :mod:`engram.sync.formats.go_manifest` — the Go tool's ``manifest.json`` (``{"version",
  "chunks": [{id, created_by, created_at, sessions, memories, prompts}]}``), kept entry for
  entry when we add ours.
"""
