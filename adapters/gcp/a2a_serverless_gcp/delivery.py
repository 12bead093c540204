"""The worker function's work: the job in one queue's request, run, and the HTTP status that
tells the queue what to do next.

The worker function takes every way a job arrives and answers as the sender expects:

- a Pub/Sub push (the push body, or a CloudEvent carrying `MessagePublishedData` as Eventarc
  sends it): 2xx acks; 503 (retry later) and 500 (failure) nack, so Pub/Sub redelivers with its
  retry policy's back-off and dead-letters the message after max_delivery_attempts. A message
  from the dead-letter topic (pushed to this function by a subscription on that topic) is
  abandoned: the task fails with the reason. When the push says which delivery attempt it is
  and it is the last (A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS), a failure abandons the job at once;
- a Cloud Tasks request: 2xx done, 500 retried by Cloud Tasks; the last attempt
  (A2A_CLOUD_TASKS_MAX_ATTEMPTS) abandons the job instead of failing.

What comes of each delivery is the core's delivery policy (`a2a_serverless.queue.disposition`),
run by the runtime's job router (`Runtime.jobs`). A job that asks to come again later
(`RetryJob`: a webhook's back-off, a turn leased by another worker) is queued again with its
delay on Cloud Tasks when a queue is configured, and acked; without one it is nacked (see
`_later`). A failure on the last attempt abandons the job with a reason that carries no
exception text (the log has it).
"""

from __future__ import annotations

import logging
import time

import msgspec

from a2a_serverless import tracing
from a2a_serverless.observability import correlated
from a2a_serverless.queue.base import Job
from a2a_serverless.queue.disposition import (
    Abandon,
    Done,
    RetryAfter,
    deliver,
    error_text,
)

from .cloud_logging import TraceContext, trace_from_headers, traced
from .config import GcpSettings
from .deployment import Deployment

log = logging.getLogger("a2a_serverless_gcp.worker")

ACK = 204
RETRY_LATER = 503
FAILED = 500
# What became of a job given up on, as its task's client reads it: it is acked, so no queue
# keeps it.
GIVEN_UP = "was given up"


class Delivery(msgspec.Struct, frozen=True):
    """A job as one queue delivered it, with what that delivery says about retries."""

    job: Job
    source: str  # "pubsub" or "cloud-tasks"
    attempt: int | None
    last_attempt: bool
    dead_letter_reason: str | None = None
    not_before_ms: int | None = None
    trace: TraceContext | None = None
    # For its span: the subscription or queue it came from, the message's id there.
    destination: str = ""
    message_id: str | None = None

    @property
    def messaging_system(self) -> str:
        return "gcp_pubsub" if self.source == "pubsub" else "gcp_cloud_tasks"


def parse_delivery(body: bytes, headers: dict[str, str], config: GcpSettings) -> Delivery:
    """The job in a worker request; ValueError if it carries none."""
    from .cloud_tasks import is_task_request, parse_task_request

    if is_task_request(headers):
        task = parse_task_request(body, headers)
        return Delivery(
            job=task.job,
            source="cloud-tasks",
            attempt=task.attempt,
            last_attempt=task.attempt >= config.cloud_tasks_max_attempts,
            trace=task.trace,
            # Cloud Tasks names the queue alone; its emulator gives the full path.
            destination=task.queue_name.rsplit("/", 1)[-1],
            message_id=task.task_name or None,
        )
    from .pubsub import parse_push

    pushed = parse_push(body, headers)
    attempt = pushed.delivery_attempt
    return Delivery(
        job=pushed.job,
        source="pubsub",
        attempt=attempt,
        last_attempt=attempt is not None and attempt >= config.pubsub_max_delivery_attempts,
        dead_letter_reason=pushed.dead_letter_reason,
        not_before_ms=pushed.not_before_ms,
        trace=pushed.trace or trace_from_headers(headers),
        destination=(pushed.subscription or "").rsplit("/", 1)[-1],
        message_id=pushed.message_id or None,
    )


async def handle_delivery(deployment: Deployment, body: bytes, headers: dict[str, str]) -> int:
    """Run the job of one worker request; the HTTP status tells the queue what to do next."""
    try:
        delivery = parse_delivery(body, headers, deployment.config)
    except ValueError as exc:
        # Retrying cannot make it a job: ack it, and say so.
        log.error("worker request without a job, dropped: %s", exc)
        return ACK
    job = delivery.job
    # The job's work continues the trace it was queued in (tracing.py); log lines join it too.
    consuming = tracing.consuming(
        job,
        delivery.messaging_system,
        delivery.destination,
        message_id=delivery.message_id,
        delivery_attempt=delivery.attempt,
    )
    with traced(delivery.trace), correlated(task_id=job.task_id), consuming:
        return await _run(deployment, delivery)


async def _run(deployment: Deployment, delivery: Delivery) -> int:
    job = delivery.job
    jobs = deployment.runtime().jobs
    if delivery.dead_letter_reason is not None:
        log.error("job %s (%s) abandoned: %s", job.id, job.kind, delivery.dead_letter_reason)
        await jobs.abandon(job, delivery.dead_letter_reason)
        return ACK
    if delivery.not_before_ms is not None:
        wait_s = delivery.not_before_ms / 1000 - time.time()
        if wait_s > 0:
            return await _later(deployment, delivery, wait_s, "not due yet")
    started = time.monotonic()
    disposition = await deliver(
        jobs.handle,
        job,
        delivery=delivery.attempt or 1,
        last_attempt=delivery.last_attempt,
        # Acked after the abandonment: the queue keeps nothing of it.
        fate=GIVEN_UP,
    )
    match disposition:
        case Done():
            log.info(
                "job %s (%s) from %s done in %.0f ms",
                job.id,
                job.kind,
                delivery.source,
                (time.monotonic() - started) * 1000,
            )
            return ACK
        case RetryAfter(planned=True):
            return await _later(deployment, delivery, disposition.delay_s, disposition.reason)
        case RetryAfter():
            log.warning(
                "job %s (%s) failed on attempt %s from %s; the queue will retry it: %s",
                job.id,
                job.kind,
                delivery.attempt or "?",
                delivery.source,
                disposition.reason,
            )
            return FAILED
        case Abandon():
            log.error(
                "job %s (%s) failed on its last attempt (%s), abandoned",
                job.id,
                job.kind,
                error_text(disposition.error),
            )
            await jobs.abandon(job, disposition.reason)
            return ACK


async def _later(deployment: Deployment, delivery: Delivery, delay_s: float, why: str) -> int:
    """The job must come again in `delay_s` (a planned retry, or an early delivery).

    Where the deployment's queue can wait (Cloud Tasks is configured) a copy is queued with that
    delay and this delivery acked, so a planned retry never spends one of the delivering
    queue's attempts — the rule of every queue (queue/disposition.py), for every kind of job: a
    webhook job is bounded by the notifier's own attempts, a turn by the worker's
    A2A_WORKER_MAX_ATTEMPTS starts. Without Cloud Tasks (Pub/Sub alone cannot delay a message)
    it is nacked: the subscription's back-off brings it back, an attempt spent each time.
    """
    job = delivery.job
    if deployment.queue.supports_delay:
        await deployment.queue.enqueue(job.next_attempt(), delay_s=max(delay_s, 0.0))
        log.info("job %s (%s) queued again in %.3g s: %s", job.id, job.kind, delay_s, why)
        return ACK
    log.info(
        "job %s (%s) nacked (%s); the queue redelivers it after its back-off (wanted %.3g s)",
        job.id,
        job.kind,
        why,
        delay_s,
    )
    return RETRY_LATER
