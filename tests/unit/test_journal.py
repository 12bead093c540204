"""The journal: the one conditional write loop every task change goes through."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from a2a_serverless.agent import agent_message
from a2a_serverless.bus import TaskBus
from a2a_serverless.journal import Change, Journal, TaskGone, TooMuchContention
from a2a_serverless.lifecycle import InvalidTransition, status_event
from a2a_serverless.models import (
    Artifact,
    Message,
    Part,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from a2a_serverless.store import MemoryStore
from a2a_serverless.store.base import TaskEvent, TaskRecord, VersionConflict, WorkerClaim

S = TaskState


def new_task(task_id: str = "t1") -> Task:
    first = Message(role="user", message_id="u1", parts=[Part(text="hi")])
    return Task(
        id=task_id,
        context_id="c1",
        status=TaskStatus(state=S.SUBMITTED),
        history=[first],
    )


def to(record: TaskRecord, state: TaskState, text: str | None = None) -> TaskStatusUpdateEvent:
    message = agent_message(text, task=record.task) if text else None
    return status_event(record.task, state, message)


def chunk(record: TaskRecord, text: str) -> TaskArtifactUpdateEvent:
    return TaskArtifactUpdateEvent(
        task_id=record.task_id,
        context_id=record.context_id,
        artifact=Artifact(artifact_id="a", parts=[Part(text=text)]),
        append=True,
    )


class CountingStore(MemoryStore):
    """A MemoryStore that counts reads and writes, and can lose the next N writes."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.updates = 0
        self.conflicts_to_inject = 0

    async def get_task(self, task_id: str) -> TaskRecord | None:
        self.reads += 1
        return await super().get_task(task_id)

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        self.updates += 1
        if self.conflicts_to_inject:
            self.conflicts_to_inject -= 1
            raise VersionConflict(record.task_id, record.version - 1)
        await super().update_task(record, events, idempotency_key=idempotency_key)


@pytest.fixture
def store() -> CountingStore:
    return CountingStore()


@pytest.fixture
async def created(store: CountingStore) -> TaskRecord:
    journal = Journal(store)
    task = new_task()
    return await journal.create(
        task, owner="alice", events=[status_event(task, S.SUBMITTED)], internal={"k": 1}
    )


async def snapshot(store: MemoryStore, task_id: str = "t1") -> tuple[Any, ...]:
    record = await store.get_task(task_id)
    assert record is not None
    events = await store.read_events(task_id)
    return (
        record.version,
        record.last_seq,
        record.task.model_dump(),
        record.claim,
        record.internal,
        [e.payload.model_dump() for e in events],
    )


# --- create ---------------------------------------------------------------------------------------


async def test_create_numbers_events_from_one(store: CountingStore) -> None:
    journal = Journal(store)
    task = new_task("t2")
    record = await journal.create(
        task,
        owner="bob",
        events=[status_event(task, S.SUBMITTED), status_event(task, S.WORKING)],
    )
    assert record.version == 1
    assert record.last_seq == 2
    assert record.task.status.state == S.WORKING
    assert record.expires_at_ms is None
    assert [e.seq for e in await store.read_events("t2")] == [1, 2]
    assert await store.get_task("t2") == record


# --- write ----------------------------------------------------------------------------------------


async def test_write_applies_events_numbered_after_last_seq(
    store: CountingStore, created: TaskRecord
) -> None:
    journal = Journal(store)
    seen: list[int] = []

    def decide(record: TaskRecord) -> Change:
        seen.append(record.version)
        return Change(events=[to(record, S.WORKING, "on it"), chunk(record, "x")])

    written = await journal.write("t1", decide)
    assert seen == [1]
    assert written.version == 2
    assert written.last_seq == 3
    assert written.task.status.state == S.WORKING
    assert written.owner == "alice"
    assert written.internal == {"k": 1}
    assert written.updated_at_ms >= created.updated_at_ms
    assert [m.role for m in written.task.history or []] == ["user", "agent"]
    events = await store.read_events("t1")
    assert [e.seq for e in events] == [1, 2, 3]
    assert isinstance(events[2].payload, TaskArtifactUpdateEvent)

    again = await journal.write("t1", lambda r: Change(events=[chunk(r, "y")]))
    assert again.last_seq == 4
    assert [e.seq for e in await store.read_events("t1", 3)] == [4]
    assert await store.get_task("t1") == again


async def test_write_adds_messages_before_events(store: CountingStore, created: TaskRecord) -> None:
    journal = Journal(store)
    answer = Message(role="user", message_id="u2", parts=[Part(text="more")])
    written = await journal.write(
        "t1",
        lambda r: Change(messages=[answer], events=[to(r, S.WORKING, "thanks")]),
    )
    assert [m.message_id for m in written.task.history or []][:2] == ["u1", "u2"]
    assert [m.role for m in written.task.history or []] == ["user", "user", "agent"]


