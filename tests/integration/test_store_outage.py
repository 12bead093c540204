"""Faults in the core, in-process: a store that cannot be reached, a worker that dies mid-turn,
a turn whose workers keep dying. (The same faults with real processes, signals and emulators:
tests/aws/runtime/test_faults.py.)

- A store raising `StoreUnavailable` is answered HTTP 503 with `Retry-After` over REST and
  -32603 with `data` (and the header) over JSON-RPC, before and during a stream, with a
  warning in the log and no error or traceback.
- A worker whose store fails mid-turn fails the job (the queue delivers it again), not the task.
- A worker that dies mid-turn (here: a BaseException, which nothing in the worker catches)
  leaves its claim and its events; the delivery that takes over runs the turn again, its events
  follow, and its artifacts replace the dead run's instead of sitting beside them.
- A turn started `worker_max_attempts` times fails with a reason instead of running again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from a2a_serverless import Context, agent, progress
from a2a_serverless.journal import Change, now_ms
from a2a_serverless.models import TaskArtifactUpdateEvent
from a2a_serverless.store.base import Store, StoreUnavailable, WorkerClaim
from a2a_serverless.store.memory import MemoryStore
from a2a_serverless.v03.jsonrpc_convert import task_out
from tests.integration.agent_fixtures import (
    FAST,
    Gates,
    RecordingQueue,
    check_log,
    events_of,
    parse_sse,
    rpc_raw,
    send,
    send_params,
    status_text,
    stored,
)


class Switchable:
    """A store that can be taken down: every call raises StoreUnavailable while `down`."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.down = False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        if not callable(attribute) or name in ("close",):
            return attribute

        async def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                raise StoreUnavailable("the table cannot be reached (simulated)")
            return await attribute(*args, **kwargs)

        return call


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return f"echo: {text}"


