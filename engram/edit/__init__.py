"""Change a user's config file without damaging it.

Host plugins describe what they want as :mod:`engram.edit.plan` objects; this package applies
them: format-preserving JSON / JSONC / TOML / Markdown editors, atomic writes, and the link
ledger that remembers exactly what Engram wrote.
"""
