"""A push sends the journal in order, in batches of at most BATCH_MUTATIONS rows and about
BATCH_BYTES of lines; a mutation larger than that goes alone."""

from __future__ import annotations

from engram.sync.cloud.replicate import BATCH_BYTES, BATCH_MUTATIONS, push_batches
from engram.sync.mutation import Mutation


def _mutation(seq: int, content: str = "body") -> Mutation:
    payload = {"sync_id": f"o-{seq}", "title": "t", "content": content}
    return Mutation("dev", seq, "observation", f"o-{seq}", "upsert", "p", payload)


def test_batches_are_capped_by_rows_and_keep_the_order() -> None:
    journal = [_mutation(n) for n in range(1, 2 * BATCH_MUTATIONS + 2)]
    batches = push_batches(journal)
    assert [len(b) for b in batches] == [BATCH_MUTATIONS, BATCH_MUTATIONS, 1]
    assert [m for b in batches for m in b] == journal


def test_batches_are_capped_by_bytes_and_a_huge_mutation_goes_alone() -> None:
    big = "x" * (BATCH_BYTES // 3)
    journal = [_mutation(1, big), _mutation(2, big), _mutation(3, big), _mutation(4)]
    huge = _mutation(5, "y" * (BATCH_BYTES + 1))
    batches = push_batches([*journal, huge, _mutation(6)])
    assert [[m.seq for m in b] for b in batches] == [[1, 2], [3, 4], [5], [6]]
    assert sum(len(m.to_json()) for m in batches[0]) <= BATCH_BYTES
    assert push_batches([]) == []
