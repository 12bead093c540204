"""How many Firestore RPCs a task write and a blocking `message/send` make, on the emulator,
counted at the client's API (the README's "Writes: version checks without locks"): a write
following this store's own last commit of the task reads nothing first, and any other write in
between is a `VersionConflict` all the same, two stores racing included."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import pytest

from a2a_serverless import Settings, agent, create_app
from a2a_serverless.models import TaskState
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.store.base import TaskRecord, VersionConflict
from a2a_serverless.testing import AgentTestClient
from a2a_serverless.testing.store_contract import (
    make_record,
    new_id,
    now_ms,
    status_event,
    step,
    with_state,
)
from a2a_serverless_gcp.firestore import FirestoreStore, open_firestore_store

pytestmark = pytest.mark.gcp

READ = "BatchGetDocuments"
COMMIT = "Commit"
# The client's API methods, by the RPC they send.
RPCS = {"batch_get_documents": READ, "commit": COMMIT, "run_query": "RunQuery"}


@contextmanager
def counting(store: FirestoreStore) -> Iterator[list[str]]:
    """The RPCs `store` sends on this event loop's client, in order."""
    api = store._clients.current()._firestore_api
    calls: list[str] = []
    originals = {name: getattr(api, name) for name in RPCS}

    def counted(name: str, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(RPCS[name])
            return await method(*args, **kwargs)

        return call

    for name, method in originals.items():
        setattr(api, name, counted(name, method))
    try:
        yield calls
    finally:
        for name in originals:
            delattr(api, name)  # the class's method again


async def test_a_write_after_our_own_commit_reads_nothing(firestore_store: FirestoreStore) -> None:
    store = firestore_store
    record = make_record(last_seq=1)
    await store.create_task(record, [status_event(record, 1)])
    with counting(store) as calls:
        claimed, _ = step(record, 0, internal={"claim": 1})
        await store.update_task(claimed)
        working, events = step(claimed, 1, task=with_state(claimed, TaskState.WORKING))
        await store.update_task(working, events)
    assert calls == [COMMIT, COMMIT]
    # The finishing write stamps the earlier documents' expiry, as after a read.
    with counting(store) as calls:
        done, events = step(
            working,
            1,
            task=with_state(working, TaskState.COMPLETED),
            expires_at_ms=now_ms() + 3_600_000,
        )
        await store.update_task(done, events)
    assert calls == [COMMIT, "RunQuery", "RunQuery", COMMIT]
    stored = await store.get_task(record.task_id)
    assert stored is not None and stored.version == done.version
    assert [e.seq for e in await store.read_events(record.task_id)] == [1, 2, 3]


async def test_a_write_that_claims_a_key_or_follows_another_version_reads(
    firestore_store: FirestoreStore,
) -> None:
    store = firestore_store
    record = make_record(last_seq=1)
    await store.create_task(record, [status_event(record, 1)])
    with counting(store) as calls:
        told, events = step(record, 1)
        await store.update_task(told, events, idempotency_key=new_id("k"))
    assert calls == [READ, COMMIT]
    # A create reads the key it claims and the one that must stay free together.
    with counting(store) as calls:
        created = make_record(last_seq=1)
        await store.create_task(
            created, [status_event(created, 1)], idempotency_key=new_id("k"), free_key="f"
        )
    assert calls == [READ, COMMIT]
    # A write on a record this store did not commit last (a stale one): read, refused.
    with counting(store) as calls, pytest.raises(VersionConflict):
        await store.update_task(step(record, 0)[0])
    assert calls == [READ]
    # Any write forgets the commit it might have followed: the next one reads, then follows
    # its own commit again without.
    with counting(store) as calls:
        claimed = step(told, 0)[0]
        await store.update_task(claimed)
        await store.update_task(step(claimed, 0)[0])
    assert calls == [READ, COMMIT, COMMIT]


async def test_a_write_in_between_by_another_store_is_a_version_conflict(
    firestore_store_url: str,
) -> None:
    ours, theirs = (open_firestore_store(firestore_store_url) for _ in range(2))
    try:
        record = make_record(last_seq=1)
        await ours.create_task(record, [status_event(record, 1)])
        stored = await theirs.get_task(record.task_id)
        assert stored is not None
        await theirs.update_task(step(stored, 0, internal={"theirs": 1})[0])
        # Ours still knows its own commit, at version 1: its write is refused at the commit
        # (its precondition), read to be explained, and is a conflict.
        with counting(ours) as calls, pytest.raises(VersionConflict):
            await ours.update_task(step(record, 0, internal={"ours": 1})[0])
        assert calls == [COMMIT, READ]
        kept = await ours.get_task(record.task_id)
        assert kept is not None and kept.internal == {"theirs": 1}
        # And it then writes on what it reads, as before.
        await ours.update_task(step(kept, 0, internal={"ours": 1})[0])
        final = await theirs.get_task(record.task_id)
        assert final is not None and final.version == 3 and final.internal == {"ours": 1}
    finally:
        await ours.close()
        await theirs.close()


async def test_two_stores_racing_on_their_own_commits_never_both_win(
    firestore_store_url: str,
) -> None:
    """Each round both stores write the next version of one task at once, each on the record it
    knows; the one that committed the last round writes without a read. Exactly one wins a
    round, and the task's log holds each round's event once."""
    stores = [open_firestore_store(firestore_store_url) for _ in range(2)]
    try:
        record = make_record(last_seq=0)
        await stores[0].create_task(record)
        known: list[TaskRecord] = [record, record]
        winners: list[int] = []
        for round_ in range(40):

            async def write(index: int, round_: int) -> bool:
                following = known[index]
                mine, events = step(following, 1, internal={"round": round_, "by": index})
                try:
                    await stores[index].update_task(mine, events)
                except VersionConflict:
                    return False
                known[index] = mine
                return True

            # Started in turn order one round, the other order the next.
            order = [0, 1] if round_ % 2 == 0 else [1, 0]
            results = await asyncio.gather(*(write(index, round_) for index in order))
            won = [results[order.index(index)] for index in (0, 1)]
            assert won.count(True) == 1, (round_, won)
            winner = won.index(True)
            winners.append(winner)
            loser = 1 - winner
            current = await stores[loser].get_task(record.task_id)
            assert current is not None
            assert msgspec.to_builtins(current.internal) == {"round": round_, "by": winner}
            known[loser] = current
        print(f"rounds won: store 0 {winners.count(0)}, store 1 {winners.count(1)}")
        stored = await stores[0].get_task(record.task_id)
        assert stored is not None and stored.version == 41 and stored.last_seq == 40
        events = await stores[1].read_events(record.task_id)
        assert [e.seq for e in events] == list(range(1, 41))
    finally:
        for store in stores:
            await store.close()


@agent
def echo(text: str) -> str:
    return f"echo: {text}"


async def test_a_blocking_send_makes_five_rpcs(firestore_store: FirestoreStore) -> None:
    """The bench's echo agent, one blocking `message/send` on the in-process queue: no look-up
    before the create, whose one read checks its key and the legacy key, then its commit, the
    claim, the artifact and the completion, each one commit, none of them a read first."""
    settings = Settings(store_url="memory://", dev_mode=True, push_notifications=False)
    app = create_app(echo, settings, store=firestore_store, queue=InProcessQueue())
    async with AgentTestClient(app) as client:
        await client.send("warm up")  # the client's channel, opened once per process
        with counting(firestore_store) as calls:
            task = await client.send("hi")
    assert task.status.state == TaskState.COMPLETED  # type: ignore[union-attr]
    assert calls == [READ] + [COMMIT] * 4, calls
