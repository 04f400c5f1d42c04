"""A push sends the journal in order, in batches of at most BATCH_MUTATIONS rows and about
BATCH_BYTES of lines; a mutation larger than that goes alone."""

from __future__ import annotations

import json

from engram.cloud.settings import DEFAULT_MAX_PUSH_BYTES
from engram.sync.cloud.client import push_body
from engram.sync.cloud.replicate import BATCH_BYTES, BATCH_MUTATIONS, push_batches
from engram.sync.mutation import Mutation


def _mutation(seq: int, content: str = "body", **extra: object) -> Mutation:
    payload = {"sync_id": f"o-{seq}", "title": "t", "content": content, **extra}
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


def test_a_journal_in_emoji_or_cjk_is_batched_by_bytes_under_the_servers_limit() -> None:
    # 4 bytes a character in UTF-8: batches sized by characters sent 4x BATCH_BYTES (413)
    emoji = [_mutation(n, "\U0001f600" * (BATCH_BYTES // 16)) for n in range(1, 17)]
    # a float sends the body through the stdlib encoder, which must not \\u-escape it
    cjk = [_mutation(n, "\u6f22" * (BATCH_BYTES // 12), weight=0.5) for n in range(17, 41)]
    for journal in (emoji, cjk):
        batches = push_batches(journal)
        assert [m for b in batches for m in b] == journal
        assert len(batches) > 1
        for batch in batches:
            body = push_body("p", batch)
            assert len(body) <= BATCH_BYTES + 4096 < DEFAULT_MAX_PUSH_BYTES
            assert json.loads(body)["entries"][0]["payload"] == batch[0].payload


def test_a_lone_surrogate_still_travels_escaped() -> None:
    body = push_body("p", [_mutation(1, "a\udc80b", weight=0.5)])
    assert json.loads(body)["entries"][0]["payload"]["content"] == "a\udc80b"
