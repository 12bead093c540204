"""Waiting and streaming when the writes come from another process.

A blocking `message/send` and an SSE stream take what a write in their own process committed
from the bus (bus.py) and read the store only on their polls. These tests run two Runtimes on
one SQLite database — two containers — with the turns of one instance's tasks run by the other's
worker, so those writes wake nobody: the waiting side must find them by polling, and must not
skip an event written elsewhere when a write of its own wakes it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from a2a_serverless import Agent, Context, Settings, TaskUpdater
from a2a_serverless.models import (
    CancelTaskRequest,
    SendMessageRequest,
    Task,
    TaskArtifactUpdateEvent,
)
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.runtime import Runtime
from a2a_serverless.service import Caller, StreamEvent, StreamItem
from a2a_serverless.store.base import TaskQuery
from tests.integration.agent_fixtures import Gates, check_log, user_message

# Generous: only stops a broken run from hanging; nothing is timed against it.
WAIT_S = 20.0


@dataclass
class Instances:
    here: Runtime  # receives the requests
    there: Runtime  # runs their turns
    gates: Gates


class Stepper:
    """One artifact, then completion, each behind a gate the test opens."""

    def __init__(self, gates: Gates) -> None:
        self.gates = gates

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await self.gates.arrive_and_wait("artifact")
        await updater.add_artifact(f"echo: {context.text}", name="echo")
        await self.gates.arrive_and_wait("finish")
        await updater.complete()


@pytest.fixture
async def instances(tmp_path: Path) -> AsyncIterator[Instances]:
    async with two_instances(tmp_path, poll_interval_s=0.05) as pair:
        yield pair


@contextlib.asynccontextmanager
async def two_instances(tmp_path: Path, *, poll_interval_s: float) -> AsyncIterator[Instances]:
    gates = Gates()
    agent = Agent(name="Stepper", description="Steps when told.", executor=Stepper(gates))
    settings = Settings(
        store_url=f"sqlite:///{tmp_path / 'tasks.db'}",
        blocking_timeout_s=WAIT_S,
        stream_timeout_s=WAIT_S,
        poll_interval_s=poll_interval_s,
    )
    queue_here, queue_there = InProcessQueue(), InProcessQueue()
    here = Runtime(agent, settings, queue=queue_here, push_notifications=False)
    there = Runtime(agent, settings, queue=queue_there, push_notifications=False)
    queue_here.bind(there.jobs)  # the turns of "here"'s tasks run in the other one
    queue_there.bind(there.jobs)
    try:
        yield Instances(here, there, gates)
    finally:
        for key in ("artifact", "finish"):
            gates.release(key)
        await queue_here.drain()
        await here.aclose()
        await there.aclose()


def send_params(text: str, *, blocking: bool = True) -> SendMessageRequest:
    return SendMessageRequest.model_validate(
        {"message": user_message(text), "configuration": {"returnImmediately": not blocking}}
    )


async def test_a_blocking_send_sees_the_turn_another_instance_runs(instances: Instances) -> None:
    for key in ("artifact", "finish"):
        instances.gates.release(key)
    task = await asyncio.wait_for(
        instances.here.service.send_message(send_params("hi"), Caller()), WAIT_S
    )
    assert task.status.state.value == "completed"
    assert task.model_dump()["artifacts"][0]["parts"][0]["text"] == "echo: hi"


async def test_a_blocking_send_waits_through_steps_written_elsewhere(instances: Instances) -> None:
    gates = instances.gates
    sending = asyncio.ensure_future(
        instances.here.service.send_message(send_params("slow"), Caller())
    )
    await gates.wait_arrived("artifact", WAIT_S)
    gates.release("artifact")
    await gates.wait_arrived("finish", WAIT_S)
    await asyncio.sleep(0.15)  # a few of the waiter's polls see "working", not the end
    assert not sending.done()
    gates.release("finish")
    task = await asyncio.wait_for(sending, WAIT_S)
    assert task.status.state.value == "completed"


async def collect(stream: AsyncIterator[StreamItem]) -> list[StreamEvent]:
    return [event async for event in stream if isinstance(event, StreamEvent)]


async def test_a_stream_woken_by_its_own_write_does_not_skip_one_made_elsewhere(
    tmp_path: Path,
) -> None:
    # Polls far apart: the artifact the other instance writes is not seen by a poll before this
    # instance's own write (the cancel) wakes the stream, with only its own event.
    async with two_instances(tmp_path, poll_interval_s=WAIT_S) as instances:
        gates, here = instances.gates, instances.here
        stream = await here.service.stream_message(send_params("cancel me"), Caller())
        reading = asyncio.ensure_future(collect(stream))
        await gates.wait_arrived("artifact", WAIT_S)
        await asyncio.sleep(0.05)  # the stream has read the store and waits on the bus
        (task_id,) = await task_ids(here)
        gates.release("artifact")
        await gates.wait_arrived("finish", WAIT_S)  # the artifact is in the store
        canceled = await here.service.cancel_task(CancelTaskRequest(id=task_id), Caller())
        assert canceled.status.state.value == "canceled"
        events = await asyncio.wait_for(reading, WAIT_S)

        record = await here.store.get_task(task_id)
        assert record is not None
        log = await here.store.read_events(task_id, 0)
    check_log(record, log)
    # The stream: the Task first (at the position it was read), then every logged event after
    # it, each once and in order, the artifact written elsewhere included.
    first, rest = events[0], events[1:]
    assert isinstance(first.payload, Task)
    assert [e.seq for e in rest] == [e.seq for e in log if e.seq > first.seq]
    assert any(isinstance(e.payload, TaskArtifactUpdateEvent) for e in rest)
    assert rest[-1].payload.model_dump()["status"]["state"] == "canceled"


async def task_ids(runtime: Runtime) -> list[str]:
    page = await runtime.store.list_tasks(TaskQuery(owner="anonymous", limit=10))
    return [r.task_id for r in page.records]
