"""The built-in embedder: WordLlama's 256-dimension ``l2_supercat`` model, offline.

The ``wordllama`` wheel carries the model's weights (``weights/l2_supercat_256.safetensors``,
16 MB) and its tokenizer (``tokenizers/l2_supercat_tokenizer_config.json``). Its own
``WordLlama.load()`` would look in a cache and then ask a model hub, and configures the root
logger on import, so Engram reads the two files from the installed package directory itself
(the weights memory-mapped, the tokenizer with ``tokenizers``, a wordllama dependency) and
never imports ``wordllama``: no network, no download, no write outside the store. A text's
vector is the mean of its tokens' vectors, normalised, which is how the model was trained.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import TYPE_CHECKING, Any, cast

from engram.errors import EngramError
from engram.hosts.hookspecs import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

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
# A process's first queries are tokenized from the token table (~0.5 ms each) rather than by
# loading the tokenizer (~75 ms, ~16 MB); past this many it loads it (~0.03 ms a query).
TABLE_QUERIES = 16


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
        return all(importlib.util.find_spec(m) for m in ("numpy", "tokenizers"))
    except (ImportError, ValueError, AttributeError):
        return False


class WordLlamaEmbedder:
    """Mean-pooled WordLlama token vectors; the weights load on the first ``embed`` call."""

    name = NAME
    dimension = DIMENSION

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: tuple[Any, Any] | None = None
        self._weights: Any = None
        self._tables: dict[str, Any] = {}  # vectors folder -> its TokenTable (or None)
        self._table_queries = 0

    @property
    def ready(self) -> bool:
        """Whether the model is loaded (a store embeds inside a write only then)."""
        return self._model is not None

    def warm(self) -> None:
        """Load the model now (a store calls this outside its write lock)."""
        self._load()

    def _load(self, wide: bool = False) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                self._model = _read_model(self._weights)
            if wide and self._model[0].dtype != "float32":
                self._model = (self._model[0].astype("float32"), self._model[1])
            return self._model

    def _mapped_weights(self) -> Any:
        """The weights alone (memory-mapped), without loading the tokenizer."""
        with self._lock:
            if self._model is not None:
                return self._model[0]
            if self._weights is None:
                self._weights = _map_weights()
            return self._weights

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit vector per text (all zeros for a text with no tokens)."""
        import numpy as np

        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            out[start : start + BATCH] = self._embed_batch(texts[start : start + BATCH])
        return out

    def query_vector(self, text: str, folder: Path | None) -> npt.NDArray[np.float32]:
        """``embed([text])[0]``, the same vector; while this process has not loaded the
        tokenizer, its first ``TABLE_QUERIES`` queries are tokenized from the table in
        ``folder`` (:mod:`engram.semantic.token_table`) instead of loading it."""
        if self._model is None and folder is not None and self._table_queries < TABLE_QUERIES:
            table = self._table(folder)
            ids = table.encode(text) if table is not None else None
            if ids is not None:
                self._table_queries += 1
                matrix = pool([ids], self._mapped_weights(), DIMENSION)
            else:
                matrix = self.embed([text])
        else:
            matrix = self.embed([text])
        return cast("npt.NDArray[np.float32]", matrix[0])

    def keep_query_tokens(self, folder: Path) -> None:
        """Write the token table into ``folder`` if it is missing or stale (the tokenizer's
        1.8 MB file read again, ~0.3 s, by a process that embeds memories)."""
        from engram.semantic import token_table

        config = _tokenizer_path()
        if config is not None and self._table(folder) is None:
            token_table.build(config, folder, NAME)
            self._tables.pop(str(folder))  # opened on next use

    def _table(self, folder: Path) -> Any:
        from engram.semantic import token_table

        key = str(folder)
        if key not in self._tables:
            config = _tokenizer_path()
            opened = token_table.TokenTable.open(folder, config, NAME) if config else None
            self._tables[key] = opened
        return self._tables[key]

    def _embed_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        weights, tokenizer = self._load(wide=len(texts) >= WIDEN_AT)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if len(texts) == 1:  # a save: the batch call's thread hand-off costs more than it saves
            encoded = [tokenizer.encode(texts[0], add_special_tokens=False)]
        else:
            encoded = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return pool([e.ids for e in encoded], weights, self.dimension)


