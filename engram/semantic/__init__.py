"""Semantic recall: the embedders that turn a memory's text into a vector.

An embedder is any object with ``name``, ``dimension`` and ``embed(texts)`` (see
:class:`engram.semantic.embedder.Embedder`), contributed by a plugin's
``register_embedders(register)`` hook. The built-in one (:mod:`engram.semantic.wordllama`)
ships its weights inside the ``wordllama`` wheel and never touches the network.
:mod:`engram.semantic.choice` decides whether semantic recall is on for a store and which
embedder it uses; the vectors themselves live in the store (:mod:`engram.store.vectors`).
Nothing here is imported unless a memory is written or searched with the extra installed.
"""

import os

# One BLAS thread: a similarity scan is one memory-bound matrix-vector product, and OpenBLAS's
# thread pool cost it 40x its work on a busy 2-core machine (0.27 ms -> 11 ms for 5k rows).
# Only a default: set before numpy is first imported, and never over the user's own choice.
for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
