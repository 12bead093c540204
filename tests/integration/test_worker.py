"""The worker under at-least-once delivery: each turn runs once however often its `run-agent`
job arrives, jobs for old steps or ended tasks are dropped, and a dead worker's turn is taken
over once its lease runs out.

Most tests use a queue that only records jobs (`RecordingQueue`) and deliver them by hand with
`app.runtime.worker.handle(job)`, so the test decides when and how often a job arrives.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from a2a_serverless import Agent, Context, InputRequired, TaskEnded, TaskUpdater, agent, progress
from a2a_serverless.journal import Change, now_ms
from a2a_serverless.models import TaskState
from a2a_serverless.queue.base import (
    RUN_AGENT,
    OtherJob,
    RetryJob,
    RunAgentJob,
    RunTurn,
    decode_job,
    encode_job,
)
from a2a_serverless.store.base import WorkerClaim
from a2a_serverless.store.memory import MemoryStore
from tests.integration.agent_fixtures import (
    FAST,
    Gates,
    RecordingQueue,
    cancel,
    check_log,
    events_of,
    get_task,
    result_of,
    send,
    stored,
    wait_for_state,
)


class Counted:
    """An agent that counts its runs and can be held at a gate (keyed by task id)."""

    def __init__(self, *, gated: bool = False, ask_first: bool = False) -> None:
        self.runs: list[tuple[str, str]] = []
        self.contexts: list[Context] = []
        self.gates = Gates()
        self.gated = gated
        self.ask_first = ask_first

        @agent(name="Counted", description="Counts its runs.")
        async def counted(ctx: Context) -> str:
            self.runs.append((ctx.task_id, ctx.message.message_id))
            self.contexts.append(ctx)
            if self.gated:
                await self.gates.arrive_and_wait(ctx.task_id)
            if self.ask_first and not ctx.is_continuation:
                raise InputRequired("and then?")
            return f"run {len(self.runs)}"

        self.agent = counted


async def submit(client: Any, queue: RecordingQueue, text: str = "go", **message: Any) -> Any:
    """message/send, non-blocking; returns (task, the job the service enqueued for it)."""
    task = await send(client, text, blocking=False, **message)
    jobs = queue.jobs_for(task["id"])
    assert jobs, "the service enqueued no job"
    return task, jobs[-1]


# --- duplicate delivery ---------------------------------------------------------------------------


async def test_job_delivered_twice_in_a_row_runs_the_agent_once(make_client: Any) -> None:
    counted = Counted()
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        assert task["status"]["state"] == "submitted"
        assert job.kind == RUN_AGENT
        assert job.payload == RunTurn(task["history"][0]["messageId"])
        worker = app.runtime.worker

        await worker.handle(job)
        after_first = await stored(app, task["id"])
        events_first = await events_of(app, task["id"])
        assert after_first.state == "completed"

        await worker.handle(job)
        # A redelivery as a cloud queue would make it: parsed from its JSON, attempt 2.
        await worker.handle(decode_job(encode_job(job)).next_attempt())

        assert len(counted.runs) == 1
        record = await stored(app, task["id"])
        assert record == after_first
        events = await events_of(app, task["id"])
        assert events == events_first
        check_log(record, events)
        assert [a.artifact_id for a in record.task.artifacts or []] == [
            a.artifact_id for a in after_first.task.artifacts or []
        ]


async def test_job_delivered_twice_at_once_runs_the_agent_once(make_client: Any) -> None:
    counted = Counted()
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        worker = app.runtime.worker
        results = await asyncio.gather(
            worker.handle(job), worker.handle(job), worker.handle(job), return_exceptions=True
        )
        # Each delivery either ran the turn, found it done, or was told to come back later.
        assert all(r is None or isinstance(r, RetryJob) for r in results), results
        assert len(counted.runs) == 1
        record = await stored(app, task["id"])
        assert record.state == "completed"
        check_log(record, await events_of(app, task["id"]))


async def test_second_delivery_while_the_turn_runs_is_retried_later(make_client: Any) -> None:
    counted = Counted(gated=True)
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        worker = app.runtime.worker
        first = asyncio.create_task(worker.handle(job))
        await counted.gates.wait_arrived(task["id"])

        with pytest.raises(RetryJob) as retry:
            await worker.handle(job)
        # Come back when the running worker's lease would run out.
        lease_s = app.runtime.settings.worker_lease_s
        assert 0 < retry.value.delay_s <= lease_s

        counted.gates.release(task["id"])
        await asyncio.wait_for(first, 5)
        # The retry, when it comes, finds the turn done and drops the job.
        await worker.handle(job.next_attempt())
        assert len(counted.runs) == 1
        record = await stored(app, task["id"])
        assert record.state == "completed"
        check_log(record, await events_of(app, task["id"]))


async def test_duplicate_through_the_in_process_queue(make_client: Any) -> None:
    """End to end with the real queue: the duplicate is retried after the lease and dropped."""
    counted = Counted(gated=True)
    async with make_client(counted.agent, worker_lease_s=0.2, **FAST) as (client, app):
        task = await send(client, blocking=False)
        await counted.gates.wait_arrived(task["id"])
        step = task["history"][0]["messageId"]
        await app.runtime.queue.enqueue(RunAgentJob(task_id=task["id"], payload=RunTurn(step)))
        await asyncio.sleep(0.05)
        counted.gates.release(task["id"])
        await asyncio.wait_for(app.runtime.queue.drain(), 5)
        assert len(counted.runs) == 1
        assert app.runtime.queue.dead_letters == []
        record = await stored(app, task["id"])
        assert record.state == "completed"
        check_log(record, await events_of(app, task["id"]))


class AsksThenAnswers:
    """An executor without a cancel hook (so its turn is not watched): it never waits, and on
    the in-process queue its turn runs to its end within `enqueue` (Python 3.12)."""

    def __init__(self) -> None:
        self.runs = 0

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        self.runs += 1
        if context.is_continuation:
            await updater.complete("done")
        else:
            await updater.requires_input("and then?")


async def test_a_blocking_send_sees_a_turn_that_ends_within_enqueue(make_client: Any) -> None:
    """A turn that ends within `enqueue` wrote before the send could wait: the send subscribes
    first, so it is woken by the turn's writes rather than by its next poll, 30 s away — for a
    new task and for a continuation alike."""
    executor = AsksThenAnswers()
    asks = Agent(name="Asks", description="Asks, then answers.", executor=executor)
    slow_polls = {"blocking_timeout_s": 60.0, "poll_interval_s": 30.0}
    async with make_client(asks, **slow_polls) as (client, _app):
        asked = await asyncio.wait_for(send(client), 10)
        assert asked["status"]["state"] == "input-required"
        answered = await asyncio.wait_for(
            send(client, "more", task_id=asked["id"], context_id=asked["contextId"]), 10
        )
        assert answered["status"]["state"] == "completed"
        assert executor.runs == 2


# --- jobs that are no longer wanted ------------------------------------------------------------


async def test_job_for_an_old_step_is_dropped(make_client: Any) -> None:
    counted = Counted(ask_first=True)
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, first_job = await submit(client, queue, "book")
        worker = app.runtime.worker
        await worker.handle(first_job)
        assert (await stored(app, task["id"])).state == "input-required"

        _, second_job = await submit(client, queue, "Oslo", task_id=task["id"])
        assert second_job.payload.turn != first_job.payload.turn
        continued = await stored(app, task["id"])
        assert continued.state == "submitted"

        # The first turn's job arrives again after the task went on: dropped, nothing changes.
        await worker.handle(first_job)
        assert len(counted.runs) == 1
        assert await stored(app, task["id"]) == continued

        await worker.handle(second_job)
        assert len(counted.runs) == 2
        assert counted.runs[1][1] == second_job.payload.turn
        done = await stored(app, task["id"])
        assert done.state == "completed"

        for job in (first_job, second_job):
            await worker.handle(job)
        assert len(counted.runs) == 2
        assert await stored(app, task["id"]) == done
        check_log(done, await events_of(app, task["id"]))


async def test_job_for_a_canceled_task_is_dropped(make_client: Any) -> None:
    counted = Counted()
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        canceled = result_of(await cancel(client, task["id"]))
        assert canceled["status"]["state"] == "canceled"
        before = await stored(app, task["id"])
        events = await events_of(app, task["id"])

        await app.runtime.worker.handle(job)
        assert counted.runs == []
        assert await stored(app, task["id"]) == before
        assert await events_of(app, task["id"]) == events
        check_log(before, events)


async def test_job_for_a_missing_task_is_dropped(make_client: Any) -> None:
    counted = Counted()
    async with make_client(counted.agent, queue=RecordingQueue(), **FAST) as (_, app):
        job = RunAgentJob(task_id="no-such-task", payload=RunTurn("m1"))
        await app.runtime.worker.handle(job)
        assert counted.runs == []


async def test_unknown_job_kind(make_client: Any) -> None:
    counted = Counted()
    async with make_client(counted.agent, queue=RecordingQueue(), **FAST) as (_, app):
        with pytest.raises(ValueError, match="unknown job kind"):
            await app.runtime.jobs.handle(OtherJob(kind="mystery", task_id="t"))


# --- leases ---------------------------------------------------------------------------------


async def put_claim(app: Any, task_id: str, claim: WorkerClaim) -> None:
    await app.runtime.journal.write(task_id, lambda r: Change(claim=claim))


class SlowAcks(MemoryStore):
    """A store whose writes are acknowledged a while after they are made, as across a
    network: others can read a write before its writer hears it succeeded."""

    async def update_task(self, *args: Any, **kwargs: Any) -> None:
        await super().update_task(*args, **kwargs)
        await asyncio.sleep(0.05)


async def test_a_duplicate_delivery_to_the_same_worker_never_runs_the_turn_twice(
    make_client: Any,
) -> None:
    # The second delivery reads the first one's claim before the first hears its write
    # succeeded: that claim is the worker's own, yet it is no leftover of a stopped run. It
    # waits for the first and is then answered, the turn done.
    counted = Counted(gated=True)
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, store=SlowAcks(), **FAST) as (client, app):
        task, job = await submit(client, queue)
        worker = app.runtime.worker
        first = asyncio.create_task(worker.handle(job))
        await asyncio.sleep(0.02)
        second = asyncio.create_task(worker.handle(job))
        await counted.gates.wait_arrived(task["id"])
        await asyncio.sleep(0.1)
        assert not second.done(), "the duplicate waits for the running delivery"
        counted.gates.release(task["id"])
        await asyncio.wait_for(asyncio.gather(first, second), 5)
        assert len(counted.runs) == 1
        assert (await stored(app, task["id"])).state == "completed"


async def test_a_duplicate_of_a_long_turn_in_the_same_worker_comes_back_later(
    make_client: Any,
) -> None:
    counted = Counted(gated=True)
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        worker = app.runtime.worker
        worker.duplicate_wait_s = 0.1
        first = asyncio.create_task(worker.handle(job))
        await counted.gates.wait_arrived(task["id"])
        with pytest.raises(RetryJob, match="running in this worker"):
            # Bounded: without the guard this delivery runs the turn and waits at its gate.
            await asyncio.wait_for(worker.handle(job), 2)
        counted.gates.release(task["id"])
        await asyncio.wait_for(first, 5)
        assert len(counted.runs) == 1


async def test_expired_lease_is_taken_over(make_client: Any) -> None:
    counted = Counted(gated=True)
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        step = job.payload.turn
        # A worker claimed the turn and died: its lease ran out a second ago.
        dead = WorkerClaim(step, "dead-worker", now_ms() - 1000, attempt=1)
        await put_claim(app, task["id"], dead)
        dead_record = await stored(app, task["id"])

        worker = app.runtime.worker
        running = asyncio.create_task(worker.handle(job))
        await counted.gates.wait_arrived(task["id"])
        claim = (await stored(app, task["id"])).claim
        assert claim is not None
        assert claim.worker_id == worker.worker_id != "dead-worker"
        assert claim.step == step
        assert claim.attempt == 2
        assert claim.lease_until_ms > now_ms()

        # Should the "dead" worker wake up, its writes are refused.
        zombie = TaskUpdater(
            app.runtime.journal, dead_record, worker_id="dead-worker", step=step, lease_s=60
        )
        with pytest.raises(TaskEnded):
            await zombie.add_artifact("from the grave")
        with pytest.raises(TaskEnded):
            await zombie.complete("zombie done")

        counted.gates.release(task["id"])
        await asyncio.wait_for(running, 5)
        assert len(counted.runs) == 1
        record = await stored(app, task["id"])
        assert record.state == "completed"
        assert record.claim is None
        assert "from the grave" not in record.task.model_dump_json().decode()
        check_log(record, await events_of(app, task["id"]))


async def test_takeover_counts_attempts(make_client: Any) -> None:
    counted = Counted(gated=True)
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        step = job.payload.turn
        await put_claim(app, task["id"], WorkerClaim(step, "w-a", now_ms() - 10, attempt=4))
        running = asyncio.create_task(app.runtime.worker.handle(job))
        await counted.gates.wait_arrived(task["id"])
        claim = (await stored(app, task["id"])).claim
        assert claim is not None and claim.attempt == 5
        counted.gates.release(task["id"])
        await asyncio.wait_for(running, 5)


async def test_live_lease_makes_the_delivery_retry(make_client: Any) -> None:
    counted = Counted()
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        step = job.payload.turn
        live = WorkerClaim(step, "busy-worker", now_ms() + 5_000, attempt=1)
        await put_claim(app, task["id"], live)
        before = await stored(app, task["id"])

        with pytest.raises(RetryJob) as retry:
            await app.runtime.worker.handle(job)
        assert 4.0 < retry.value.delay_s <= 5.0
        assert counted.runs == []
        assert await stored(app, task["id"]) == before


async def test_writes_renew_the_lease(make_client: Any) -> None:
    gates = Gates()
    leases: list[int] = []
    store_of: list[Any] = []

    class Slow:
        async def execute(self, context: Context, updater: TaskUpdater) -> None:
            await gates.arrive_and_wait("claimed")
            await asyncio.sleep(0.05)
            await updater.start_work("still here")
            record = await store_of[0].get_task(context.task_id)
            assert record is not None and record.claim is not None
            leases.append(record.claim.lease_until_ms)

    queue = RecordingQueue()
    async with make_client(Agent("Slow", "Slow.", Slow()), queue=queue, **FAST) as (client, app):
        store_of.append(app.runtime.store)
        task, job = await submit(client, queue)
        running = asyncio.create_task(app.runtime.worker.handle(job))
        await gates.wait_arrived("claimed")
        claim = (await stored(app, task["id"])).claim
        assert claim is not None
        gates.release("claimed")
        await asyncio.wait_for(running, 5)
        assert leases and leases[0] > claim.lease_until_ms


async def test_takeover_context_is_not_a_continuation(make_client: Any) -> None:
    """A turn retried after its worker died is still the task's first turn.

    `Context.is_continuation` is documented as "True when this message answers the agent (the
    task was waiting for input)". The dead worker's progress message is in the history, but the
    task never waited for input, so an agent branching on it must not see a continuation.
    """
    counted = Counted()
    queue = RecordingQueue()
    async with make_client(counted.agent, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        step = job.payload.turn
        # The first worker claimed the turn, reported progress, and died.
        claim = WorkerClaim(step, "dead-worker", now_ms() + 60_000, attempt=1)
        await put_claim(app, task["id"], claim)
        record = await stored(app, task["id"])
        first = TaskUpdater(
            app.runtime.journal, record, worker_id="dead-worker", step=step, lease_s=0.001
        )
        await first.start_work("reading the request...")
        await asyncio.sleep(0.01)  # its lease runs out

        await app.runtime.worker.handle(job)
        assert len(counted.runs) == 1
        ctx = counted.contexts[0]
        assert ctx.message.message_id == step
        assert (await get_task(client, task["id"]))["status"]["state"] == "completed"
        assert ctx.is_continuation is False


async def test_failed_turn_is_not_run_again(make_client: Any) -> None:
    runs: list[int] = []

    @agent
    async def broken(text: str) -> str:
        runs.append(1)
        raise RuntimeError("boom")

    queue = RecordingQueue()
    async with make_client(broken, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        await app.runtime.worker.handle(job)
        await app.runtime.worker.handle(job)
        assert runs == [1]
        record = await wait_for_state(app, task["id"], "failed")
        assert record.task.status.state == TaskState.FAILED
        check_log(record, await events_of(app, task["id"]))


async def test_progress_only_agent_through_worker(make_client: Any) -> None:
    @agent
    async def reporter(text: str) -> Any:
        yield progress("one")
        yield progress("two")

    queue = RecordingQueue()
    async with make_client(reporter, queue=queue, **FAST) as (client, app):
        task, job = await submit(client, queue)
        await app.runtime.worker.handle(job)
        record = await stored(app, task["id"])
        assert record.state == "completed"
        assert [m.role for m in record.task.history or []] == ["user", "agent", "agent"]
        check_log(record, await events_of(app, task["id"]))
