"""Change a user's config file without damaging it.

Host plugins describe what they want as :mod:`engram.edit.plan` objects; this package applies
them: format-preserving JSON / JSONC / TOML / YAML / Markdown editors, atomic writes, and the link
ledger that remembers exactly what Engram wrote.
"""

from __future__ import annotations

from pathlib import Path

from engram.edit.plan import DocFormat, JSONValue


def read_document(path: Path, format: DocFormat) -> JSONValue | None:
    """The data in a JSON / JSONC / TOML / YAML file; None when it does not exist.

    Raises ``edit.parse_error`` (file, line, column) when it does not parse. An empty file
    reads as ``{}``.
    """
    from engram.edit.atomic import read_text

    text = read_text(path)
    if text is None:
        return None
    if format is DocFormat.TOML:
        from engram.edit import toml_doc

        return toml_doc.load(text, str(path))
    if format is DocFormat.YAML:
        from engram.edit import yaml_doc

        return yaml_doc.load(text, str(path))
    from engram.edit.jsonc import document

    return document.load(text, str(path))
