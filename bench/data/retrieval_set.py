"""The labelled retrieval set: an agent journal of ~5,200 memories and 360 labelled queries.

Built deterministically (seed 18) from the hand-written vocabulary in ``vocab.py``; nothing
here looks at any ranking. Run it to print a summary, or ``--write PATH`` to dump JSON::

    .venv/bin/python bench/data/retrieval_set.py

The journal spans six projects and twelve months: bug fixes (every component x problem
pair is a candidate; each fix names a unique function and error code), decision chains (a
first choice later replaced: superseded by a judged relation, the old one soft-deleted, a
topic-key revision in place, or an unlinked newer note), conventions with topic keys and
revisions, discoveries, old notes whose titles are made of common words, and thousands of
routine notes full of those common words. Queries, each with its relevant memory ids:

- ``exact``: the words of a title;
- ``paraphrase``: how an agent asks later (different words; at most a shared stem or two);
- ``partial``: one distinctive term (a function name or an error code);
- ``old``: an old memory whose title words are common words of newer notes;
- ``project``: the same component and problem exist in several projects; filtered to one;
- ``latest``: a decision that changed; only the latest revision is relevant;
- ``concept``: a bug described by its meaning (``concepts.py``): no content word and no stem
  shared with the answer (asserted here with SQLite's own porter stemmer and a 4-letter
  prefix rule), so lexical search alone finds it only by accident;
- ``mixed``: one rare word of the answer (a component's name word, in under 2% of the
  memories) plus the concept phrase of its problem, which shares nothing;
- ``everyday``: hand-written memories, each its own story (``everyday.py``), asked for in
  other words under the same rule as ``concept`` (no content word or stem shared).
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import concepts
import everyday
import vocab

SEED = 18
START = datetime(2025, 12, 1, 8, 0, 0)
DAYS = 365
KINDS = (
    "exact",
    "paraphrase",
    "partial",
    "old",
    "project",
    "latest",
    "concept",
    "mixed",
    "everyday",
)
PER_KIND = 60
FILLER = 4000
_TOKEN = re.compile(r"[^\W_]+")


@dataclass
class Memory:
    id: str
    project: str
    type: str
    title: str
    content: str
    created_at: str
    topic_key: str | None = None
    revision_count: int = 1
    deleted: bool = False


@dataclass(frozen=True)
class Query:
    id: str
    kind: str
    text: str
    relevant: tuple[str, ...]
    project: str | None = None


@dataclass
class RetrievalSet:
    memories: list[Memory]
    supersedes: list[tuple[str, str]]  # (newer id, older id): judged 'supersedes' relations
    queries: list[Query] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(
            {
                "memories": [asdict(m) for m in self.memories],
                "supersedes": self.supersedes,
                "queries": [asdict(q) for q in self.queries],
            }
        )


def tokens(text: str) -> set[str]:
    return {t.lower() for t in _TOKEN.findall(text)}


class _Journal:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.memories: list[Memory] = []
        self.supersedes: list[tuple[str, str]] = []
        self.idents: set[str] = set()

    def stamp(self, day: float) -> str:
        moment = START + timedelta(days=day, seconds=self.rng.randint(0, 36000))
        return moment.strftime("%Y-%m-%d %H:%M:%S")

    def add(self, day: float, **fields: object) -> Memory:
        memory = Memory(id="", created_at=self.stamp(day), **fields)  # type: ignore[arg-type]
        self.memories.append(memory)
        return memory

    def identifier(self, component: str) -> str:
        verbs = ["flush", "load", "merge", "retry", "resolve", "emit", "fetch", "apply", "sync"]
        nouns = ["batch", "window", "cursor", "entry", "payload", "state", "chunk", "record"]
        head = component.split()[-1].replace("-", "")
        while True:
            verb, noun = self.rng.choice(verbs), self.rng.choice(nouns)
            if self.rng.random() < 0.5:
                name = f"{head}_{verb}_{noun}_{self.rng.randint(2, 99)}"
            else:
                name = f"{verb}{head.capitalize()}{noun.capitalize()}{self.rng.randint(2, 99)}"
            if name not in self.idents:
                self.idents.add(name)
                return name

    def error_code(self, project: str) -> str:
        while True:
            code = f"{project[:3].upper()}{self.rng.randint(1000, 9999)}"
            if code not in self.idents:
                self.idents.add(code)
                return code


def _bugfixes(journal: _Journal) -> list[tuple[Memory, vocab.Problem, vocab.Component, str, str]]:
    rng = journal.rng
    shared = {"session store", "job queue"}
    made = []
    for project, components in vocab.COMPONENTS.items():
        for component in components:
            for problem in vocab.PROBLEMS:
                if component.name not in shared and rng.random() > 0.7:
                    continue
                ident = journal.identifier(component.name)
                code = journal.error_code(project)
                tech = rng.choice(vocab.TECH)
                title = rng.choice(
                    [
                        f"Fixed {problem.name} in {component.name}",
                        f"Fix {problem.name} in the {component.name}",
                        f"{component.name.capitalize()}: {problem.name} fixed",
                    ]
                )
                content = (
                    f"Symptom: {problem.symptom}. Cause: {problem.cause}, in {ident}. "
                    f"Fix: {problem.fix}. The {component.name} handles {component.describes} "
                    f"({tech}). Logged as {code}. "
                    + (rng.choice(vocab.COMMON_NOTES) + "." if rng.random() < 0.4 else "")
                )
                memory = journal.add(
                    rng.uniform(0, DAYS),
                    project=project,
                    type="bugfix",
                    title=title,
                    content=content,
                )
                made.append((memory, problem, component, ident, code))
    return made


def _decisions(journal: _Journal) -> list[tuple[Memory, str, str, str, str]]:
    """Decision chains; returns (latest memory, its project, how people ask) per chain."""
    rng = journal.rng
    latest = []
    ways = ["relation", "deleted", "topic", "unlinked"]
    number = 100
    for project in vocab.COMPONENTS:
        for topic, first, later, reason, asks in rng.sample(vocab.DECISIONS, 14):
            way = ways[number % len(ways)]
            number += 1
            key = f"decision/{topic.replace(' ', '-')}"
            early, late = rng.uniform(0, 150), rng.uniform(200, DAYS - 5)
            old_title = f"Use {first} for the {topic}"
            old_content = (
                f"Decision: use {first} for the {topic}. It is what the team knows and it "
                f"was quick to set up. ADR-{number}."
            )
            new_title = f"Switch the {topic} from {first} to {later}"
            new_content = (
                f"Decision: the {topic} moves from {first} to {later} because {reason}. "
                f"Replaces the earlier choice of {first}. ADR-{number + 500}."
            )
            if way == "topic":  # upserted in place: one row, the latest revision's text
                memory = journal.add(
                    late,
                    project=project,
                    type="decision",
                    title=new_title,
                    content=new_content,
                    topic_key=key,
                    revision_count=2,
                )
                latest.append((memory, project, asks, topic, first))
                continue
            old = journal.add(
                early,
                project=project,
                type="decision",
                title=old_title,
                content=old_content,
                deleted=way == "deleted",
            )
            new = journal.add(
                late, project=project, type="decision", title=new_title, content=new_content
            )
            if way == "relation":
                journal.supersedes.append((f"@{id(new)}", f"@{id(old)}"))
            latest.append((new, project, asks, topic, first))
    return latest


def _conventions(journal: _Journal) -> list[tuple[Memory, str]]:
    rng = journal.rng
    made = []
    for project in vocab.COMPONENTS:
        for name, rule, asks in rng.sample(vocab.CONVENTIONS, 8):
            memory = journal.add(
                rng.uniform(0, DAYS),
                project=project,
                type="pattern",
                title=f"Convention for {name}",
                content=f"Team convention: {rule}. Agreed in review; applies to every package.",
                topic_key=f"pattern/{name.replace(' ', '-')}",
                revision_count=rng.randint(1, 3),
            )
            made.append((memory, asks))
    return made


def _discoveries(journal: _Journal) -> list[tuple[Memory, str]]:
    rng = journal.rng
    made = []
    projects = list(vocab.COMPONENTS)
    for name, finding, asks in vocab.DISCOVERIES:
        memory = journal.add(
            rng.uniform(0, DAYS),
            project=rng.choice(projects),
            type="discovery",
            title=f"Learned: {name}",
            content=f"Discovery: {finding}. Worth knowing before touching this again.",
        )
        made.append((memory, asks))
    return made


def _old_anchors(journal: _Journal) -> list[tuple[Memory, str]]:
    """Early memories titled with common words; newer routine notes repeat those words."""
    rng = journal.rng
    made = []
    titles: set[str] = set()
    for project, components in vocab.COMPONENTS.items():
        for component in rng.sample(components, 10):
            first, second, third = rng.choice(vocab.COMMON_TITLES)
            while f"{first} {second} {third} {component.name}" in titles:  # one answer each
                first, second, third = rng.choice(vocab.COMMON_TITLES)
            titles.add(f"{first} {second} {third} {component.name}")
            ident = journal.identifier(component.name)
            memory = journal.add(
                rng.uniform(0, 40),
                project=project,
                type="bugfix",
                title=f"{first.capitalize()} {second} {third} in {component.name}",
                content=(
                    f"The {first} hit a {second} {third} in the {component.name}; "
                    f"{ident} now checks it first. {rng.choice(vocab.COMMON_NOTES)}."
                ),
            )
            made.append((memory, f"{first} {second} {third} {component.name}"))
    return made


def _filler(journal: _Journal) -> None:
    rng = journal.rng
    projects = list(vocab.COMPONENTS)
    for _ in range(FILLER):
        project = rng.choice(projects)
        component = rng.choice(vocab.COMPONENTS[project])
        tech = rng.choice(vocab.TECH)
        title = rng.choice(
            [
                f"Worked on {component.name}",
                f"Session notes: {component.name}",
                f"Upgraded {tech} to {rng.randint(2, 9)}.{rng.randint(0, 20)}",
                f"Review of {component.name} changes",
                f"Build and test status for {component.name}",
                f"Deploy notes for {project}",
            ]
        )
        notes = rng.sample(vocab.COMMON_NOTES, rng.randint(2, 4))
        content = ". ".join(notes).capitalize() + f". Touched the {component.name} and {tech}."
        journal.add(
            rng.uniform(0, DAYS),
            project=project,
            type=rng.choice(["manual", "session_summary", "config", "discovery"]),
            title=title,
            content=content,
            deleted=rng.random() < 0.03,
        )


def build(seed: int = SEED) -> RetrievalSet:
    """The journal and its labelled queries (the same for the same seed)."""
    rng = random.Random(seed)
    journal = _Journal(rng)
    bugs = _bugfixes(journal)
    latest = _decisions(journal)
    conventions = _conventions(journal)
    discoveries = _discoveries(journal)
    anchors = _old_anchors(journal)
    _filler(journal)
    stories = _everyday(journal, random.Random(seed + 1))
    _number(journal)
    queries = _queries(rng, journal, bugs, latest, conventions, discoveries, anchors, stories)
    _everyday_queries(stories, queries)
    return RetrievalSet(journal.memories, journal.supersedes, queries)


def _everyday(journal: _Journal, rng: random.Random) -> list[tuple[Memory, str]]:
    """The hand-written memories, spread over the projects and the year by their own random
    stream, so the generated journal and its queries are what they were without them."""
    kept, journal.rng = journal.rng, rng
    try:
        projects = list(vocab.COMPONENTS)
        return [
            (
                journal.add(
                    rng.uniform(0, DAYS),
                    project=rng.choice(projects),
                    type=type_,
                    title=title,
                    content=content,
                ),
                question,
            )
            for type_, title, content, question in everyday.MEMORIES
        ]
    finally:
        journal.rng = kept


def _everyday_queries(stories: list[tuple[Memory, str]], queries: list[Query]) -> None:
    stems = _Stems()
    for memory, question in stories:
        shared = shared_words(question, f"{memory.title} {memory.content}", stems)
        assert not shared, f"everyday question {question!r} shares {sorted(shared)}"
        queries.append(Query(f"q{len(queries) + 1:03d}", "everyday", question, (memory.id,)))


def _number(journal: _Journal) -> None:
    """Ids in creation order (the store's rowids follow them)."""
    journal.memories.sort(key=lambda m: m.created_at)
    by_object = {}
    for index, memory in enumerate(journal.memories, start=1):
        memory.id = f"m{index:05d}"
        by_object[f"@{id(memory)}"] = memory.id
    journal.supersedes = [(by_object[a], by_object[b]) for a, b in journal.supersedes]


def _queries(rng, journal, bugs, latest, conventions, discoveries, anchors, stories) -> list[Query]:  # type: ignore[no-untyped-def]
    # the generated kinds are chosen from the generated journal alone (as before everyday.py)
    told = {id(m) for m, _ in stories}
    live = [m for m in journal.memories if not m.deleted and id(m) not in told]
    counts: Counter[str] = Counter()
    for memory in live:
        counts.update(tokens(memory.title + " " + memory.content))
    titles = Counter(m.title.lower() for m in live)
    shared = {"session store", "job queue"}
    own = [b for b in bugs if b[2].name not in shared]
    rng.shuffle(own)
    made: list[Query] = []

    def add(kind: str, text: str, target: Memory, project: str | None = None) -> None:
        made.append(Query(f"q{len(made) + 1:03d}", kind, text, (target.id,), project))

    # conventions repeat across projects, so their queries name the project
    exact_pool = [(m, m.title) for m, *_ in own[:40]] + [(m, m.title) for m, _ in discoveries[:10]]
    exact_pool += [(m, m.title) for m, _ in conventions[:10]]
    for memory, title in exact_pool[:PER_KIND]:
        scoped_to = memory.project if titles[title.lower()] > 1 else None
        add("exact", " ".join(_TOKEN.findall(title)).lower(), memory, scoped_to)
    para = [(m, f"{p.asks} {c.asks}") for m, p, c, *_ in own[40:80]]
    para += [(m, a) for m, a in discoveries[10:20]] + [(m, asks) for m, asks in conventions[10:20]]
    for memory, text in para[:PER_KIND]:
        scoped_to = memory.project if memory.type == "pattern" else None
        add("paraphrase", text, memory, scoped_to)
    for memory, _p, _c, ident, code in own[80 : 80 + PER_KIND]:
        term = ident if rng.random() < 0.6 else code
        assert counts[term.lower()] <= 1 or "_" in term
        add("partial", term, memory)
    for memory, text in anchors[:PER_KIND]:
        add("old", text, memory)
    scoped = [b for b in bugs if b[2].name in shared]
    rng.shuffle(scoped)
    for memory, problem, component, *_ in scoped[:PER_KIND]:
        add("project", f"{problem.name} {component.name}", memory, memory.project)
    for memory, project, asks, topic, first in latest[:PER_KIND]:
        add("latest", asks if rng.random() < 0.5 else f"{first} {topic}", memory, project)
    _concept_queries(own[80 + PER_KIND :], counts, len(live), add)
    return made


# Function words only: a concept query may share these with its answer, nothing else.
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "did",
        "do",
        "each",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "off",
        "on",
        "once",
        "one",
        "or",
        "our",
        "out",
        "so",
        "that",
        "the",
        "their",
        "there",
        "these",
        "they",
        "this",
        "those",
        "till",
        "to",
        "too",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "whether",
        "which",
        "who",
        "whose",
        "why",
        "will",
        "with",
        "without",
        "you",
        "your",
    ]
)


