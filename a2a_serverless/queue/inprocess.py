"""A Queue whose worker is the current process: the embedded default for `dev` and tests.

Jobs run as asyncio tasks in the running event loop, at most `concurrency` at once, and apart
from them at most `concurrency` webhook deliveries (a slow receiver holds a delivery for up to
A2A_PUSH_TIMEOUT_S; it must never keep a task's turn waiting for a slot). A handler
that raises `RetryJob` is run again after its delay, as often as it asks (the handler owns that
policy, e.g. webhook back-off with its own attempt limit); any other exception is retried with
exponential back-off up to `max_attempts`, then the job is dead-lettered (kept in `dead_letters`
and logged), except `StoreUnavailable`, retried with back-off (capped at 30 s) while it lasts.
Nothing survives a restart of the process: `SqliteQueue` (queue/sqlite.py) keeps the jobs in the
store's SQLite file, and a cloud queue keeps them in the cloud.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace

from .. import tracing
from ..store.base import StoreUnavailable
from .base import WEBHOOK_JOB, Job, JobHandler, RetryJob

log = logging.getLogger("a2a_serverless.queue")

# The longest pause between two tries of a job while the store is unavailable.
MAX_STORE_WAIT_S = 30.0


@dataclass(frozen=True, slots=True)
class DeadLetteredJob:
    job: Job
    reason: str


class InProcessQueue:
    # What the messaging conventions call the queue system and the destination (tracing.py).
    messaging_system = "a2a_inprocess"
    destination = "jobs"

    def __init__(
        self,
        handler: JobHandler | None = None,
        *,
        concurrency: int = 32,
        max_attempts: int = 5,
        base_backoff_s: float = 0.2,
    ) -> None:
        self._handler = handler
        self._slots = asyncio.Semaphore(concurrency)
        self._webhook_slots = asyncio.Semaphore(concurrency)
        self._max_attempts = max_attempts
        self._base_backoff_s = base_backoff_s
        self._running: set[asyncio.Task[None]] = set()
        self.dead_letters: list[DeadLetteredJob] = []

    def bind(self, handler: JobHandler) -> None:
        """Set the worker's job handler (the app wires it once everything is built)."""
        self._handler = handler

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        if self._handler is None:
            raise RuntimeError("InProcessQueue has no handler bound")
        with tracing.producing(job, self.messaging_system, self.destination) as job:
            await self._schedule(job, delay_s)

    async def _schedule(self, job: Job, delay_s: float) -> None:
        task = asyncio.get_running_loop().create_task(self._run(job, delay_s))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run(self, job: Job, delay_s: float) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        assert self._handler is not None
        slots = self._webhook_slots if job.kind == WEBHOOK_JOB else self._slots
        async with slots:
            consuming = tracing.consuming(
                job,
                self.messaging_system,
                self.destination,
                message_id=job.id,
                delivery_attempt=job.attempt,
            )
            with consuming:
                try:
                    await self._handler(job)
                    await self._finished(job)
                    return
                except RetryJob as retry:
                    next_job = replace(job, attempt=job.attempt + 1)
                    await self.enqueue(next_job, delay_s=retry.delay_s)
                    return
                except StoreUnavailable as exc:
                    # The store failed, not the job (a full disk, a locked file): try again for
                    # as long as it lasts, never dead-lettering work that could not be recorded.
                    log.warning("job %s (%s) waits for the store: %s", job.id, job.kind, exc)
                    tracing.failed(f"the store is unavailable: {exc}")
                    delay = min(
                        self._base_backoff_s * 2 ** min(job.attempt - 1, 16), MAX_STORE_WAIT_S
                    )
                    await self.enqueue(replace(job, attempt=job.attempt + 1), delay_s=delay)
                    return
                except Exception as exc:  # a worker must survive any handler failure
                    log.exception("job %s (%s) failed on attempt %d", job.id, job.kind, job.attempt)
                    reason = f"{type(exc).__name__}: {exc}"
                    tracing.failed(reason)
                    delay = self._base_backoff_s * 2 ** (job.attempt - 1)
        if job.attempt >= self._max_attempts:
            log.error("job %s (%s) dead-lettered: %s", job.id, job.kind, reason)
            self.dead_letters.append(DeadLetteredJob(job, reason))
            await self._finished(job)
            return
        await self.enqueue(replace(job, attempt=job.attempt + 1), delay_s=delay)

    async def _finished(self, job: Job) -> None:
        """`job` is done (handled, or dead-lettered): a durable queue forgets it here."""

    async def drain(self) -> None:
        """Wait until no job is queued or running (tests use this)."""
        while self._running:
            await asyncio.gather(*list(self._running), return_exceptions=True)

    async def aclose(self) -> None:
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*list(self._running), return_exceptions=True)
        self._running.clear()
