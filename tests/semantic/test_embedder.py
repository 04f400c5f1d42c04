"""The built-in embedder: weights from the installed wheel, no network, unit vectors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from engram.semantic.choice import choose, collect_embedders
from engram.semantic.wordllama import NAME, WordLlamaEmbedder
from engram.testing import Sandbox

# A child with every socket refused and the hub told to stay offline: loading and embedding
# must still work, and nothing may be written under the (temporary) home.
OFFLINE_CHILD = """
import json, os, socket, sys
def refuse(*args, **kwargs):
    raise OSError("network used")
socket.socket.connect = refuse
socket.create_connection = refuse
from engram.semantic.wordllama import WordLlamaEmbedder
vectors = WordLlamaEmbedder().embed(["fixed the race in the ledger worker", ""])
print(json.dumps({"shape": list(vectors.shape), "norms": [float(n) for n in
    (vectors ** 2).sum(axis=1)], "wordllama_imported": "wordllama" in sys.modules}))
"""


def test_the_built_in_embedder_loads_offline_from_the_package(sandbox: Sandbox) -> None:
    result = subprocess.run(
        [sys.executable, "-c", OFFLINE_CHILD],
        capture_output=True,
        text=True,
        env=sandbox.env(HF_HUB_OFFLINE="1"),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["shape"] == [2, 256]
    assert abs(report["norms"][0] - 1.0) < 1e-4
    assert report["norms"][1] == 0.0  # no tokens: a zero vector, never NaN
    # wordllama's own module (which configures logging and may reach a hub) is never run
    assert report["wordllama_imported"] is False
    assert not any(sandbox.home.rglob("*")) or not (sandbox.home / ".cache").exists()


def test_related_texts_are_nearer_than_unrelated_ones() -> None:
    vectors = WordLlamaEmbedder().embed(
        [
            "postgres connection pool exhausted under load",
            "database ran out of connections when traffic spiked",
            "switched the sidebar layout to flexbox",
        ]
    )
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > unrelated + 0.1


def test_the_built_in_embedder_is_the_default_when_installed() -> None:
    assert NAME in collect_embedders({})
    choice = choose(mode=None, embedder=None, env={})
    assert choice.on and choice.embedder is not None and choice.embedder.name == NAME


def test_lexical_mode_and_unknown_embedders_turn_semantic_recall_off() -> None:
    assert not choose(mode=None, embedder=None, env={"ENGRAM_SEARCH": "lexical"}).on
    stored_off = choose(mode="lexical", embedder=None, env={})
    assert not stored_off.on and "engram embed --mode hybrid" in stored_off.reason
    # the environment wins over the stored setting
    assert choose(mode="lexical", embedder=None, env={"ENGRAM_SEARCH": "hybrid"}).on
    unknown = choose(mode=None, embedder="nope", env={})
    assert not unknown.on and "no embedder called 'nope'" in unknown.reason


def test_embedding_is_batched_and_deterministic() -> None:
    embedder = WordLlamaEmbedder()
    texts = [f"note number {i} about the cache" for i in range(600)]
    once = embedder.embed(texts)
    assert once.shape == (600, 256) and once.dtype == np.float32
    assert np.allclose(once[599], embedder.embed([texts[599]])[0], atol=1e-6)


def test_a_search_never_widens_the_matrix_and_gets_the_same_vectors() -> None:
    texts = ["fixed the race in the ledger worker", "", "cache eviction on login", "x y z"]
    narrow = WordLlamaEmbedder()
    singles = np.vstack([narrow.embed([text]) for text in texts])
    assert narrow._load()[0].dtype == np.float16  # a query or a save: the stored float16 rows
    wide = WordLlamaEmbedder()
    batch = wide.embed(texts * 10)  # a backfill-sized call widens the matrix once
    assert wide._load()[0].dtype == np.float32
    assert np.array_equal(batch[: len(texts)], singles)  # bit for bit, so stored bytes match
