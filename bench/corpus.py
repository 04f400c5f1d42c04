"""Synthetic observations that look like an agent's journal, for bench/store_bench.py.

Words follow a Zipf-like law (the word of rank r appears with weight 1/r^1.1), the way words do
in real notes: a handful are in almost every observation, most are rare. The vocabulary mixes
the words coding agents actually write with generated identifiers, so FTS5 sees a realistic
mix of very common, mid-frequency and rare terms. Everything is seeded, so the same size gives
the same corpus every run.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass

# The most frequent words first: these carry the head of the Zipf curve.
CORE_WORDS = [
    "the",
    "fix",
    "test",
    "error",
    "file",
    "function",
    "config",
    "update",
    "add",
    "use",
    "when",
    "with",
    "from",
    "that",
    "this",
    "for",
    "not",
    "api",
    "database",
    "query",
    "cache",
    "session",
    "user",
    "token",
    "request",
    "response",
    "module",
    "import",
    "build",
    "deploy",
    "migration",
    "schema",
    "index",
    "search",
    "memory",
    "project",
    "hook",
    "server",
    "client",
    "timeout",
    "retry",
    "lock",
    "path",
    "auth",
    "login",
    "handler",
    "route",
    "model",
    "store",
    "commit",
    "branch",
    "merge",
    "release",
    "version",
    "docs",
    "bug",
    "issue",
    "performance",
    "latency",
    "race",
    "condition",
    "null",
    "pointer",
    "exception",
    "stack",
    "trace",
    "log",
    "warning",
    "debug",
    "refactor",
    "rename",
    "extract",
    "helper",
    "parser",
    "lexer",
    "compiler",
    "runtime",
    "async",
    "await",
    "thread",
    "process",
    "queue",
    "worker",
    "job",
    "scheduler",
    "cron",
    "event",
    "stream",
    "socket",
    "http",
    "json",
    "yaml",
    "toml",
    "sql",
    "sqlite",
    "postgres",
    "redis",
    "docker",
    "kubernetes",
    "container",
    "image",
    "volume",
    "network",
    "proxy",
    "gateway",
    "webhook",
    "payload",
    "field",
    "column",
    "table",
    "row",
    "transaction",
    "rollback",
    "constraint",
    "foreign",
    "key",
    "unique",
    "primary",
    "default",
    "value",
]

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "ti",
    "vo",
    "ze",
    "bra",
    "cli",
    "dro",
    "fen",
    "gri",
    "hul",
    "jax",
    "kor",
    "lum",
    "mor",
    "nix",
    "pex",
]
TYPES = ("decision", "bugfix", "discovery", "pattern", "architecture", "config", "manual")
VOCABULARY_SIZE = 30_000


@dataclass(frozen=True)
class SyntheticObservation:
    """One generated row: project, type, title and content."""

    project: str
    type: str
    title: str
    content: str


def vocabulary(size: int = VOCABULARY_SIZE) -> list[str]:
    """Words by rank: real ones first, then generated identifiers (``kalomi``, ``brafen_2``)."""
    words = list(dict.fromkeys(CORE_WORDS))
    for length in (2, 3, 4):
        for combo in itertools.product(SYLLABLES, repeat=length):
            words.append("".join(combo))
            if len(words) >= size:
                return words
    counter = itertools.count()
    while len(words) < size:
        words.append(f"sym{next(counter)}")
    return words


def zipf_weights(count: int, exponent: float = 1.1) -> list[float]:
    """Cumulative weights for ``random.choices`` following 1/r^exponent."""
    return list(itertools.accumulate(1.0 / (rank**exponent) for rank in range(1, count + 1)))


def project_names(count: int = 8) -> list[str]:
    """Project names, the first one largest (projects also follow a skewed distribution)."""
    base = ["acme-api", "billing", "frontend", "infra", "mobile-app", "data-pipeline", "docs"]
    return (base + [f"service-{i}" for i in range(count)])[:count]


def observations(count: int, seed: int = 7) -> Iterator[SyntheticObservation]:
    """``count`` observations spread over the projects, with Zipf-distributed words."""
    rng = random.Random(seed)
    words = vocabulary()
    cumulative = zipf_weights(len(words))
    projects = project_names()
    project_weights = list(itertools.accumulate(1.0 / (rank**0.8) for rank in range(1, 9)))
    for _ in range(count):
        title_words = rng.choices(words, cum_weights=cumulative, k=rng.randint(4, 9))
        body_words = rng.choices(words, cum_weights=cumulative, k=rng.randint(25, 90))
        yield SyntheticObservation(
            project=rng.choices(projects, cum_weights=project_weights)[0],
            type=rng.choice(TYPES),
            title=" ".join(title_words).capitalize(),
            content=_sentences(body_words, rng),
        )


def _sentences(words: list[str], rng: random.Random) -> str:
    """Words grouped into short sentences so bodies read like notes, not word salad."""
    out: list[str] = []
    start = 0
    while start < len(words):
        end = start + rng.randint(6, 14)
        out.append(" ".join(words[start:end]).capitalize() + ".")
        start = end
    return " ".join(out)


def term_at_rank(rank: int) -> str:
    """The vocabulary word of a given Zipf rank (1 = most common)."""
    return vocabulary()[rank - 1]
