"""The record a turn begins with, handed to the worker that claims it in the same process
(handoff.py): a blocking send on the in-process queue reads the task no more, a stale record
costs a conflict and a read, never a wrong decision, and other queues behave as before."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from a2a_serverless import Settings, agent, create_app
from a2a_serverless.handoff import TurnHandoff
from a2a_serverless.journal import Change, Journal
from a2a_serverless.lifecycle import status_event
from a2a_serverless.models import Message, Part, Task, TaskState, TaskStatus
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.queue.sqlite import SqliteQueue
from a2a_serverless.runtime import Runtime
from a2a_serverless.store import MemoryStore
from a2a_serverless.store.base import TaskEvent, TaskRecord, VersionConflict, WorkerClaim
from a2a_serverless.store.bookkeeping import TurnInfo
from a2a_serverless.testing import AgentTestClient
from a2a_serverless.worker import Worker


class CountingStore(MemoryStore):
    """A MemoryStore that counts task reads and refused writes."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.conflicts = 0

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
        try:
            await super().update_task(record, events, idempotency_key=idempotency_key)
        except VersionConflict:
            self.conflicts += 1
            raise


@agent
def echo(text: str) -> str:
    return f"echo: {text}"


def settings() -> Settings:
    return Settings(store_url="memory://", dev_mode=True, push_notifications=False)


async def begin_turn(journal: Journal, task_id: str = "t1", step: str = "u1") -> TaskRecord:
    message = Message(role="user", message_id=step, parts=[Part(text="hi")], task_id=task_id)
    task = Task(
        id=task_id, context_id="c1", status=TaskStatus(state=TaskState.SUBMITTED), history=[message]
    )
    return await journal.create(
        task,
        owner="alice",
        events=[status_event(task, TaskState.SUBMITTED)],
        turn=TurnInfo(message_id=step),
    )


async def state_of(store: MemoryStore, task_id: str = "t1") -> TaskState:
    record = await store.get_task(task_id)
    assert record is not None
    return record.task.status.state


# --- the handoff ----------------------------------------------------------------------------------


async def test_a_record_is_taken_once_and_only_for_its_own_turn() -> None:
    handoff = TurnHandoff(capacity=2)
    journal = Journal(MemoryStore(), handoff=handoff)
    record = await begin_turn(journal)
    assert handoff.take("t1", "another step") is None
    assert handoff.take("t1", "u1") is record
    assert handoff.take("t1", "u1") is None
    # The oldest goes when there is no room.
    for task_id in ("a", "b", "c"):
        await begin_turn(journal, task_id)
    assert handoff.take("a", "u1") is None
    assert handoff.take("b", "u1") is not None and handoff.take("c", "u1") is not None


async def test_only_writes_that_begin_a_turn_are_handed_over() -> None:
    handoff = TurnHandoff()
    journal = Journal(MemoryStore(), handoff=handoff)
    created = await begin_turn(journal)
    claim = WorkerClaim("u1", "w", 1, 1)
    await journal.write("t1", lambda _: Change(claim=claim))
    # The bookkeeping write replaced nothing: the record that began the turn is still there.
    assert handoff.take("t1", "u1") is created
    written = await journal.write("t1", lambda _: Change(turn=TurnInfo(message_id="u1")))
    assert handoff.take("t1", "u1") is written


# --- the worker -----------------------------------------------------------------------------------


async def test_the_worker_claims_from_the_handed_record_without_a_read() -> None:
    store = CountingStore()
    journal = Journal(store, handoff=TurnHandoff())
    await begin_turn(journal)
    await Worker(echo, journal).run_turn("t1", "u1")
    assert await state_of(store) == TaskState.COMPLETED
    assert (store.reads, store.conflicts) == (1, 0)  # the read is state_of's


async def test_a_stale_handed_record_costs_a_conflict_and_a_read() -> None:
    store = CountingStore()
    journal = Journal(store, handoff=TurnHandoff())
    await begin_turn(journal)
    # Another process writes the task in between (a journal of its own, no handoff).
    other = Journal(store)
    await other.write("t1", lambda _: Change(internal={"elsewhere": True}))
    reads = store.reads
    await Worker(echo, journal).run_turn("t1", "u1")
    assert await state_of(store) == TaskState.COMPLETED
    assert (store.reads - reads, store.conflicts) == (2, 1)
    record = await store.get_task("t1")
    assert record is not None and record.internal["elsewhere"] is True


async def test_a_claim_refused_on_a_handed_record_is_decided_again_on_a_read() -> None:
    store = CountingStore()
    handoff = TurnHandoff()
    journal = Journal(store, handoff=handoff)
    begun = await begin_turn(journal)
    # A handed record saying another worker runs the turn (not what is stored): the claim
    # does not wait for that lease on its word, it reads the task and claims it.
    held = WorkerClaim("u1", "another worker", 2**62, 1)
    handoff.put(msgspec.structs.replace(begun, claim=held))
    reads = store.reads
    await Worker(echo, journal).run_turn("t1", "u1")
    assert await state_of(store) == TaskState.COMPLETED
    assert store.reads - reads == 2  # the claim's, and state_of's


async def test_a_task_canceled_before_the_claim_is_not_run() -> None:
    store = CountingStore()
    journal = Journal(store, handoff=TurnHandoff())
    begun = await begin_turn(journal)
    await Journal(store).write(
        "t1", lambda r: Change(events=[status_event(r.task, TaskState.CANCELED)])
    )
    ran: list[str] = []

    @agent
    def recording(text: str) -> str:
        ran.append(text)
        return text

    await Worker(recording, journal).run_turn("t1", begun.step or "")
    assert ran == []
    assert await state_of(store) == TaskState.CANCELED


# --- the runtime ----------------------------------------------------------------------------------


async def test_a_blocking_send_on_the_in_process_queue_reads_the_task_no_more() -> None:
    store = CountingStore()
    app = create_app(echo, settings(), store=store, queue=InProcessQueue())
    assert app.runtime.journal.handoff is not None
    async with AgentTestClient(app) as client:
        task = await client.send("hi")
        assert isinstance(task, Task) and task.status.state == TaskState.COMPLETED
    assert (store.reads, store.conflicts) == (0, 0)
    await app.runtime.aclose()


async def test_other_queues_are_given_no_handoff(tmp_path: Path) -> None:
    sqlite = SqliteQueue(tmp_path / "jobs.db")
    assert Runtime(echo, settings(), store=MemoryStore(), queue=sqlite).journal.handoff is None
    await sqlite.aclose()

    class Elsewhere:
        """A queue whose jobs run in another function (as SQS, Pub/Sub)."""

        supports_delay = True

        async def enqueue(self, job: object, *, delay_s: float = 0.0) -> None: ...

        def start(self, jobs: object) -> None: ...

        async def aclose(self) -> None: ...

    runtime = Runtime(echo, settings(), store=MemoryStore(), queue=Elsewhere())  # type: ignore[arg-type]
    assert runtime.journal.handoff is None
