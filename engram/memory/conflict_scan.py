"""The conflict scan: walk a project's memories a page at a time and find likely conflicts.

**FindCandidates.** For each observation, one ranked full-text query (its title's meaningful
words, any of them) finds the best-matching *older* live memories of the same project; those
whose words overlap enough (:func:`similar`) are candidates. Pairing each memory only with
older ones means a full walk considers every pair once, newer memory as the source.

**A page.** Observations are walked by id after ``cursor`` (and created at or after
``since``), ``limit`` (1-100) at a time. A dry run reports; ``apply`` inserts pending
relations up to ``max_insert``. With a judge (``semantic``), each candidate pair is judged
(up to ``max_semantic`` calls, ``concurrency`` at a time); a dry run persists nothing and
counts ``not_conflict`` as skipped, an applied run persists every valid verdict. When a cap
is reached the page has no ``next_cursor``: re-run from the same cursor with a higher cap.
Scans never run a second page on their own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engram.errors import EngramError
from engram.memory.clock import stamp
from engram.memory.conflict_judge import Judge, JudgeError, Verdict, estimate_tokens
from engram.memory.conflicts import parse_since
from engram.memory.search import search
from engram.memory.topic import STOP_WORDS
from engram.store import browse, relations
from engram.store import conflicts as sql
from engram.store.db import Store
from engram.store.records import Observation

PAGE_MAX = 100
MAX_INSERT_DEFAULT = 100
MAX_SEMANTIC_DEFAULT = 100
CONCURRENCY_DEFAULT = 5
CONCURRENCY_RANGE = (1, 20)
TIMEOUT_DEFAULT = 60
TIMEOUT_RANGE = (1, 600)
CANDIDATES_PER_QUERY = 8
# A candidate shares at least this share of the smaller title's meaningful words...
MIN_TITLE_OVERLAP = 0.5
# ...or this share (Jaccard) of the words of title and body together.
MIN_TEXT_OVERLAP = 0.3
CAP_WARNING = (
    "cap reached: this page has no continuation; rerun from the same cursor with a higher"
    " applicable cap"
)
_WORD = re.compile(r"[^\W_]+")
# Words that say something changed, not what changed: two memories sharing only these are
# not about the same thing.
CHANGE_WORDS = frozenset(
    [
        "now",
        "use",
        "using",
        "used",
        "stop",
        "stopped",
        "switch",
        "switched",
        "switching",
        "replace",
        "replaced",
        "move",
        "moved",
        "moving",
        "change",
        "changed",
        "changes",
        "update",
        "updated",
        "set",
        "new",
        "old",
        "instead",
        "from",
        "decision",
        "seconds",
        "minutes",
        "hours",
        "days",
        "percent",
    ]
)


def meaningful_words(text: str) -> set[str]:
    """Lower-cased words of three letters or more that are not stop words."""
    return {w for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 2} - STOP_WORDS


def subject_words(text: str) -> set[str]:
    """The meaningful words of ``text`` that name a subject (no words of change)."""
    return meaningful_words(text) - CHANGE_WORDS


def similar(first: Observation, second: Observation) -> bool:
    """Whether two memories say enough of the same thing to possibly contradict each other."""
    title_a, title_b = subject_words(first.title), subject_words(second.title)
    if title_a and title_b:
        shared = len(title_a & title_b) / min(len(title_a), len(title_b))
        if shared >= MIN_TITLE_OVERLAP:
            return True
    text_a = title_a | subject_words(first.content)
    text_b = title_b | subject_words(second.content)
    union = text_a | text_b
    return bool(union) and len(text_a & text_b) / len(union) >= MIN_TEXT_OVERLAP


def find_candidates(store: Store, observation: Observation) -> list[Observation]:
    """Older live memories of the same project that may conflict with ``observation``, best
    match first (FindCandidates). Empty when the title has no meaningful word."""
    words = meaningful_words(observation.title)
    if not words:
        return []
    hits = search(
        store,
        " ".join(sorted(words)),
        project=observation.project,
        mode="any",
        limit=CANDIDATES_PER_QUERY + 1,
        check_code=False,
    )
    return [
        hit.observation
        for hit in hits
        if hit.observation.id < observation.id and similar(observation, hit.observation)
    ][:CANDIDATES_PER_QUERY]


def _in_range(name: str, value: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    if not low <= value <= high:
        raise EngramError(
            "conflicts.bad_option",
            f"{name} must be between {low} and {high}, got {value}",
            f"pass a {name} from {low} to {high}",
        )
    return value


@dataclass(frozen=True, slots=True)
class ScanOptions:
    """What one scan page does (the seed's defaults); :meth:`checked` validates ranges.
    ``project`` None walks every project (pairs never cross projects)."""

    project: str | None
    limit: int = PAGE_MAX
    cursor: int | None = None
    since: str | None = None
    apply: bool = False
    max_insert: int = MAX_INSERT_DEFAULT
    semantic: bool = False
    concurrency: int = CONCURRENCY_DEFAULT
    timeout_per_call: int = TIMEOUT_DEFAULT
    max_semantic: int = MAX_SEMANTIC_DEFAULT

    def checked(self) -> ScanOptions:
        """The options when valid; ``conflicts.bad_option`` / ``conflicts.bad_since`` else."""
        _in_range("limit", self.limit, (1, PAGE_MAX))
        _in_range("max_insert", self.max_insert, (0, 1_000_000))
        if self.cursor is not None:
            _in_range("cursor", self.cursor, (0, 2**63 - 1))
        parse_since(self.since)
        if self.semantic:
            _in_range("concurrency", self.concurrency, CONCURRENCY_RANGE)
            _in_range("timeout_per_call", self.timeout_per_call, TIMEOUT_RANGE)
            _in_range("max_semantic", self.max_semantic, (0, 1_000_000))
        return self


@dataclass(slots=True)
class ScanReport:
    """What a scan page saw and did, in the seed's fields."""

    project: str | None
    dry_run: bool
    inspected: int = 0
    ranked_queries: int = 0
    candidates_found: int = 0
    already_related: int = 0
    inserted: int = 0
    capped: bool = False
    next_cursor: int | None = None
    semantic_judged: int = 0
    semantic_skipped: int = 0
    semantic_errors: int = 0
    errors: list[str] = field(default_factory=list)
    inspected_ids: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The seed's envelope: ``next_cursor`` only for a completed page, ``warning`` when
        capped; the semantic counters always present."""
        data: dict[str, Any] = {
            "project": self.project,
            "inspected": self.inspected,
            "ranked_queries": self.ranked_queries,
            "candidates_found": self.candidates_found,
        }
        if self.next_cursor is not None:
            data["next_cursor"] = self.next_cursor
        data |= {
            "already_related": self.already_related,
            "inserted": self.inserted,
            "capped": self.capped,
            "dry_run": self.dry_run,
            "semantic_judged": self.semantic_judged,
            "semantic_skipped": self.semantic_skipped,
            "semantic_errors": self.semantic_errors,
        }
        if self.capped:
            data["warning"] = CAP_WARNING
        return data


Pair = tuple[Observation, Observation]
# Asked before the first LLM call with the number of calls and an input-token estimate;
# False stops the scan.
Confirm = Callable[[int, int], bool]


def scan(
    store: Store,
    options: ScanOptions,
    *,
    judge: Judge | None = None,
    confirm: Confirm | None = None,
) -> ScanReport:
    """Scan one page of ``options.project`` for conflict candidates.

    ``judge`` is required when ``options.semantic``; without it no LLM is ever called.

    Raises:
        EngramError: ``conflicts.bad_option``, ``conflicts.bad_since``,
            ``conflicts.judge_required``, ``conflicts.not_confirmed``.
    """
    options = options.checked()
    if options.semantic and judge is None:
        raise EngramError(
            "conflicts.judge_required",
            "a semantic scan needs an agent CLI to judge with",
            "set ENGRAM_AGENT_CLI=claude or ENGRAM_AGENT_CLI=opencode",
        )
    report = ScanReport(options.project, dry_run=not options.apply)
    with store.locked() as conn:
        page = browse.live_after(
            conn,
            project=options.project,
            after_id=options.cursor or 0,
            since=parse_since(options.since),
            limit=options.limit,
        )
    pairs = _candidate_pairs(store, page, report)
    cap = options.max_semantic if options.semantic else options.max_insert
    if (options.semantic or options.apply) and len(pairs) > cap:
        report.capped = True
        pairs = pairs[:cap]
    if options.semantic and judge is not None:
        _judge_pairs(store, pairs, options, judge, confirm, report)
    elif options.apply:
        _insert_pending(store, pairs, report)
    if page and not report.capped and len(page) == options.limit:
        report.next_cursor = page[-1].id
    return report


def _candidate_pairs(store: Store, page: list[Observation], report: ScanReport) -> list[Pair]:
    pairs: list[Pair] = []
    for observation in page:
        report.inspected += 1
        report.inspected_ids.append(observation.id)
        if not meaningful_words(observation.title):
            continue
        report.ranked_queries += 1
        found = find_candidates(store, observation)
        if not found:
            continue
        with store.locked() as conn:
            known = sql.related_pairs(conn, [observation.sync_id])
        for other in found:
            if frozenset((observation.sync_id, other.sync_id)) in known:
                report.already_related += 1
                continue
            report.candidates_found += 1
            pairs.append((observation, other))
    return pairs


def _insert_pending(store: Store, pairs: list[Pair], report: ScanReport) -> None:
    with store.write() as conn:
        for source, target in pairs:
            relations.insert(
                conn,
                source_id=source.sync_id,
                target_id=target.sync_id,
                now=stamp(),
                relation="conflicts_with",
                marked_by_kind="system",
                marked_by_actor="engram-scan",
            )
            report.inserted += 1


def _judge_pairs(
    store: Store,
    pairs: list[Pair],
    options: ScanOptions,
    judge: Judge,
    confirm: Confirm | None,
    report: ScanReport,
) -> None:
    if not pairs:
        return
    if confirm is not None and not confirm(len(pairs), estimate_tokens(pairs)):
        raise EngramError(
            "conflicts.not_confirmed",
            "semantic scan cancelled before any LLM call",
            "re-run with --yes to skip the confirmation",
        )

    def ask(pair: Pair) -> Verdict | JudgeError:
        try:
            return judge(pair[0], pair[1], options.timeout_per_call)
        except JudgeError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=options.concurrency) as pool:
        answers = list(pool.map(ask, pairs))
    for (source, target), answer in zip(pairs, answers, strict=True):
        if isinstance(answer, JudgeError):
            report.semantic_errors += 1
            report.errors.append(str(answer))
            continue
        # A persisted verdict is a judged relation, not_conflict included; in a dry run a
        # not_conflict answer leaves nothing to show, so it counts as skipped.
        if answer.relation == "not_conflict" and not options.apply:
            report.semantic_skipped += 1
        else:
            report.semantic_judged += 1
        if options.apply:
            _persist_verdict(store, source, target, answer, judge.name)
            report.inserted += 1


def _persist_verdict(
    store: Store, source: Observation, target: Observation, verdict: Verdict, model: str
) -> None:
    now = stamp()
    with store.write() as conn:
        row = relations.insert(conn, source_id=source.sync_id, target_id=target.sync_id, now=now)
        relations.record_verdict(
            conn,
            row.id,
            relation=verdict.relation,
            now=now,
            reason=verdict.reasoning,
            evidence=None,
            confidence=verdict.confidence,
            marked_by_kind="llm",
            marked_by_actor="engram-scan",
            marked_by_model=model,
        )
