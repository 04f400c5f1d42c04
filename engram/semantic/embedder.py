"""What an embedder is: a name, a dimension and a function from texts to unit vectors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

# The characters of a memory an embedder sees: a static model averages its tokens, so text far
# past the opening only dilutes the vector (and costs time on a 100 KB paste).
MAX_CHARS = 4000


@runtime_checkable
class Embedder(Protocol):
    """An embedding model a plugin registers.

    ``name`` is recorded on every row it embeds (with the dimension, ``name:dimension``), so a
    store never ranks vectors of two models against each other. ``embed`` returns one row per
    text, ``float32``, each of unit length (or all zeros for a text with no tokens).
    """

    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit vector per text, shape ``(len(texts), dimension)``."""
        ...


def model_label(embedder: Embedder) -> str:
    """What ``embedding_model`` records for rows this embedder made: ``name:dimension``."""
    return f"{embedder.name}:{embedder.dimension}"


def document_text(title: str, content: str) -> str:
    """The text of a memory that gets embedded: its title, then the start of its content."""
    return f"{title}\n{content}"[:MAX_CHARS]
