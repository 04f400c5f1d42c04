"""The built-in embedder: WordLlama's 256-dimension ``l2_supercat`` model, offline.

The ``wordllama`` wheel carries the model's weights (``weights/l2_supercat_256.safetensors``,
16 MB) and its tokenizer (``tokenizers/l2_supercat_tokenizer_config.json``). Its own
``WordLlama.load()`` would look in a cache and then ask a model hub, and configures the root
logger on import, so Engram reads the two files from the installed package directory itself
(``safetensors`` and ``tokenizers``, both wordllama dependencies) and never imports
``wordllama``: no network, no download, no write outside the store. A text's vector is the
mean of its tokens' vectors, normalised, which is how the model was trained to be used.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import TYPE_CHECKING, Any

from engram.errors import EngramError
from engram.hosts.hookspecs import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np
    import numpy.typing as npt

NAME = "wordllama-l2-supercat"
DIMENSION = 256
WEIGHTS = os.path.join("weights", "l2_supercat_256.safetensors")
TOKENIZER = os.path.join("tokenizers", "l2_supercat_tokenizer_config.json")
# Texts a batch: bounds the gathered token vectors (~16 MB for 256 texts of 64 tokens).
BATCH = 256
# From this many texts a call, the matrix is widened to float32 once (a backfill's batches
# then skip converting their gathered rows); a search's query and a save stay on float16.
WIDEN_AT = 32


def install_command() -> str:
    """The command that adds the extra to *this* installation (uv tool, pipx, a venv's pip or
    uv, from the index or the clone it came from), keeping the extras installed now."""
    from engram.installation import command_adding

    return command_adding("semantic")


def package_dir() -> str | None:
    """Where the ``wordllama`` package is installed (found without importing it), or None."""
    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(next(iter(spec.submodule_search_locations)))


def available() -> bool:
    """Whether the model's files and the libraries that read them are installed."""
    folder = package_dir()
    if folder is None or not os.path.isfile(os.path.join(folder, WEIGHTS)):
        return False
    try:
        return all(importlib.util.find_spec(m) for m in ("numpy", "safetensors", "tokenizers"))
    except (ImportError, ValueError, AttributeError):
        return False


class WordLlamaEmbedder:
    """Mean-pooled WordLlama token vectors; the weights load on the first ``embed`` call."""

    name = NAME
    dimension = DIMENSION

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: tuple[Any, Any] | None = None

    @property
    def ready(self) -> bool:
        """Whether the weights are loaded (a store embeds inside a write only then)."""
        return self._model is not None

    def warm(self) -> None:
        """Load the weights now (a store calls this outside its write lock)."""
        self._load()

    def _load(self, wide: bool = False) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                self._model = _read_model()
            if wide and self._model[0].dtype != "float32":
                self._model = (self._model[0].astype("float32"), self._model[1])
            return self._model

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit vector per text (all zeros for a text with no tokens)."""
        import numpy as np

        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            out[start : start + BATCH] = self._embed_batch(texts[start : start + BATCH])
        return out

    def _embed_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        weights, tokenizer = self._load(wide=len(texts) >= WIDEN_AT)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        if len(texts) == 1:  # a save: the batch call's thread hand-off costs more than it saves
            encoded = [tokenizer.encode(texts[0], add_special_tokens=False)]
        else:
            encoded = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.array([len(e.ids) for e in encoded], dtype=np.int64)
        ids = np.fromiter((i for e in encoded for i in e.ids), dtype=np.int64, count=lengths.sum())
        np.minimum(ids, weights.shape[0] - 1, out=ids)  # token ids are never negative
        filled = lengths > 0
        if ids.size:
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[filled]
            # float16 rows widened before the sum: the same float32 arithmetic either way.
            sums = np.add.reduceat(weights[ids].astype(np.float32, copy=False), starts, axis=0)
            out[filled] = sums / lengths[filled, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


def _read_model() -> tuple[Any, Any]:
    """The weight matrix (float16 as stored, vocabulary x 256: 16 MB) and the tokenizer, from
    the package. Sums run in float32 (numpy's float16 arithmetic is ~20x slower): the
    gathered rows are widened, or the whole matrix once for large batches (``WIDEN_AT``); a
    process that only searches never holds the 32 MB float32 copy nor pays its conversion."""
    folder = package_dir()
    if folder is None or not available():
        raise EngramError(
            "semantic.missing_extra",
            "the built-in embedder needs the semantic extra (wordllama, numpy)",
            f"install it: {install_command()}",
        )
    from safetensors import safe_open
    from tokenizers import Tokenizer

    try:
        with safe_open(os.path.join(folder, WEIGHTS), framework="np") as f:
            weights = f.get_tensor("embedding.weight")
        tokenizer = Tokenizer.from_file(os.path.join(folder, TOKENIZER))
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        raise EngramError(
            "semantic.model_unreadable",
            f"cannot read the wordllama model in {folder}: {exc}",
            f"reinstall it: {install_command()}",
        ) from None
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return weights, tokenizer


@hookimpl
def register_embedders(register: Callable[[WordLlamaEmbedder], None]) -> None:
    """The built-in embedder, when its package is installed."""
    if available():
        register(WordLlamaEmbedder())
