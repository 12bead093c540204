"""The queue-delivery policy (queue/disposition.py) and the in-process queue's mapping of it,
with real handlers: what one delivery of a job comes to, and what the queue does then."""

from __future__ import annotations

import asyncio
import json
import signal
import sys

import msgspec
import pytest

from a2a_serverless.queue import (
    InProcessQueue,
    Job,
    JobRoute,
    JobRouter,
    OtherJob,
    RetryJob,
    RunAgentJob,
    RunTurn,
)
from a2a_serverless.queue.disposition import (
    Abandon,
    Done,
    RetryAfter,
    RetryPolicy,
    abandon_reason,
    deliver,
)
from a2a_serverless.store.base import StoreUnavailable

JOB = OtherJob(kind="k", task_id="t1", id="j1")


async def fine(job: Job) -> None:
    return None


async def retry_later(job: Job) -> None:
    raise RetryJob("waiting for a lease", delay_s=7.5)


async def store_down(job: Job) -> None:
    raise StoreUnavailable("the table is throttled")


async def broken(job: Job) -> None:
    raise RuntimeError("secret detail: /srv/app/agent.py line 12")


async def test_a_handler_that_returns_is_done() -> None:
    assert await deliver(fine, JOB, delivery=1, last_attempt=True) == Done()


async def test_a_retry_the_handler_asks_for_is_planned_even_on_the_last_attempt() -> None:
    disposition = await deliver(retry_later, JOB, delivery=5, last_attempt=True)
    assert disposition == RetryAfter(7.5, "waiting for a lease", planned=True)


async def test_an_unavailable_store_is_retried_never_abandoned() -> None:
    policy = RetryPolicy(base_backoff_s=1.0, max_store_wait_s=30.0)
    first = await deliver(store_down, JOB, delivery=1, last_attempt=False, policy=policy)
    last = await deliver(store_down, JOB, delivery=9, last_attempt=True, policy=policy)
    assert isinstance(first, RetryAfter) and isinstance(last, RetryAfter)
    assert not first.planned and not last.planned
    assert (first.delay_s, last.delay_s) == (1.0, 30.0)
    assert isinstance(last.error, StoreUnavailable)


async def test_a_failure_is_retried_with_back_off_then_abandoned_without_its_text() -> None:
    policy = RetryPolicy(base_backoff_s=0.5)
    second = await deliver(broken, JOB, delivery=2, last_attempt=False, policy=policy)
    assert isinstance(second, RetryAfter) and not second.planned
    assert second.delay_s == 1.0
    assert second.reason == "RuntimeError: secret detail: /srv/app/agent.py line 12"

    last = await deliver(broken, JOB, delivery=3, last_attempt=True, policy=policy)
    assert isinstance(last, Abandon)
    assert last.reason == (
        "its job failed on 3 deliveries in a row and was moved to the dead-letter queue"
    )
    assert "secret" not in last.reason and isinstance(last.error, RuntimeError)
    assert abandon_reason(None, "was given up") == "its job failed repeatedly and was given up"


# --- the in-process queue ---------------------------------------------------------------------


class Script:
    """A job route whose handler raises what it is told, in order, then returns; it records
    every call and every abandonment."""

    def __init__(self, *outcomes: BaseException) -> None:
        self.outcomes = list(outcomes)
        self.calls = 0
        self.abandoned: list[tuple[Job, str]] = []

    async def handle(self, job: Job) -> None:
        self.calls += 1
        if self.outcomes:
            raise self.outcomes.pop(0)

    async def abandon(self, job: Job, reason: str) -> None:
        self.abandoned.append((job, reason))

    def router(self) -> JobRouter:
        return JobRouter({"k": JobRoute(self.handle, self.abandon)})


async def run_one(script: Script, *, max_attempts: int = 3) -> InProcessQueue:
    queue = InProcessQueue(script.router(), max_attempts=max_attempts, base_backoff_s=0.001)
    await queue.enqueue(JOB)
    await asyncio.wait_for(queue.drain(), 5)
    return queue


async def test_the_queue_abandons_a_job_after_its_last_failed_delivery() -> None:
    script = Script(*(RuntimeError(f"boom {i}") for i in range(10)))
    queue = await run_one(script)
    assert script.calls == 3
    [(job, reason)] = script.abandoned
    assert job.id == JOB.id
    assert reason == (
        "its job failed on 3 deliveries in a row and was moved to the dead-letter queue"
    )
    [letter] = queue.dead_letters
    assert letter.job.id == JOB.id and letter.reason == "RuntimeError: boom 2"


async def test_planned_retries_do_not_count_towards_the_attempt_limit() -> None:
    asks = [RetryJob("later", delay_s=0.0) for _ in range(5)]
    script = Script(*asks, RuntimeError("one"), RuntimeError("two"))
    queue = await run_one(script)
    # Five planned retries, two failures (under the limit of 3), then done.
    assert script.calls == 8
    assert script.abandoned == [] and queue.dead_letters == []


async def test_an_unavailable_store_never_dead_letters_a_job() -> None:
    script = Script(*(StoreUnavailable("locked") for _ in range(6)))
    queue = await run_one(script)
    assert script.calls == 7
    assert script.abandoned == [] and queue.dead_letters == []