def pool(
    token_ids: Sequence[Sequence[int]], weights: Any, dimension: int
) -> npt.NDArray[np.float32]:
    """The normalised mean of each text's token vectors (zeros for a text with no tokens)."""
    import numpy as np

    out = np.zeros((len(token_ids), dimension), dtype=np.float32)
    lengths = np.array([len(ids) for ids in token_ids], dtype=np.int64)
    ids = np.fromiter((i for each in token_ids for i in each), dtype=np.int64, count=lengths.sum())
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


def _tokenizer_path() -> str | None:
    folder = package_dir()
    return os.path.join(folder, TOKENIZER) if folder is not None else None


def _map_weights() -> Any:
    """The weight matrix, memory-mapped from the package (see :func:`_read_model`)."""
    folder = package_dir()
    if folder is None or not available():
        raise _missing()
    try:
        return map_tensor(os.path.join(folder, WEIGHTS), "embedding.weight")
    except (OSError, ValueError, KeyError) as exc:
        raise _unreadable(folder, exc) from None


def _missing() -> EngramError:
    return EngramError(
        "semantic.missing_extra",
        "the built-in embedder needs the semantic extra (wordllama, numpy)",
        f"install it: {install_command()}",
    )


def _unreadable(folder: str, exc: Exception) -> EngramError:
    return EngramError(
        "semantic.model_unreadable",
        f"cannot read the wordllama model in {folder}: {exc}",
        f"reinstall it: {install_command()}",
    )


def _read_model(weights: Any = None) -> tuple[Any, Any]:
    """The weight matrix (float16 as stored, vocabulary x 256: 16 MB, memory-mapped from the
    package's file; ``weights`` when already mapped) and the tokenizer. A query touches only
    its tokens' pages, so a process that only searches holds a few KB of the model, not
    16 MB. Sums run in float32 (numpy's float16 arithmetic is ~20x slower): the gathered rows
    are widened, or the whole matrix once for large batches (``WIDEN_AT``)."""
    folder = package_dir()
    if folder is None or not available():
        raise _missing()
    if weights is None:
        weights = _map_weights()
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(os.path.join(folder, TOKENIZER))
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        raise _unreadable(folder, exc) from None
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return weights, tokenizer


def map_tensor(path: str, name: str) -> npt.NDArray[np.float16]:
    """One float16 matrix of a safetensors file, memory-mapped read-only.

    The format: a little-endian u64 header length, that many bytes of JSON naming each
    tensor's ``dtype``, ``shape`` and ``data_offsets`` (relative to the end of the header),
    then the data. Everything is checked against the file's size before it is mapped, so a
    truncated or foreign file is a ``ValueError``, never a read past its end."""
    import json
    import mmap

    import numpy as np

    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # an empty file: ValueError
    size = len(mapped)
    length = int.from_bytes(mapped[:8], "little")
    if size < 8 or not 2 <= length <= min(size - 8, 1 << 20):
        raise ValueError(f"not a safetensors file (header length {length}, {size} bytes)")
    header = json.loads(mapped[8 : 8 + length])
    entry = header.get(name) if isinstance(header, dict) else None
    if not isinstance(entry, dict):
        raise KeyError(f"{name} is not in {os.path.basename(path)}")
    shape, offsets = entry.get("shape"), entry.get("data_offsets")
    if (
        entry.get("dtype") != "F16"
        or not (isinstance(shape, list) and len(shape) == 2)
        or not (isinstance(offsets, list) and len(offsets) == 2)
        or not all(isinstance(n, int) and n > 0 for n in shape)
        or not all(isinstance(n, int) and n >= 0 for n in offsets)
    ):
        raise ValueError(f"{name}: expected a float16 matrix, found {entry!r:.200}")
    begin, end = offsets
    if end - begin != shape[0] * shape[1] * 2 or 8 + length + end > size:
        raise ValueError(f"{name}: its data does not fit the file ({size} bytes)")
    rows, columns = shape
    matrix = np.frombuffer(mapped, dtype="<f2", count=rows * columns, offset=8 + length + begin)
    return matrix.reshape(rows, columns)


@hookimpl
def register_embedders(register: Callable[[WordLlamaEmbedder], None]) -> None:
    """The built-in embedder, when its package is installed."""
    if available():
        register(WordLlamaEmbedder())
