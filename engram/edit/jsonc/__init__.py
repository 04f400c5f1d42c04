"""A JSONC editor of our own: change one value, keep every other byte.

Built the way Microsoft's ``jsonc-parser`` (npm) works — a scanner with offsets
(:mod:`.scanner`), a tolerant parse tree that remembers where each child and comma is
(:mod:`.tree`), minimal text splices (:mod:`.splice`) and the document conventions new text
follows (:mod:`.layout`) — and used through :mod:`.document`: ``load``, ``get``,
``set_value``, ``add_to_list``, ``remove_value``, ``remove_from_list``.
"""

from engram.edit.jsonc.document import (
    Undo,
    add_to_list,
    get,
    load,
    remove_from_list,
    remove_value,
    set_value,
)

__all__ = ["Undo", "add_to_list", "get", "load", "remove_from_list", "remove_value", "set_value"]