class _Stems:
    """Porter stems as Engram's FTS5 index makes them (SQLite's own tokenizer)."""

    def __init__(self) -> None:
        import sqlite3

        self.conn = sqlite3.connect(":memory:")
        self.conn.execute(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')"
        )
        self.conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")

    def __call__(self, text: str) -> set[str]:
        self.conn.execute("INSERT INTO t (x) VALUES (?)", (text,))
        found = {row[0] for row in self.conn.execute("SELECT term FROM v")}
        self.conn.execute("DELETE FROM t")
        return found


def shared_words(query: str, answer: str, stems: _Stems) -> set[str]:
    """Content words of ``query`` that ``answer`` shares: the word, its porter stem, or its
    first four letters (so "failures" and "failed", "caching" and "cache" count as shared)."""
    answer_words = tokens(answer)
    answer_stems = stems(answer)
    prefixes = {w[:4] for w in answer_words if len(w) >= 4}
    shared = set()
    for word in tokens(query) - _FUNCTION_WORDS:
        if (
            word in answer_words
            or stems(word) & answer_stems
            or (len(word) >= 4 and word[:4] in prefixes)
        ):
            shared.add(word)
    return shared


def _concept_queries(bugs, counts, live, add) -> None:  # type: ignore[no-untyped-def]
    """``concept`` then ``mixed`` queries over bug fixes no other kind asks about."""
    stems = _Stems()
    concept, mixed = 0, 0
    for memory, problem, component, _ident, _code in bugs:
        text = f"{memory.title} {memory.content}"
        phrase = concepts.PROBLEMS[problem.name]
        if concept < PER_KIND:
            query = f"{phrase} in {concepts.COMPONENTS[component.name]}"
            if not shared_words(query, text, stems):
                add("concept", query, memory)
                concept += 1
            continue
        if mixed >= PER_KIND:
            break
        rare = min(tokens(component.name), key=lambda w: counts[w])
        query = f"{rare} {phrase}"
        if counts[rare] <= 0.02 * live and shared_words(query, text, stems) == {rare}:
            add("mixed", query, memory)
            mixed += 1
    assert concept == mixed == PER_KIND, (concept, mixed)


def main() -> int:
    data = build()
    if len(sys.argv) > 2 and sys.argv[1] == "--write":
        Path(sys.argv[2]).write_text(data.to_json())
    kinds = Counter(q.kind for q in data.queries)
    types = Counter(m.type for m in data.memories)
    print(
        f"{len(data.memories)} memories ({sum(m.deleted for m in data.memories)} deleted,"
        f" {len(data.supersedes)} superseded), {len(data.queries)} queries {dict(kinds)}"
    )
    print(dict(types))
    for q in data.queries[::30]:
        print(q)
    return 0


if __name__ == "__main__":
    sys.exit(main())
