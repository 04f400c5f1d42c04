"""Engram: memory for AI coding agents that outlives a session.

The package is layered (see docs/architecture.md): ``store`` knows SQL, ``memory`` knows the
operations, ``server`` and ``cli`` know their protocols, ``hosts`` know host config formats and
``edit`` knows how to change a file without damaging it.
"""

__version__ = "0.1.0"
