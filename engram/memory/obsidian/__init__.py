"""``engram obsidian-export``: the journal as an Obsidian vault.

One note per observation (YAML frontmatter: id, sync id, type, project, scope, topic key,
created/updated, tags), one per session linking its observations, one per topic and per
project, and an ``Engram.md`` index. Relations (supersedes, conflicts with) are wikilinks.

Re-running rewrites only notes whose content changed. A state file
(``.engram/obsidian-export.json`` inside the vault folder) records the hash of every note as
written; a note whose file no longer has that hash was edited by the user and is kept, and
reported, never overwritten or removed.
"""

from engram.memory.obsidian.export import export_vault
from engram.memory.obsidian.vault import ExportReport

__all__ = ["ExportReport", "export_vault"]
