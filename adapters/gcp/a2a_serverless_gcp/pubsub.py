"""Pub/Sub: the queue of agent-run jobs, and how a pushed message becomes a Job again.

`PubSubQueue.enqueue` publishes the job's JSON (which carries its trace) to a topic (attributes:
kind, taskId, jobId). A push subscription delivers each message to the worker function, which
answers 2xx to ack it; any other status nacks it and Pub/Sub retries with the subscription's
retry policy (exponential back-off between minimum_backoff and maximum_backoff, at most 600 s).
After
max_delivery_attempts the message goes to the dead-letter topic; a push subscription on that
topic to the same worker function lets it fail the task with the reason (`Worker.abandon`).

Pub/Sub has no per-message delay. A job queued with a delay carries `notBefore` (epoch ms) and
the worker nacks it until then, so the subscription's back-off spaces the retries; deployments
with a Cloud Tasks queue send delayed jobs there instead (`routing.py`).

`parse_push` reads every shape a push arrives in: Pub/Sub's own push body (``{"message",
"subscription", "deliveryAttempt"}``), and a CloudEvent carrying the same `MessagePublishedData`
(binary mode: ``ce-*`` headers, as Eventarc sends it; or structured mode).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from a2a_serverless import tracing
from a2a_serverless.exceptions import FormatError
from a2a_serverless.queue.base import Job, JobConsumer, decode_job, encode_job

from .cloud_logging import TRACE_ATTRIBUTE, TraceContext, parse_trace

if TYPE_CHECKING:
    from google.cloud.pubsub_v1 import PublisherClient  # type: ignore[import-untyped]

log = logging.getLogger("a2a_serverless_gcp.pubsub")

# Pub/Sub adds these to a message it forwards to a dead-letter topic.
DEAD_LETTER_COUNT = "CloudPubSubDeadLetterSourceDeliveryCount"
DEAD_LETTER_SUBSCRIPTION = "CloudPubSubDeadLetterSourceSubscription"
# The client libraries' attribute for the delivery attempt (pull subscribers).
CLIENT_DELIVERY_ATTEMPT = "googclient_deliveryattempt"
NOT_BEFORE = "notBefore"
# messaging.system of its spans (the messaging semantic conventions' name for Pub/Sub).
MESSAGING_SYSTEM = "gcp_pubsub"

_publisher_lock = threading.Lock()
_publisher_client: PublisherClient | None = None


def _publisher() -> PublisherClient:
    # One client per process: it keeps a gRPC channel and batching threads. Created on first
    # use, never at import: a channel opened before functions-framework's gunicorn forks its
    # worker would be unusable in the worker.
    global _publisher_client
    with _publisher_lock:
        if _publisher_client is None:
            from google.cloud.pubsub_v1 import PublisherClient

            _publisher_client = PublisherClient()
        return _publisher_client


class PubSubQueue:
    """A Queue that publishes each job to one Pub/Sub topic (``projects/P/topics/T``)."""

    # Pub/Sub has no per-message delay: a delayed job carries `notBefore`, and its consumer
    # nacks an early delivery (the subscription's back-off brings it back).
    supports_delay = False

    def __init__(self, topic: str) -> None:
        self.topic = topic

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        attributes = {"kind": job.kind, "taskId": job.task_id, "jobId": job.id}
        if delay_s > 0:
            attributes[NOT_BEFORE] = str(int((time.time() + delay_s) * 1000))
        producing = tracing.producing(job, MESSAGING_SYSTEM, self.topic.rsplit("/", 1)[-1])
        with producing as job:
            data = encode_job(job)
            # Creating the client and publish() may block (credentials, a full batch): off the
            # loop.
            client = await asyncio.to_thread(_publisher)
            future = await asyncio.to_thread(client.publish, self.topic, data, **attributes)
            message_id = await asyncio.wrap_future(future)
            producing.sent(message_id)
        log.debug("job %s (%s) published as message %s", job.id, job.kind, message_id)

    def start(self, jobs: JobConsumer) -> None:
        """Nothing to start: the worker function consumes the subscription (the Queue protocol)."""
        return None

    async def aclose(self) -> None:
        # The publisher is shared by the process and publish() waits for each message, so
        # there is nothing buffered to flush.
        return None


class PushFormatError(FormatError):
    """A pushed request is not a Pub/Sub message carrying a job."""


@dataclass(frozen=True, slots=True)
class PushedJob:
    job: Job
    message_id: str
    subscription: str | None
    # 1 on the first delivery; None when the push does not say (no dead-letter policy).
    delivery_attempt: int | None
    # Set when the message came through a dead-letter topic: why it was given up on.
    dead_letter_reason: str | None
    not_before_ms: int | None
    trace: TraceContext | None


def parse_push(body: bytes, headers: dict[str, str]) -> PushedJob:
    """The job in a pushed request (header names lower-case). PushFormatError if it has none."""
    try:
        envelope = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise PushFormatError("the body is not JSON") from None
    if not isinstance(envelope, dict):
        raise PushFormatError("the body is not a JSON object")
    if "specversion" in envelope and "ce-specversion" not in headers:
        envelope = envelope.get("data")  # a structured-mode CloudEvent
        if not isinstance(envelope, dict):
            raise PushFormatError("the CloudEvent has no MessagePublishedData")
    message = envelope.get("message")
    if not isinstance(message, dict):
        raise PushFormatError("no Pub/Sub message in the body")
    attributes = _strings(message.get("attributes"))
    try:
        data = base64.b64decode(str(message.get("data", "")), validate=True)
        job = decode_job(data)
    except (binascii.Error, ValueError):
        raise PushFormatError("the message's data is not a job") from None
    message_id = str(message.get("messageId") or message.get("message_id") or "")
    subscription = envelope.get("subscription")
    attempt = _int(envelope.get("deliveryAttempt")) or _int(attributes.get(CLIENT_DELIVERY_ATTEMPT))
    dead_letter = None
    if DEAD_LETTER_COUNT in attributes:
        source = attributes.get(DEAD_LETTER_SUBSCRIPTION, "the subscription")
        dead_letter = (
            f"Pub/Sub gave up on the job after {attributes[DEAD_LETTER_COUNT]} delivery "
            f"attempts ({source}) and dead-lettered it"
        )
    return PushedJob(
        job=job,
        message_id=message_id,
        subscription=subscription if isinstance(subscription, str) else None,
        delivery_attempt=attempt,
        dead_letter_reason=dead_letter,
        not_before_ms=_int(attributes.get(NOT_BEFORE)),
        # The job's own, else the attribute of a job queued by an earlier version.
        trace=TraceContext.of(job.trace) or parse_trace(attributes.get(TRACE_ATTRIBUTE)),
    )


def _strings(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items()}


def _int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
