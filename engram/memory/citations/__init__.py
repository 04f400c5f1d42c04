"""Code citations: the files and symbols a memory names, found at save and checked on read.

- :mod:`.recording` records them at save (every write path calls it);
- :mod:`.finding` finds what a saved memory cites in its (redacted) title and content;
- :mod:`.symbols` is the plain-text definition scan, one set of patterns per language family;
- :mod:`.worktree` reads a repository: HEAD without spawning git, blob ids, and (only when a
  cited file is missing) git's rename detection;
- :mod:`.checking` checks the citations of served memories against the working tree, with a
  cache keyed by file identity, and returns a :class:`~.status.CodeStatus` per memory;
- :mod:`.status` is that verdict and the settings (``ENGRAM_CODE_CITATIONS``) surfaces honour.

Surfaces never check anything themselves: they display the status the memory layer attached.
"""
