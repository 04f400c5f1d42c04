"""``engram tui``: browse memory as a person, on Textual.

One :class:`~textual.screen.Screen` class per screen under :mod:`engram.tui.screens`, each with
its bindings on the class and its CSS in a ``.tcss`` file beside it. Every query runs in a
worker thread through :mod:`engram.memory` (never the store's tables), one page at a time.
Importing this package imports Textual: only ``engram tui`` does.
"""
