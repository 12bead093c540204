"""Durable calls' typed pieces: the records' stored form, the job's wire form, the remotes'
setting, and a context without durable operations."""

from __future__ import annotations

import pytest

from a2a_serverless.codec import ENCODER
from a2a_serverless.durable import DurableUnavailable
from a2a_serverless.journal import Change
from a2a_serverless.models import Message, Part, Task, TaskState, TaskStatus
from a2a_serverless.queue.base import (
    DURABLE_CHECK,
    DurableCheck,
    DurableCheckJob,
    decode_job,
    encode_job,
)
from a2a_serverless.store.base import TaskRecord
from a2a_serverless.store.bookkeeping import DurableOp, DurableTurn, durable_of
from a2a_serverless.turn import Context


def test_a_durable_turn_is_stored_through_the_change_and_read_back() -> None:
    turn = DurableTurn(step="m-1", started_at_ms=5).with_op(
        0, DurableOp(kind="call", key="call u h", remote="u", remote_task_id="t")
    )
    stored = Change(durable=turn).stored_updates({"doneStep": "m-0"})
    assert set(stored) == {"durable"}
    assert stored["durable"]["ops"]["0"]["remoteTaskId"] == "t"
    assert durable_of(stored) == turn
    assert turn.pending_calls() == [(0, turn.op(0))]
    assert durable_of({}) is None


def test_the_check_job_has_one_json_form() -> None:
    job = DurableCheckJob(
        task_id="t-1", payload=DurableCheck(turn="m-1", generation=3, due_at_ms=7, poll_s=0.5)
    )
    text = encode_job(job)
    assert b'"kind":"durable-check"' in text and b'"dueAtMs":7' in text
    assert decode_job(text) == job
    assert job.kind == DURABLE_CHECK


async def test_a_context_made_by_hand_has_no_durable_operations() -> None:
    message = Message(message_id="m", role="user", parts=[Part(text="hi")])
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.WORKING))
    context = Context(task_id="t", context_id="c", message=message, task=task)
    with pytest.raises(DurableUnavailable):
        await context.call("https://agent.example.com", "hi")
    with pytest.raises(DurableUnavailable):
        await context.sleep(1)


async def test_a_url_from_data_passes_the_ssrf_guard_and_a_configured_one_is_trusted() -> None:
    from a2a_serverless.client.remote import RemoteAgent
    from a2a_serverless.config import Settings
    from a2a_serverless.durable import RemoteUnavailable, UnknownRemote
    from a2a_serverless.durable.remotes import Remotes

    remotes = Remotes(Settings(), {"local": RemoteAgent("http://127.0.0.1:9/", name="local")})
    assert await remotes.resolve("local") == "http://127.0.0.1:9/"
    assert await remotes.resolve("http://127.0.0.1:9/") == "http://127.0.0.1:9/"
    with pytest.raises(RemoteUnavailable, match="refused"):
        await remotes.resolve("http://169.254.169.254/latest/")
    with pytest.raises(UnknownRemote, match="local"):
        await remotes.resolve("nobody")


def _call(task_id: str, state: str = "pending", asked: TaskState | None = None) -> DurableOp:
    result = None
    if asked is not None:
        remote = Task(id=task_id, context_id="rc", status=TaskStatus(state=asked))
        result = ENCODER.encode(remote).decode()
    return DurableOp(
        kind="call",
        key=f"call u {task_id}",
        state=state,
        remote="https://remote.example.com",
        remote_task_id=task_id,
        result=result,
    )


def _record(state: TaskState, turn: DurableTurn, *, done: bool = False) -> TaskRecord:
    from a2a_serverless.store.bookkeeping import TurnInfo, stored_updates

    task = Task(id="t", context_id="c", status=TaskStatus(state=state))
    internal = stored_updates(
        {},
        turn=TurnInfo(message_id=turn.step),
        turn_done=turn.step if done else None,
        durable=turn,
    )
    return TaskRecord(task, "anonymous", 1, 1, 0, 0, internal=internal)


def test_a_turn_over_leaves_behind_its_pending_calls_and_at_the_tasks_end_its_questions() -> None:
    from a2a_serverless.durable.ending import left_behind, turn_over

    turn = DurableTurn(step="m-1")
    for position, op in enumerate(
        [
            _call("pending"),
            _call("asked", "done", TaskState.INPUT_REQUIRED),
            _call("answered", "done", TaskState.INPUT_REQUIRED),
            _call("answered", "done", TaskState.COMPLETED),
            _call("finished", "done", TaskState.COMPLETED),
            _call("past-deadline", "deadline"),
        ]
    ):
        turn = turn.with_op(position, op)

    running = _record(TaskState.WORKING, turn)
    assert not turn_over(running, turn)
    # Interrupted: the pending call is left behind; the question is the next turn's to answer.
    interrupted = _record(TaskState.INPUT_REQUIRED, turn, done=True)
    assert turn_over(interrupted, turn)
    assert [(r.position, r.task_id) for r in left_behind(interrupted, turn)] == [(0, "pending")]
    # Our task ended: no next turn will answer the question it left open either (the one
    # answered later in the turn is not left open).
    ended = _record(TaskState.COMPLETED, turn, done=True)
    assert [(r.position, r.task_id) for r in left_behind(ended, turn)] == [
        (0, "pending"),
        (1, "asked"),
    ]
    # A newer turn began: this one is over too.
    newer = _record(TaskState.WORKING, DurableTurn(step="m-2"))
    assert turn_over(newer, turn)


