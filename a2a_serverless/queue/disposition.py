"""The queue-delivery policy: what comes of one delivery of a job, decided once for every queue.

Each queue hands a delivered job to `deliver`, which runs the job's handler once and returns the
job's disposition; the queue maps it onto what it can do (the in-process queue in
queue/inprocess.py, SQS in the AWS adapter's worker handler, Pub/Sub and Cloud Tasks in the GCP
adapter's worker function):

- `Done`: the handler returned (it did the work, or found nothing to do): forget the job.
- `RetryAfter(delay_s, reason, planned=True)`: the handler raised `RetryJob` (a webhook's
  back-off, a turn another worker holds a lease on). Part of the job's normal course: it must
  not count towards the queue's attempt limit. A queue that can delay (`Queue.supports_delay`)
  sends a copy of the job (its `attempt` + 1) with that delay and is done with this delivery; one
  that cannot (Pub/Sub) nacks it and its back-off brings it back. Bounded without that limit: a
  webhook job by the notifier's own attempts, a turn by the worker's `max_attempts` claims.
- `RetryAfter(delay_s, reason, planned=False)`: the delivery failed (an exception; the traceback
  is logged here). The queue delivers it again — after `delay_s` where it chooses the delay, else
  after its own back-off — and this counts as a failed delivery. A `StoreUnavailable` is always
  retried, even on the last delivery: abandoning the job would need the store.
- `Abandon(reason)`: the delivery failed and it was the last one the queue makes. The queue calls
  the job router's `abandon(job, reason)` (the task fails with `reason`, a webhook's notification
  is dead-lettered), then forgets the job or moves it to its dead-letter queue. `reason` reaches
  the task's client, so it carries no exception text (that is in `error` and the logs).
"""

from __future__ import annotations

import logging

import msgspec

from .. import tracing
from ..store.base import StoreUnavailable
from .base import Job, JobHandler, RetryJob

log = logging.getLogger("a2a_serverless.queue")

# What the in-process queue's messages say of a job it gave up on; a cloud queue's say where it
# went (SQS: the dead-letter queue).
DEAD_LETTER_QUEUE = "was moved to the dead-letter queue"


class Done(msgspec.Struct, frozen=True):
    """The job is done with."""


class RetryAfter(msgspec.Struct, frozen=True):
    """Deliver the job again, not before `delay_s` seconds."""

    delay_s: float
    reason: str
    # True: the handler asked for it (RetryJob), which does not count as a failed delivery.
    planned: bool
    # The exception of a failed delivery (None for a planned retry).
    error: BaseException | None = None


class Abandon(msgspec.Struct, frozen=True):
    """The last delivery failed: end what the job was for, with `reason`."""

    reason: str
    # What failed, for operators (the exception's type and text); never shown to a client.
    error: BaseException


Disposition = Done | RetryAfter | Abandon


class RetryPolicy(msgspec.Struct, frozen=True):
    """The back-off of failed deliveries, for a queue that chooses its own delays."""

    # The pause before the second delivery of a failed job; doubled after each failure.
    base_backoff_s: float = 0.2
    # The longest pause between two tries while the store is unavailable.
    max_store_wait_s: float = 30.0

    def failure_delay(self, failures: int) -> float:
        """The pause after `failures` failed deliveries in a row (1 after the first)."""
        return self.base_backoff_s * 2.0 ** max(failures - 1, 0)

    def store_delay(self, failures: int) -> float:
        return min(
            self.base_backoff_s * 2.0 ** min(max(failures - 1, 0), 16), self.max_store_wait_s
        )


def error_text(error: BaseException) -> str:
    """An exception as operators read it (logs, dead-letter records): its type and message."""
    return f"{type(error).__name__}: {error}"


def abandon_reason(deliveries: int | None, fate: str = DEAD_LETTER_QUEUE) -> str:
    """Why a job was given up on, as the task's client reads it (no exception text): `fate`
    says what the queue did with it."""
    failed = "repeatedly" if deliveries is None else f"on {deliveries} deliveries in a row"
    return f"its job failed {failed} and {fate}"


async def deliver(
    handler: JobHandler,
    job: Job,
    *,
    delivery: int,
    last_attempt: bool,
    policy: RetryPolicy | None = None,
    fate: str = DEAD_LETTER_QUEUE,
) -> Disposition:
    """Run `handler` on one delivery of `job` and say what the queue must do next.

    `delivery` is this delivery's number as the queue counts failed ones (1 on the first, or
    after only planned retries); `last_attempt` says whether the queue will make no other if this
    one fails; `fate` what it does with the job then (for the reason the client reads).
    """
    policy = policy or RetryPolicy()
    try:
        await handler(job)
    except RetryJob as retry:
        return RetryAfter(max(retry.delay_s, 0.0), retry.reason, planned=True)
    except StoreUnavailable as exc:
        # The store failed, not the job (a full disk, a locked file, an outage): try again for as
        # long as it lasts; abandoning the job would need the store.
        log.warning(
            "job %s (%s) of task %s waits for the store (delivery %d): %s",
            job.id,
            job.kind,
            job.task_id,
            delivery,
            exc,
        )
        tracing.failed(f"the store is unavailable: {exc}")
        return RetryAfter(policy.store_delay(delivery), str(exc), planned=False, error=exc)
    except Exception as exc:  # a worker must survive any handler failure
        log.exception(
            "job %s (%s) of task %s failed on delivery %d", job.id, job.kind, job.task_id, delivery
        )
        tracing.failed(error_text(exc))
        if last_attempt:
            return Abandon(abandon_reason(delivery, fate), exc)
        return RetryAfter(policy.failure_delay(delivery), error_text(exc), planned=False, error=exc)
    return Done()
