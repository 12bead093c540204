"""A Queue whose worker is the current process: the embedded default for `dev` and tests.

Jobs run as asyncio tasks in the running event loop, at most `concurrency` at once, and apart
from them at most `concurrency` webhook deliveries (a slow receiver holds a delivery for up to
A2A_PUSH_TIMEOUT_S; it must never keep a task's turn waiting for a slot). A first delivery due
now starts eagerly (eager.py, Python 3.12): it may run to its end within `enqueue`, so a reader
of the task subscribes to the bus before queueing its turn. What comes of each
delivery is the core's queue-delivery policy (queue/disposition.py), mapped here: a handler that
raises `RetryJob` is run again after its delay, as often as it asks (not counted as a failure:
the handler owns that policy, e.g. webhook back-off with its own attempt limit); any other
exception is retried with exponential back-off up to `max_attempts` failed deliveries in a row,
then the job is abandoned — the job router's `abandon` ends what it was for (a task fails with a
reason instead of waiting forever) — and dead-lettered (kept in `dead_letters` and logged);
`StoreUnavailable` is retried with back-off (capped at 30 s) while it lasts, never abandoned.
Nothing survives a restart of the process: `SqliteQueue` (queue/sqlite.py) keeps the jobs in the
store's SQLite file, and a cloud queue keeps them in the cloud.
"""

from __future__ import annotations

import asyncio
import logging

import msgspec

from .. import tracing
from ..eager import start_task
from .base import WEBHOOK_JOB, Job, JobConsumer, JobHandler
from .disposition import (
    Abandon,
    Done,
    RetryAfter,
    RetryPolicy,
    deliver,
    error_text,
)
from .router import AbandonHandler

log = logging.getLogger("a2a_serverless.queue")


class DeadLetteredJob(msgspec.Struct, frozen=True):
    job: Job
    # What failed (the exception's type and text), for the operator.
    reason: str


