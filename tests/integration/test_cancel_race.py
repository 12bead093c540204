"""tasks/cancel: what it cancels, how a running agent is stopped, and cancel racing completion.

Once a task is canceled the agent's next updater write raises `TaskEnded`; nothing it does
afterwards lands in the task or its event log. When a cancel and the agent's completion happen
at the same moment, exactly one of them wins, every time.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless import Agent, Context, InputRequired, TaskEnded, TaskUpdater, agent
from a2a_serverless.models import TaskStatusUpdateEvent
from a2a_serverless.store import MemoryStore, SqliteStore
from a2a_serverless.store.base import Store, TaskEvent, TaskRecord, VersionConflict
from a2a_serverless.v03.jsonrpc_convert import task_out
from tests.integration.agent_fixtures import (
    FAST,
    TERMINAL,
    Gates,
    RecordingQueue,
    cancel,
    check_log,
    events_of,
    get_task,
    result_of,
    rpc,
    send,
    send_params,
    stored,
    stream,
    stream_results,
    wait_for_state,
)

NOT_CANCELABLE = -32002
TASK_NOT_FOUND = -32001


def canceled_result(response: dict[str, Any], task_id: str) -> dict[str, Any]:
    task = result_of(response)
    assert task["kind"] == "task"
    assert task["id"] == task_id
    assert task["status"]["state"] == "canceled"
    return task


async def assert_ends_canceled(app: Any, task_id: str) -> TaskRecord:
    record = await stored(app, task_id)
    events = await events_of(app, task_id)
    assert record.state == "canceled"
    assert record.claim is None
    check_log(record, events)
    last = events[-1].payload
    assert isinstance(last, TaskStatusUpdateEvent) and last.status.state.ends_stream
    return record


# --- what can be canceled ---------------------------------------------------------------------


async def test_cancel_submitted_task(make_client: Any) -> None:
    ran: list[str] = []

    @agent
    def never(text: str) -> str:
        ran.append(text)
        return "x"

    queue = RecordingQueue()
    async with make_client(never, queue=queue, **FAST) as (client, app):
        task = await send(client, blocking=False)
        assert task["status"]["state"] == "submitted"
        canceled = canceled_result(await cancel(client, task["id"]), task["id"])
        assert canceled["contextId"] == task["contextId"]
        assert (await get_task(client, task["id"]))["status"]["state"] == "canceled"
        record = await assert_ends_canceled(app, task["id"])
        assert [e.payload.status.state.value for e in await events_of(app, task["id"])] == [  # type: ignore[union-attr]
            "submitted",
            "canceled",
        ]
        # The turn's job, when it arrives, does not run the agent.
        for job in queue.jobs_for(task["id"]):
            await app.runtime.worker.handle(job)
        assert ran == []
        assert await stored(app, task["id"]) == record


async def test_cancel_input_required_task(make_client: Any) -> None:
    @agent
    def asker(text: str) -> Any:
        return InputRequired("Which city?")

    async with make_client(asker, **FAST) as (client, app):
        task = await send(client)
        assert task["status"]["state"] == "input-required"
        canceled_result(await cancel(client, task["id"]), task["id"])
        record = await assert_ends_canceled(app, task["id"])
        # A canceled task takes no more messages, and does not change.
        reply = await rpc(client, "message/send", send_params("Oslo", task_id=task["id"]))
        assert "error" in reply
        assert await stored(app, task["id"]) == record


async def test_cancel_auth_required_task(make_client: Any) -> None:
    @agent
    def gatekeeper(text: str) -> Any:
        from a2a_serverless import AuthRequired

        raise AuthRequired("log in first")

    async with make_client(gatekeeper, **FAST) as (client, app):
        task = await send(client)
        assert task["status"]["state"] == "auth-required"
        canceled_result(await cancel(client, task["id"]), task["id"])
        await assert_ends_canceled(app, task["id"])


@pytest.mark.parametrize("outcome", ["completed", "failed", "rejected", "canceled"])
async def test_cancel_terminal_task_is_refused(make_client: Any, outcome: str) -> None:
    @agent
    def finisher(text: str) -> Any:
        from a2a_serverless import Failed, Rejected

        if outcome == "failed":
            raise Failed("nope")
        if outcome == "rejected":
            raise Rejected("no")
        return "done"

    queue = RecordingQueue() if outcome == "canceled" else None
    options = {"queue": queue} if queue else {}
    async with make_client(finisher, **options, **FAST) as (client, app):
        task = await send(client, blocking=queue is None)
        if outcome == "canceled":
            canceled_result(await cancel(client, task["id"]), task["id"])
        before = await stored(app, task["id"])
        assert before.state == outcome
        response = await cancel(client, task["id"])
        assert response["error"]["code"] == NOT_CANCELABLE
        assert "result" not in response
        assert await stored(app, task["id"]) == before


async def test_cancel_unknown_task(make_client: Any) -> None:
    @agent
    def idle(text: str) -> str:
        return text

    async with make_client(idle, **FAST) as (client, _):
        response = await cancel(client, "no-such-task")
        assert response["error"]["code"] == TASK_NOT_FOUND


# --- stopping a running agent -------------------------------------------------------------------


class Stoppable:
    """Starts work, waits at a gate, then tries to write more: which it must not manage."""

    def __init__(self) -> None:
        self.gates = Gates()
        self.log: list[str] = []

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work("started")
        await updater.add_artifact("before cancel", artifact_id="out", last_chunk=False)
        self.log.append("waiting")
        await self.gates.arrive_and_wait(context.task_id)
        try:
            await updater.add_artifact(
                "after cancel", artifact_id="out", append=True, last_chunk=True
            )
        except TaskEnded:
            self.log.append("TaskEnded")
            raise
        self.log.append("wrote after cancel")
        await updater.complete("done")


async def test_cancel_working_task_stops_the_agent(make_client: Any) -> None:
    executor = Stoppable()
    async with make_client(Agent("Stoppable", "Stops.", executor), **FAST) as (client, app):
        task = await send(client, blocking=False)
        await executor.gates.wait_arrived(task["id"])
        working = await stored(app, task["id"])
        assert working.state == "working"

        canceled = canceled_result(await cancel(client, task["id"]), task["id"])
        after_cancel = await assert_ends_canceled(app, task["id"])
        events_at_cancel = await events_of(app, task["id"])

        executor.gates.release(task["id"])
        await asyncio.wait_for(app.runtime.queue.drain(), 5)
        assert executor.log == ["waiting", "TaskEnded"]
        # Nothing after the cancel landed: not in the task, not in the event log.
        assert await stored(app, task["id"]) == after_cancel
        assert await events_of(app, task["id"]) == events_at_cancel
        final = await get_task(client, task["id"])
        assert final == canceled
        assert [p["text"] for p in final["artifacts"][0]["parts"]] == ["before cancel"]
        assert "after cancel" not in str(final)


async def test_cancel_stops_a_generator_agent(make_client: Any) -> None:
    gates = Gates()
    resumed: list[str] = []

    @agent
    async def talker(ctx: Context) -> AsyncIterator[Any]:
        yield "first"
        await gates.arrive_and_wait(ctx.task_id)
        yield "second"
        resumed.append("after second")  # never: the write of "second" ends the agent
        yield "third"

    async with make_client(talker, **FAST) as (client, app):
        task = await send(client, blocking=False)
        await gates.wait_arrived(task["id"])
        canceled_result(await cancel(client, task["id"]), task["id"])
        record = await assert_ends_canceled(app, task["id"])
        gates.release(task["id"])
        await asyncio.wait_for(app.runtime.queue.drain(), 5)
        assert resumed == []
        assert await stored(app, task["id"]) == record
        assert [p.text for p in (record.task.artifacts or [])[0].parts] == ["first"]  # type: ignore[union-attr]


async def test_cancel_while_a_sync_agent_runs_drops_its_result(make_client: Any) -> None:
    @agent
    def slow(text: str) -> str:
        time.sleep(0.2)
        return "too late"

    async with make_client(slow, **FAST) as (client, app):
        task = await send(client, blocking=False)
        await wait_for_state(app, task["id"], "working")
        canceled_result(await cancel(client, task["id"]), task["id"])
        record = await assert_ends_canceled(app, task["id"])
        await asyncio.wait_for(app.runtime.queue.drain(), 5)
        assert await stored(app, task["id"]) == record
        assert record.task.artifacts is None


async def test_blocking_send_returns_the_canceled_task(make_client: Any) -> None:
    gates = Gates()

    @agent
    async def waiter(ctx: Context) -> str:
        await gates.arrive_and_wait("w")
        return "never shown"

    async with make_client(waiter, **FAST) as (client, app):
        sending = asyncio.create_task(send(client))
        await gates.wait_arrived("w")
        task_id = (await app.runtime.store.list_tasks(_any_owner_query())).records[0].task_id
        canceled_result(await cancel(client, task_id), task_id)
        task = await asyncio.wait_for(sending, 5)
        assert task["id"] == task_id
        assert task["status"]["state"] == "canceled"
        gates.release("w")


async def test_stream_ends_with_the_cancel(make_client: Any) -> None:
    gates = Gates()

    @agent
    async def waiter(ctx: Context) -> AsyncIterator[Any]:
        yield "partial"
        await gates.arrive_and_wait("w")
        yield "never"

    async with make_client(waiter, **FAST) as (client, app):
        streaming = asyncio.create_task(stream(client))
        await gates.wait_arrived("w")
        task_id = (await app.runtime.store.list_tasks(_any_owner_query())).records[0].task_id
        canceled_result(await cancel(client, task_id), task_id)
        results = stream_results(await asyncio.wait_for(streaming, 5))
        assert results[-1]["kind"] == "status-update"
        assert results[-1]["status"]["state"] == "canceled"
        assert results[-1]["final"] is True
        gates.release("w")


def _any_owner_query() -> Any:
    from a2a_serverless.store.base import TaskQuery

    return TaskQuery(owner="anonymous")


# --- the race --------------------------------------------------------------------------------


class YieldingStore:
    """Wraps a store and yields to the event loop between a read and a conditional write, so
    in-process writers interleave the way writers in separate processes do."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.conflicts = 0

    async def get_task(self, task_id: str) -> TaskRecord | None:
        record = await self.inner.get_task(task_id)
        await asyncio.sleep(0)
        return record

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        await asyncio.sleep(0)
        try:
            await self.inner.update_task(record, events, idempotency_key=idempotency_key)
        except VersionConflict:
            self.conflicts += 1
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