def test_a_check_naming_remote_tasks_to_cancel_has_one_json_form() -> None:
    from a2a_serverless.queue.base import RemoteTaskRef

    ref = RemoteTaskRef(position=2, remote="https://remote.example.com", task_id="rt")
    job = DurableCheckJob(
        task_id="t-1",
        payload=DurableCheck(turn="m-1", generation=0, due_at_ms=7, poll_s=5, cancel=(ref,)),
    )
    text = encode_job(job)
    assert b'"cancel":[{"position":2,"remote":"https://remote.example.com","taskId":"rt"}]' in text
    assert decode_job(text) == job
    # A check without any omits the field (the form earlier versions wrote and read).
    plain = encode_job(
        DurableCheckJob(
            task_id="t-1", payload=DurableCheck(turn="m-1", generation=0, due_at_ms=7, poll_s=5)
        )
    )
    assert b"cancel" not in plain


async def test_a_turns_end_names_what_it_left_behind_so_a_next_turn_cannot_hide_it() -> None:
    """The check queued at a turn's end cancels the remote tasks it names even when the next
    turn has replaced the record's calls before it runs (its caller answered at once)."""
    from typing import Any

    from a2a_serverless.config import Settings
    from a2a_serverless.durable.ending import RemoteCancels
    from a2a_serverless.durable.remotes import Remotes
    from a2a_serverless.durable.resume import Resumer
    from a2a_serverless.durable.session import DurableCalls
    from a2a_serverless.journal import Journal
    from a2a_serverless.lifecycle import status_event
    from a2a_serverless.store.bookkeeping import TurnInfo
    from a2a_serverless.store.memory import MemoryStore

    canceled: list[str] = []
    queued: list[Any] = []

    class Remote:
        async def cancel_task(self, task_id: str) -> None:
            canceled.append(task_id)

    class FakeRemotes(Remotes):
        async def client(self, url: str) -> Any:
            return Remote()

    class Captured:
        async def enqueue(self, job: Any, *, delay_s: float = 0.0) -> None:
            queued.append(job)

    settings = Settings()
    ending = RemoteCancels(Captured(), settings)  # type: ignore[arg-type]
    journal = Journal(MemoryStore(), commit_hooks=[ending.on_commit])
    resumer = Resumer(DurableCalls(journal, Captured(), settings, FakeRemotes(settings)))  # type: ignore[arg-type]

    turn = DurableTurn(step="m-1").with_op(0, _call("rt-1"))
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.WORKING))
    await journal.create(task, owner="o", turn=TurnInfo(message_id="m-1"))
    await journal.write("t", lambda r: Change(durable=turn))
    asking = status_event(task, TaskState.INPUT_REQUIRED)
    await journal.write("t", lambda r: Change(events=[asking], turn_done="m-1"))
    (job,) = queued
    assert [(r.position, r.task_id) for r in job.payload.cancel] == [(0, "rt-1")]

    # The caller answers; the next turn records its own first call before the check runs.
    await journal.write(
        "t",
        lambda r: Change(
            turn=TurnInfo(message_id="m-2"),
            durable=DurableTurn(step="m-2").with_op(0, _call("rt-2")),
        ),
    )
    await resumer.handle(job)
    assert canceled == ["rt-1"]
    kept = durable_of((await journal.store.get_task("t")).internal)  # type: ignore[union-attr]
    assert kept is not None and kept.step == "m-2" and kept.op(0) == _call("rt-2")


async def test_the_remote_cancel_hook_queues_a_check_when_a_task_ends_with_calls_pending() -> None:
    from a2a_serverless.config import Settings
    from a2a_serverless.durable.ending import RemoteCancels
    from a2a_serverless.journal import Journal
    from a2a_serverless.lifecycle import status_event
    from a2a_serverless.queue.base import Job
    from a2a_serverless.queue.inprocess import InProcessQueue
    from a2a_serverless.store.memory import MemoryStore

    queued: list[Job] = []

    async def record(job: Job) -> None:
        queued.append(job)

    queue = InProcessQueue(record)
    remote_cancels = RemoteCancels(queue, Settings())
    # Handed to the journal when it is made, as every commit hook is (runtime.py).
    journal = Journal(MemoryStore(), commit_hooks=[remote_cancels.on_commit])
    pending = DurableTurn(step="m-1").with_op(
        0, DurableOp(kind="call", key="call u h", remote="u", remote_task_id="r-1")
    )
    for task_id, turn in (("with-call", pending), ("without", None)):
        task = Task(id=task_id, context_id="c", status=TaskStatus(state=TaskState.WORKING))
        await journal.create(task, owner="o")
        if turn is not None:
            await journal.write(task_id, lambda r, t=turn: Change(durable=t))
        await journal.write(
            task_id,
            lambda r: Change(events=[status_event(r.task, TaskState.CANCELED)], claim=None),
        )
    await queue.drain()
    [job] = queued
    assert isinstance(job, DurableCheckJob)
    assert (job.task_id, job.payload.turn) == ("with-call", "m-1")