async def test_a_failed_abandonment_still_keeps_the_dead_letter(
    caplog: pytest.LogCaptureFixture,
) -> None:
    script = Script(RuntimeError("boom"))

    async def cannot(job: Job, reason: str) -> None:
        raise StoreUnavailable("down")

    queue = InProcessQueue(
        JobRouter({"k": JobRoute(script.handle, cannot)}), max_attempts=1, base_backoff_s=0.001
    )
    await queue.enqueue(JOB)
    await asyncio.wait_for(queue.drain(), 5)
    assert [letter.job.id for letter in queue.dead_letters] == [JOB.id]
    assert "could not abandon job j1" in caplog.text


async def test_an_unknown_kind_fails_and_is_abandoned_by_the_router(
    caplog: pytest.LogCaptureFixture,
) -> None:
    queue = InProcessQueue(Script().router(), max_attempts=2, base_backoff_s=0.001)
    await queue.enqueue(OtherJob(kind="mystery", task_id="t"))
    await asyncio.wait_for(queue.drain(), 5)
    [letter] = queue.dead_letters
    assert letter.reason == "ValueError: unknown job kind 'mystery'"
    assert "abandoned job" in caplog.text


async def test_a_runtime_runs_the_jobs_of_an_in_process_queue_it_is_given_unbound() -> None:
    from a2a_serverless import Settings, agent
    from a2a_serverless.asgi import A2AApplication
    from a2a_serverless.http import Request
    from a2a_serverless.runtime import Runtime
    from tests.support.operator_cli import rpc, user_message

    @agent(name="Echo", description="Says it back.")
    async def echo(text: str) -> str:
        return text

    given = InProcessQueue()
    runtime = Runtime(echo, Settings(dev_mode=True, store_url="memory://"), queue=given)
    assert given.bound
    # A blocking send completes: the turn ran on the given queue.
    body = json.dumps(rpc("message/send", {"message": user_message("hi")})).encode()
    request = Request(
        {"method": "POST", "path": "/", "headers": [(b"content-type", b"application/json")]},
        body=body,
    )
    response = await A2AApplication(runtime).respond(request)
    assert json.loads(response.body)["result"]["status"]["state"] == "completed"
    ran: list[Job] = []

    async def elsewhere(job: Job) -> None:
        ran.append(job)

    # One already bound stays bound to what its owner chose.
    owned = InProcessQueue()
    owned.bind(elsewhere)
    Runtime(echo, Settings(dev_mode=True, store_url="memory://"), queue=owned)
    job = RunAgentJob(task_id="t1", payload=RunTurn("m1"))
    await owned.enqueue(job)
    await owned.drain()
    assert ran == [job]
    await runtime.aclose()


async def test_drain_returns_when_a_finished_job_still_waits_for_its_done_callback() -> None:
    """A job's task leaves the queue's running set by a done-callback that runs one loop turn
    after it finishes. Awaiting a finished task need not turn the loop (Python 3.12's gather
    returns at once), so a drain that awaited its set until empty spun forever at 100% CPU
    (and no `wait_for` can fire in a loop that never turns): an alarm signal stops it here."""
    queue = InProcessQueue(Script().router())
    # A redelivery is never started eagerly (a first one due now is, on 3.12, and if it ends
    # there it is never held). This turn yields once: the job runs to its end in the next loop
    # turn, queued before this coroutine's wake-up, and its done-callback is queued after it.
    await queue.enqueue(msgspec.structs.replace(JOB, attempt=2))
    await asyncio.sleep(0)
    [task] = queue._running
    assert task.done(), "the job should have finished in one loop turn"

    def stuck(signum: int, frame: object) -> None:
        raise TimeoutError("drain() did not return for a finished job")

    previous = signal.signal(signal.SIGALRM, stuck)
    signal.setitimer(signal.ITIMER_REAL, 5)
    try:
        await queue.drain()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not queue._running


@pytest.mark.skipif(sys.version_info < (3, 12), reason="eager tasks are Python 3.12's")
async def test_a_first_delivery_due_now_runs_within_enqueue() -> None:
    """A job due now starts eagerly: a handler that never waits has run by the time `enqueue`
    returns (a blocking send's turn needs no loop turns of its own). A delayed job and a retry
    wait for the loop, as a retry asking again at once must not run within its own delivery."""
    seen: list[tuple[str, int]] = []

    async def record(job: Job) -> None:
        seen.append((job.id, job.attempt))

    queue = InProcessQueue(record)
    await queue.enqueue(JOB)
    assert seen == [("j1", 1)]
    await queue.enqueue(OtherJob(kind="k", task_id="t2", id="j2"), delay_s=0.001)
    await queue.enqueue(OtherJob(kind="k", task_id="t3", id="j3").next_attempt())
    assert seen == [("j1", 1)]
    await queue.drain()
    assert sorted(seen) == [("j1", 1), ("j2", 1), ("j3", 2)]


async def test_a_job_asking_again_at_once_is_retried_after_its_delivery_ends() -> None:
    """A planned retry with no delay: each delivery ends before the next starts (one at a time,
    never nested within the last), and the queue drains once the handler is satisfied."""
    depth = 0
    deliveries: list[int] = []

    async def again(job: Job) -> None:
        nonlocal depth
        depth += 1
        try:
            deliveries.append(depth)
            if job.attempt < 4:
                raise RetryJob("not yet")
        finally:
            depth -= 1

    queue = InProcessQueue(again, concurrency=1)
    await queue.enqueue(JOB)
    await queue.drain()
    assert deliveries == [1, 1, 1, 1]