RACE_ITERATIONS = 200


def make_store(kind: str, path: Path) -> Any:
    base: Store = MemoryStore() if kind.startswith("memory") else SqliteStore(path / "race.db")
    return YieldingStore(base) if kind.endswith("yielding") else base


@pytest.mark.parametrize("store_kind", ["memory", "sqlite", "memory-yielding", "sqlite-yielding"])
async def test_cancel_racing_completion(make_client: Any, tmp_path: Path, store_kind: str) -> None:
    gates = Gates()

    @agent(name="Racer", description="Completes the moment it is let go.")
    async def racer(ctx: Context) -> str:
        await gates.arrive_and_wait(ctx.task_id)
        return "finished"

    rng = random.Random(f"race-{store_kind}")
    store = make_store(store_kind, tmp_path)
    outcomes: Counter[str] = Counter()
    finals: dict[str, TaskRecord] = {}
    async with make_client(racer, store=store, **FAST) as (client, app):
        queue = app.runtime.queue
        for _ in range(RACE_ITERATIONS):
            task = await send(client, blocking=False)
            task_id = task["id"]
            await gates.wait_arrived(task_id)

            async def let_go(task_id: str = task_id, spins: int = rng.randrange(8)) -> None:
                for _ in range(spins):
                    await asyncio.sleep(0)
                gates.release(task_id)

            async def cancel_it(task_id: str = task_id, spins: int = rng.randrange(4)) -> Any:
                for _ in range(spins):
                    await asyncio.sleep(0)
                return await cancel(client, task_id)

            _, response = await asyncio.gather(let_go(), cancel_it())
            await asyncio.wait_for(queue.drain(), 5)

            record = await stored(app, task_id)
            events = await events_of(app, task_id)
            assert record.state in TERMINAL
            if "error" in response:
                assert response["error"]["code"] == NOT_CANCELABLE, response
                assert record.state == "completed"
                outcomes["completed"] += 1
            else:
                assert canceled_result(response, task_id)
                assert record.state == "canceled"
                outcomes["canceled"] += 1
            # Exactly one terminal status event, the last one; seqs 1..last_seq.
            check_log(record, events)
            terminal_events = [
                e
                for e in events
                if isinstance(e.payload, TaskStatusUpdateEvent)
                and e.payload.status.state.value in TERMINAL
            ]
            assert len(terminal_events) == 1
            assert record.claim is None
            finals[task_id] = record

        # Read every task again after a pause: none changed after it ended.
        await asyncio.sleep(0.05)
        await asyncio.wait_for(queue.drain(), 5)
        for task_id, record in finals.items():
            assert await stored(app, task_id) == record
            again = await get_task(client, task_id)
            assert again["status"]["state"] == record.state
            assert again == task_out(record.task)

    assert sum(outcomes.values()) == RACE_ITERATIONS
    # The race really is a race: both sides win some of the time.
    assert outcomes["completed"] > 0 and outcomes["canceled"] > 0, outcomes


async def test_many_cancels_at_once(make_client: Any) -> None:
    """Ten cancels of one working task: one returns the canceled task, the others -32002 or
    the same canceled task; the log holds one cancel."""
    executor = Stoppable()
    async with make_client(Agent("Stoppable", "Stops.", executor), **FAST) as (client, app):
        task = await send(client, blocking=False)
        await executor.gates.wait_arrived(task["id"])
        responses = await asyncio.gather(*(cancel(client, task["id"]) for _ in range(10)))
        successes = [r for r in responses if "result" in r]
        assert len(successes) >= 1
        for response in responses:
            if "error" in response:
                assert response["error"]["code"] == NOT_CANCELABLE
            else:
                assert response["result"]["status"]["state"] == "canceled"
        executor.gates.release(task["id"])
        await asyncio.wait_for(app.runtime.queue.drain(), 5)
        record = await assert_ends_canceled(app, task["id"])
        states = [
            e.payload.status.state.value
            for e in await events_of(app, task["id"])
            if isinstance(e.payload, TaskStatusUpdateEvent)
        ]
        assert states.count("canceled") == 1
        assert record.task.artifacts is not None
        assert [p.text for p in record.task.artifacts[0].parts] == ["before cancel"]  # type: ignore[union-attr]
