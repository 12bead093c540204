"""Durable calls' typed pieces: the records' stored form, the job's wire form, the remotes'
setting, and a context without durable operations."""

from __future__ import annotations

import pytest

from a2a_serverless.durable import DurableUnavailable
from a2a_serverless.journal import Change
from a2a_serverless.models import Message, Task, TaskState, TaskStatus, TextPart
from a2a_serverless.queue.base import (
    DURABLE_CHECK,
    DurableCheck,
    DurableCheckJob,
    decode_job,
    encode_job,
)
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
    message = Message(message_id="m", role="user", parts=[TextPart(text="hi")])
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
