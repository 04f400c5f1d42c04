"""One module per screen of ``engram tui``, each with its ``.tcss`` beside it."""