class InProcessQueue:
    # What the messaging conventions call the queue system and the destination (tracing.py).
    messaging_system = "a2a_inprocess"
    destination = "jobs"
    supports_delay = True
    # Every job runs in this process, which queued it (queue.base.RunsJobsWhereQueued).
    runs_jobs_where_queued = True

    def __init__(
        self,
        handler: JobConsumer | JobHandler | None = None,
        *,
        concurrency: int = 32,
        max_attempts: int = 5,
        base_backoff_s: float = 0.2,
    ) -> None:
        """`handler` runs the jobs: a Runtime's job router (`runtime.jobs`), whose `abandon`
        ends a job given up on, or a bare job handler (then such a job is only dead-lettered).
        Without one, the Runtime the queue is given to runs them (`start`)."""
        self._handler: JobHandler | None = None
        self._abandon: AbandonHandler | None = None
        if handler is not None:
            self.bind(handler)
        self._slots = asyncio.Semaphore(concurrency)
        self._webhook_slots = asyncio.Semaphore(concurrency)
        self._max_attempts = max_attempts
        self._policy = RetryPolicy(base_backoff_s=base_backoff_s)
        # Failed deliveries in a row of each job now retrying (planned retries do not count).
        self._failures: dict[str, int] = {}
        self._running: set[asyncio.Task[None]] = set()
        self.dead_letters: list[DeadLetteredJob] = []

    @property
    def bound(self) -> bool:
        """Whether something runs the jobs yet."""
        return self._handler is not None

    def start(self, jobs: JobConsumer) -> None:
        """Run the jobs with `jobs` (the Runtime's job router), unless the queue was made with
        its own handler, which it keeps. Idempotent (the Queue protocol)."""
        if self._handler is None:
            self.bind(jobs)

    def bind(self, handler: JobConsumer | JobHandler) -> None:
        """Set what runs the jobs, replacing what did (tests that count or reroute jobs; a
        Runtime starts its queue with `start`)."""
        if callable(handler):  # a bare job handler
            self._handler, self._abandon = handler, None
        else:
            self._handler, self._abandon = handler.handle, handler.abandon

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        if self._handler is None:
            raise RuntimeError("InProcessQueue has no handler bound")
        with tracing.producing(job, self.messaging_system, self.destination) as job:
            self._record(job, delay_s)
        # Started once the send's span has ended: a job started eagerly may run to its end here.
        self._start(job, delay_s, eager=delay_s <= 0 and job.attempt == 1)

    # `_record` and `_finished` are plain methods (a durable queue's writes are synchronous):
    # no coroutine is made for them on every job.
    def _record(self, job: Job, delay_s: float) -> None:
        """Keep `job` before it is started (a durable queue writes it down here)."""

    def _start(self, job: Job, delay_s: float, *, eager: bool = False) -> None:
        """Run `job` in a task of its own. `eager` (a first delivery due now, on Python 3.12+):
        the task starts at once, within the caller's step of the event loop, up to its first
        real wait — a blocking send's turn then ends without the loop turning twice more for
        it. A retry is never started eagerly, so a job that asks again and again at once
        cannot run within its own delivery."""
        run = self._run(job, delay_s)
        task = start_task(run) if eager else asyncio.get_running_loop().create_task(run)
        if task.done():
            # Over within its eager start: nothing to hold, and no callback left for the loop.
            return
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run(self, job: Job, delay_s: float) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        assert self._handler is not None
        failures = self._failures.get(job.id, 0)
        slots = self._webhook_slots if job.kind == WEBHOOK_JOB else self._slots
        # acquire/release, not `async with`: its __aenter__ and __aexit__ are two coroutines
        # more a job (acquire returns at once while a slot is free).
        await slots.acquire()
        try:
            consuming = tracing.consuming(
                job,
                self.messaging_system,
                self.destination,
                message_id=job.id,
                delivery_attempt=job.attempt,
            )
            with consuming:
                disposition = await deliver(
                    self._handler,
                    job,
                    delivery=failures + 1,
                    last_attempt=failures + 1 >= self._max_attempts,
                    policy=self._policy,
                )
                # A retry is queued from the delivery that asked for it (its span's child).
                match disposition:
                    case Done():
                        self._finished(job)
                    case RetryAfter():
                        if not disposition.planned:
                            self._failures[job.id] = failures + 1
                        await self.enqueue(job.next_attempt(), delay_s=disposition.delay_s)
                    case Abandon():
                        await self._give_up(job, disposition)
        finally:
            slots.release()

    async def _give_up(self, job: Job, abandoned: Abandon) -> None:
        error = error_text(abandoned.error)
        log.error("job %s (%s) dead-lettered: %s", job.id, job.kind, error)
        self.dead_letters.append(DeadLetteredJob(job, error))
        if self._abandon is not None:
            try:
                await self._abandon(job, abandoned.reason)
            except Exception:
                # Kept in `dead_letters` all the same; the operator redrives it from there.
                log.exception("could not abandon job %s of task %s", job.id, job.task_id)
        self._finished(job)

    def _finished(self, job: Job) -> None:
        """`job` is done (handled, or dead-lettered): a durable queue forgets it here."""
        self._failures.pop(job.id, None)

    async def drain(self) -> None:
        """Wait until no job is queued or running (tests use this)."""
        while True:
            # A finished task leaves `_running` by its done-callback, which runs only when the
            # loop next turns; awaiting finished tasks need not turn it (Python 3.12's gather of
            # finished tasks returns at once), so waiting on them could spin forever. Wait on
            # the unfinished ones only, and let go of the finished here.
            finished = {task for task in self._running if task.done()}
            self._running.difference_update(finished)
            for task in finished:
                if not task.cancelled():
                    task.exception()  # retrieved, as gather(return_exceptions=True) would
            if not self._running:
                return
            await asyncio.gather(*list(self._running), return_exceptions=True)

    async def aclose(self) -> None:
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*list(self._running), return_exceptions=True)
        self._running.clear()
