"""A push sends the journal in order, in batches of at most BATCH_MUTATIONS rows and about
BATCH_BYTES of lines; a mutation larger than that goes alone. Each batch is written into its
request as it is made, and nothing is sent after a refused one."""

from __future__ import annotations

import json

import psycopg
import pytest

from engram.cloud.settings import DEFAULT_MAX_PUSH_BYTES
from engram.sync.cloud import replicate
from engram.sync.cloud.client import CloudClient, CloudSyncError, push_body
from engram.sync.cloud.config import Remote
from engram.sync.cloud.replicate import BATCH_BYTES, BATCH_MUTATIONS, push_batches, send_batches
from engram.sync.mutation import Mutation
from tests.cloud.conftest import SYNC_TOKEN, CloudServer, StartServer, server_env
from tests.cloud.entries import observation


def _mutation(seq: int, content: str = "body", **extra: object) -> Mutation:
    payload = {"sync_id": f"o-{seq}", "title": "t", "content": content, **extra}
    return Mutation("dev", seq, "observation", f"o-{seq}", "upsert", "p", payload)


def test_batches_are_capped_by_rows_and_keep_the_order() -> None:
    journal = [_mutation(n) for n in range(1, 2 * BATCH_MUTATIONS + 2)]
    batches = list(push_batches(journal))
    assert [len(b) for b in batches] == [BATCH_MUTATIONS, BATCH_MUTATIONS, 1]
    assert [m for b in batches for m in b] == journal


def test_batches_are_capped_by_bytes_and_a_huge_mutation_goes_alone() -> None:
    big = "x" * (BATCH_BYTES // 3)
    journal = [_mutation(1, big), _mutation(2, big), _mutation(3, big), _mutation(4)]
    huge = _mutation(5, "y" * (BATCH_BYTES + 1))
    batches = list(push_batches([*journal, huge, _mutation(6)]))
    assert [[m.seq for m in b] for b in batches] == [[1, 2], [3, 4], [5], [6]]
    assert sum(len(m.to_json()) for m in batches[0]) <= BATCH_BYTES
    assert list(push_batches([])) == []


def test_a_journal_in_emoji_or_cjk_is_batched_by_bytes_under_the_servers_limit() -> None:
    # 4 bytes a character in UTF-8: batches sized by characters sent 4x BATCH_BYTES (413)
    emoji = [_mutation(n, "\U0001f600" * (BATCH_BYTES // 16)) for n in range(1, 17)]
    # a float sends the body through the stdlib encoder, which must not \\u-escape it
    cjk = [_mutation(n, "\u6f22" * (BATCH_BYTES // 12), weight=0.5) for n in range(17, 41)]
    for journal in (emoji, cjk):
        batches = list(push_batches(journal))
        assert [m for b in batches for m in b] == journal
        assert len(batches) > 1
        for batch in batches:
            body = push_body("p", batch)
            assert len(body) <= BATCH_BYTES + 4096 < DEFAULT_MAX_PUSH_BYTES
            assert json.loads(body)["entries"][0]["payload"] == batch[0].payload


def test_a_lone_surrogate_still_travels_escaped() -> None:
    body = push_body("p", [_mutation(1, "a\udc80b", weight=0.5)])
    assert json.loads(body)["entries"][0]["payload"]["content"] == "a\udc80b"


def _full(seq: int) -> Mutation:
    return Mutation(**observation("dev", seq))


def test_batches_are_sent_in_order_and_nothing_after_a_refused_one(
    cloud: CloudServer, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replicate, "BATCH_MUTATIONS", 3)
    client = CloudClient(Remote(cloud.url, SYNC_TOKEN))
    journal = [_full(n) for n in range(1, 11)]
    answers = [
        (list(b), a["accepted"], a["last_seq"]) for b, a in send_batches(client, "p", journal)
    ]
    assert answers == [(journal[0:3], 3, 3), (journal[3:6], 3, 6), (journal[6:9], 3, 9),
                       (journal[9:], 1, 10)]  # fmt: skip
    # The second batch holds another project's mutation: refused, and the third is never sent.
    foreign = Mutation(**observation("dev", 14, project="q"))
    later = [_full(11), _full(12), _full(13), foreign, _full(15), _full(16)]
    later += [_full(17)]
    sent = []
    with pytest.raises(CloudSyncError) as refused:
        for batch, _ in send_batches(client, "p", later):
            sent.append([m.seq for m in batch])
    assert refused.value.reason_code == "policy_forbidden"
    assert sent == [[11, 12, 13]]
    with psycopg.connect(database_url) as conn:
        stored = [s for (s,) in conn.execute("SELECT clock FROM cloud_mutations ORDER BY seq")]
        audit = conn.execute("SELECT outcome, entry_count FROM cloud_sync_audit_log").fetchall()
    assert stored == list(range(1, 14))
    assert audit == [("rejected_foreign_project", 3)]


def test_a_server_that_takes_less_gets_the_batches_in_halves(
    start_server: StartServer, database_url: str
) -> None:
    # ENGRAM_CLOUD_MAX_PUSH_BYTES below one default batch: 413, then halves until it fits.
    server = start_server(server_env(database_url, ENGRAM_CLOUD_MAX_PUSH_BYTES="300000"))
    client = CloudClient(Remote(server.url, SYNC_TOKEN))
    journal = [_full(n) for n in range(1, 3001)]  # ~1.3 MB of lines: one default batch
    sent = [(len(b), a["accepted"]) for b, a in send_batches(client, "p", journal)]
    assert sum(n for n, _ in sent) == len(journal) and all(n == a for n, a in sent)
    assert len(sent) > 3 and max(len(push_body("p", journal[:n])) for n, _ in sent) <= 300_000
    with psycopg.connect(database_url) as conn:
        stored = [s for (s,) in conn.execute("SELECT clock FROM cloud_mutations ORDER BY seq")]
    assert stored == list(range(1, 3001))
    # One mutation over the limit has nothing smaller to go in: its 413 is the answer.
    huge = Mutation(**{**observation("dev", 3001), "payload": {
        **observation("dev", 3001)["payload"], "content": "z" * 400_000}})  # fmt: skip
    with pytest.raises(CloudSyncError) as refused:
        list(send_batches(client, "p", [huge]))
    assert (refused.value.status, refused.value.reason_code) == (413, "payload_too_large")