async def test_write_changes_claim_and_internal(store: CountingStore, created: TaskRecord) -> None:
    journal = Journal(store)
    claim = WorkerClaim(step="u1", worker_id="w1", lease_until_ms=123, attempt=1)
    claimed = await journal.write("t1", lambda r: Change(claim=claim, internal={"x": 2}))
    assert claimed.claim == claim
    assert claimed.internal == {"k": 1, "x": 2}
    assert claimed.last_seq == created.last_seq  # no events, no new sequence numbers
    kept = await journal.write("t1", lambda r: Change(events=[to(r, S.WORKING)]))
    assert kept.claim == claim  # the default keeps the claim
    released = await journal.write("t1", lambda r: Change(claim=None))
    assert released.claim is None


async def test_status_time_moves_with_status_and_messages_only(
    store: CountingStore, created: TaskRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`updated_at_ms` is the status time `tasks/list` orders by: artifacts and bookkeeping
    leave it alone (so a store's listing index does not move), status events and messages
    advance it."""
    journal = Journal(store)
    clock = iter(range(created.updated_at_ms + 1000, created.updated_at_ms + 10_000, 1000))
    monkeypatch.setattr("a2a_serverless.journal.now_ms", lambda: next(clock))
    claim = WorkerClaim(step="u1", worker_id="w1", lease_until_ms=123, attempt=1)
    claimed = await journal.write("t1", lambda r: Change(claim=claim))
    assert claimed.updated_at_ms == created.updated_at_ms
    chunked = await journal.write("t1", lambda r: Change(events=[chunk(r, "x")]))
    assert chunked.updated_at_ms == created.updated_at_ms
    working = await journal.write("t1", lambda r: Change(events=[to(r, S.WORKING), chunk(r, "y")]))
    assert working.updated_at_ms > created.updated_at_ms
    answer = Message(role="user", message_id="u2", parts=[Part(text="more")])
    told = await journal.write("t1", lambda r: Change(messages=[answer]))
    assert told.updated_at_ms > working.updated_at_ms


async def test_decide_that_raises_aborts_without_writing(
    store: CountingStore, created: TaskRecord
) -> None:
    journal = Journal(store)
    before = await snapshot(store)
    updates = store.updates

    class Refused(Exception):
        pass

    def decide(record: TaskRecord) -> Change:
        raise Refused("no")

    with pytest.raises(Refused):
        await journal.write("t1", decide)
    assert store.updates == updates
    assert await snapshot(store) == before


async def test_invalid_transition_aborts_without_writing(
    store: CountingStore, created: TaskRecord
) -> None:
    journal = Journal(store)
    await journal.write("t1", lambda r: Change(events=[to(r, S.COMPLETED)]))
    before = await snapshot(store)
    with pytest.raises(InvalidTransition):
        await journal.write("t1", lambda r: Change(events=[chunk(r, "late")]))
    with pytest.raises(InvalidTransition):
        await journal.write("t1", lambda r: Change(events=[to(r, S.WORKING)]))
    assert await snapshot(store) == before


async def test_decide_returning_none_writes_nothing(
    store: CountingStore, created: TaskRecord
) -> None:
    journal = Journal(store)
    before = await snapshot(store)
    result = await journal.write("t1", lambda r: None)
    assert result == created
    assert store.updates == 0
    assert await snapshot(store) == before


async def test_version_conflict_rereads_and_decides_again(
    store: CountingStore, created: TaskRecord
) -> None:
    journal = Journal(store)
    # Someone else writes after `created` was read.
    other = await journal.write("t1", lambda r: Change(events=[to(r, S.WORKING, "other")]))
    assert other.version == 2

    seen: list[tuple[int, int, TaskState]] = []

    def decide(record: TaskRecord) -> Change:
        seen.append((record.version, record.last_seq, record.task.status.state))
        return Change(events=[chunk(record, "mine")])

    reads = store.reads
    written = await journal.write("t1", decide, record=created)  # starts from a stale read
    # The stale decision was refused by the store; the re-read one landed on top of the other.
    assert seen == [(1, 1, S.SUBMITTED), (2, 2, S.WORKING)]
    assert store.reads == reads + 1
    assert written.version == 3
    assert written.last_seq == 3
    assert written.task.status.state == S.WORKING
    assert [m.role for m in written.task.history or []] == ["user", "agent"]  # nothing lost
    events = await store.read_events("t1")
    assert [e.seq for e in events] == [1, 2, 3]
    assert isinstance(events[1].payload, TaskStatusUpdateEvent)
    assert isinstance(events[2].payload, TaskArtifactUpdateEvent)


async def test_decision_made_on_fresh_state_can_refuse(
    store: CountingStore, created: TaskRecord
) -> None:
    """A cancel-like decision that read `submitted` but lost to a completion sees `completed`."""
    journal = Journal(store)
    await journal.write("t1", lambda r: Change(events=[to(r, S.COMPLETED)]))

    def cancel(record: TaskRecord) -> Change:
        if record.task.status.state.is_terminal:
            raise RuntimeError(f"not cancelable: {record.state}")
        return Change(events=[to(record, S.CANCELED)])

    with pytest.raises(RuntimeError, match="completed"):
        await journal.write("t1", cancel, record=created)
    final = await store.get_task("t1")
    assert final is not None and final.state == "completed"
    assert len(await store.read_events("t1")) == 2


async def test_injected_conflicts_are_retried(store: CountingStore, created: TaskRecord) -> None:
    journal = Journal(store)
    store.conflicts_to_inject = 3
    calls: list[int] = []

    def decide(record: TaskRecord) -> Change:
        calls.append(record.version)
        return Change(events=[to(record, S.WORKING)])

    written = await journal.write("t1", decide)
    assert calls == [1, 1, 1, 1]
    assert written.version == 2 and written.last_seq == 2


async def test_too_much_contention(store: CountingStore, created: TaskRecord) -> None:
    journal = Journal(store, max_attempts=3)
    store.conflicts_to_inject = 10
    calls: list[int] = []

    def decide(record: TaskRecord) -> Change:
        calls.append(record.version)
        return Change(events=[to(record, S.WORKING)])

    with pytest.raises(TooMuchContention):
        await journal.write("t1", decide)
    assert len(calls) == 3
    store.conflicts_to_inject = 0
    record = await store.get_task("t1")
    assert record is not None and record.version == 1


async def test_write_to_a_missing_task(store: CountingStore) -> None:
    journal = Journal(store)
    with pytest.raises(TaskGone) as gone:
        await journal.write("nope", lambda r: Change())
    assert gone.value.task_id == "nope"


async def test_write_notifies_the_bus(store: CountingStore, created: TaskRecord) -> None:
    bus = TaskBus()
    journal = Journal(store, bus)
    with bus.subscribe("t1") as subscription:
        await journal.write("t1", lambda r: Change(events=[to(r, S.WORKING)]))
        assert await subscription.wait(0.01) is True
        await journal.write("t1", lambda r: None)
        assert await subscription.wait(0.01) is False


# --- finished-task TTL ------------------------------------------------------------------------


@pytest.mark.parametrize("state", [S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED])
async def test_ttl_sets_expiry_when_terminal(
    store: CountingStore, created: TaskRecord, state: TaskState
) -> None:
    journal = Journal(store, finished_task_ttl_s=60)
    working = await journal.write("t1", lambda r: Change(events=[to(r, S.WORKING)]))
    assert working.expires_at_ms is None
    interrupted = await journal.write("t1", lambda r: Change(events=[to(r, S.INPUT_REQUIRED)]))
    assert interrupted.expires_at_ms is None
    resumed = await journal.write("t1", lambda r: Change(events=[to(r, S.WORKING)]))
    assert resumed.expires_at_ms is None
    done = await journal.write("t1", lambda r: Change(events=[to(r, state)]))
    assert done.expires_at_ms == done.updated_at_ms + 60_000
    stored = await store.get_task("t1")
    assert stored is not None and stored.expires_at_ms == done.expires_at_ms


async def test_ttl_fractional_seconds(store: CountingStore, created: TaskRecord) -> None:
    journal = Journal(store, finished_task_ttl_s=1.5)
    done = await journal.write("t1", lambda r: Change(events=[to(r, S.CANCELED)]))
    assert done.expires_at_ms == done.updated_at_ms + 1500


async def test_no_ttl_keeps_finished_tasks(store: CountingStore, created: TaskRecord) -> None:
    journal = Journal(store)
    done = await journal.write("t1", lambda r: Change(events=[to(r, S.COMPLETED)]))
    assert done.expires_at_ms is None


async def test_expired_task_is_gone() -> None:
    now = [1_000_000]
    store = MemoryStore(clock=lambda: now[0])
    journal = Journal(store, finished_task_ttl_s=10)
    task = new_task("t9")
    await journal.create(task, owner="o", events=[status_event(task, S.SUBMITTED)])
    done = await journal.write("t9", lambda r: Change(events=[to(r, S.COMPLETED)]))
    assert done.expires_at_ms is not None
    now[0] = done.expires_at_ms - 1
    assert await store.get_task("t9") is not None
    now[0] = done.expires_at_ms
    assert await store.get_task("t9") is None
    with pytest.raises(TaskGone):
        await journal.write("t9", lambda r: Change())