def no_errors_logged(records: Sequence[logging.LogRecord]) -> None:
    bad = [r for r in records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [r.getMessage() for r in bad]


OUTAGE_DATA = {"reason": "store-unavailable", "retryAfterSeconds": 5}


async def test_rest_answers_503_with_retry_after_while_the_store_is_down(
    make_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store = Switchable(MemoryStore())
    async with make_client(echo, store=store, **FAST) as (client, _app):
        task = await send(client, "first")
        store.down = True
        caplog.set_level(logging.INFO)
        body = {
            "message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "hi"}]},
            "configuration": {"blocking": False},
        }
        for response in (
            await client.post("/v1/message:send", json=body),
            await client.get(f"/v1/tasks/{task['id']}"),
            await client.get("/v1/tasks"),
        ):
            assert response.status_code == 503, response.text
            assert response.headers["retry-after"] == "5"
            error = response.json()["error"]
            assert error["code"] == -32603
            assert error["status"] == "Service Unavailable"
            assert "store is unavailable" in error["message"]
            assert error["data"] == OUTAGE_DATA
        no_errors_logged(caplog.records)
        assert any("unavailable" in r.getMessage() for r in caplog.records)

        store.down = False
        response = await client.post("/v1/message:send", json=body)
        assert response.status_code == 200


async def test_jsonrpc_answers_an_error_with_data_while_the_store_is_down(
    make_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store = Switchable(MemoryStore())
    async with make_client(echo, store=store, **FAST) as (client, _app):
        task = await send(client, "first")
        store.down = True
        caplog.set_level(logging.INFO)
        params = send_params("again", message_id="m-2")
        for method, call_params in (
            ("message/send", params),
            ("tasks/get", {"id": task["id"]}),
            ("tasks/cancel", {"id": task["id"]}),
        ):
            response = await rpc_raw(client, method, call_params, request_id=9)
            assert response.status_code == 200
            assert response.headers["retry-after"] == "5"
            data = response.json()
            assert data["id"] == 9
            assert data["error"]["code"] == -32603
            assert "store is unavailable" in data["error"]["message"]
            assert data["error"]["data"] == OUTAGE_DATA
        # A streaming method refused before its stream begins: its one SSE event is the error.
        body = {"jsonrpc": "2.0", "id": 3, "method": "tasks/resubscribe", "params": {"id": "x"}}
        response = await client.post("/", json=body)
        assert response.headers["content-type"].startswith("text/event-stream")
        ((_, event),) = parse_sse(response.text)
        assert event["error"]["data"] == OUTAGE_DATA
        no_errors_logged(caplog.records)

        # The same message sent again once the store is back: accepted, once.
        store.down = False
        first = await rpc_raw(client, "message/send", params, request_id=1)
        second = await rpc_raw(client, "message/send", params, request_id=2)
        assert first.json()["result"]["id"] == second.json()["result"]["id"]


async def test_a_stream_whose_store_goes_down_ends_with_the_outage_error(
    make_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    gates = Gates()

    @agent(name="Slow", description="Waits to be let go.")
    async def slow(ctx: Context) -> AsyncIterator[Any]:
        yield progress("started")
        await gates.arrive_and_wait(ctx.task_id)
        yield "done"

    store = Switchable(MemoryStore())
    async with make_client(slow, store=store, **FAST) as (client, _app):
        task = await send(client, "go", blocking=False)
        await gates.wait_arrived(task["id"])
        caplog.set_level(logging.INFO)
        body = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tasks/resubscribe",
            "params": {"id": task["id"]},
        }

        async def take_down() -> None:
            await asyncio.sleep(0.3)
            store.down = True

        # (The in-process transport hands the body over once the stream has ended.)
        outage = asyncio.create_task(take_down())
        response = await asyncio.wait_for(client.post("/", json=body), 10)
        await outage
        events = parse_sse(response.text)
        assert "result" in events[0][1]
        assert events[-1][1]["error"]["data"] == OUTAGE_DATA
        no_errors_logged(caplog.records)
        store.down = False
        gates.release(task["id"])


async def test_a_store_outage_mid_turn_fails_the_job_not_the_task(make_client: Any) -> None:
    gates = Gates()
    runs: list[str] = []

    @agent(name="Writer", description="Writes progress, then answers.")
    async def writer(ctx: Context) -> AsyncIterator[Any]:
        runs.append(ctx.task_id)
        yield progress("step 1")
        if len(runs) == 1:
            await gates.arrive_and_wait(ctx.task_id)
        yield progress("step 2")
        yield "answer"

    store = Switchable(MemoryStore())
    queue = RecordingQueue()
    options = {**FAST, "worker_lease_s": 0.2}
    async with make_client(writer, store=store, queue=queue, **options) as (client, app):
        task = await send(client, "go", blocking=False)
        (job,) = queue.jobs_for(task["id"])
        running = asyncio.create_task(app.runtime.worker.handle(job))
        await gates.wait_arrived(task["id"])
        store.down = True
        gates.release(task["id"])
        with pytest.raises(StoreUnavailable):
            await asyncio.wait_for(running, 5)
        store.down = False
        record = await stored(app, task["id"])
        assert record.state == "working"
        assert record.claim is not None

        # The queue delivers the job again; once the lease is over the turn runs again.
        await asyncio.sleep(0.3)
        await app.runtime.worker.handle(job)
        record = await stored(app, task["id"])
        assert record.state == "completed"
        assert len(runs) == 2
        check_log(record, await events_of(app, task["id"]))


class WorkerDied(BaseException):
    """Stands for the process dying: nothing in the worker catches a BaseException."""


async def test_a_turn_taken_over_after_its_worker_died_keeps_the_log_and_replaces_artifacts(
    make_client: Any,
) -> None:
    runs: list[str] = []

    @agent(name="Streamer", description="Streams an answer in three chunks.")
    async def streamer(ctx: Context) -> AsyncIterator[Any]:
        runs.append(ctx.task_id)
        yield progress("working on it")
        for index in range(3):
            yield f"chunk {index} "
            if index == 0 and len(runs) == 1:
                raise WorkerDied

    queue = RecordingQueue()
    options = {**FAST, "worker_lease_s": 0.2}
    async with make_client(streamer, queue=queue, **options) as (client, app):
        task = await send(client, "go", blocking=False)
        (job,) = queue.jobs_for(task["id"])
        with pytest.raises(WorkerDied):
            await app.runtime.worker.handle(job)
        dead = await events_of(app, task["id"])
        partial = [e for e in dead if isinstance(e.payload, TaskArtifactUpdateEvent)]
        assert len(partial) == 1 and partial[0].payload.last_chunk is False

        await asyncio.sleep(0.3)  # the dead worker's lease runs out
        await app.runtime.worker.handle(job)

        record = await stored(app, task["id"])
        events = await events_of(app, task["id"])
        check_log(record, events)
        assert record.state == "completed"
        assert len(runs) == 2
        # The log is append-only: the dead run's events are still its first ones.
        assert events[: len(dead)] == dead
        # The new run's first chunk has the dead run's artifact id and replaces it.
        again = [
            e.payload for e in events[len(dead) :] if isinstance(e.payload, TaskArtifactUpdateEvent)
        ]
        assert again[0].artifact.artifact_id == partial[0].payload.artifact.artifact_id
        assert not again[0].append
        artifacts = record.task.artifacts or []
        assert len(artifacts) == 1
        assert "".join(p.text for p in artifacts[0].parts) == "chunk 0 chunk 1 chunk 2 "  # type: ignore[union-attr]


async def test_a_turn_started_max_attempts_times_fails_with_a_reason(make_client: Any) -> None:
    runs: list[str] = []

    @agent(name="Counted", description="Counts its runs.")
    def counted(text: str) -> str:
        runs.append(text)
        return "ran"

    queue = RecordingQueue()
    options = {**FAST, "worker_max_attempts": 2}
    async with make_client(counted, queue=queue, **options) as (client, app):
        task = await send(client, "go", blocking=False)
        (job,) = queue.jobs_for(task["id"])
        step = job.payload.turn
        # The turn's second worker died too: its lease ran out a moment ago.
        claim = WorkerClaim(step, "dead-worker", now_ms() - 10, attempt=2)
        await app.runtime.journal.write(task["id"], lambda r: Change(claim=claim))

        await app.runtime.worker.handle(job)
        record = await stored(app, task["id"])
        assert record.state == "failed"
        assert record.claim is None
        assert runs == []
        assert "its worker stopped 2 times" in status_text(task_out(record.task))
        check_log(record, await events_of(app, task["id"]))
        # A later delivery of the same job changes nothing.
        await app.runtime.worker.handle(job)
        assert (await stored(app, task["id"])).version == record.version
