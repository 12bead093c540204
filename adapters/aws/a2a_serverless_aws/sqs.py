"""`SqsQueue`: the core's Queue on Amazon SQS, for Lambda functions triggered by the queue.

Each Job is one SQS message: the body is its JSON (`encode_job`), and message attributes name
the job's kind, task and id (for filtering, logs and the console). `delay_s` becomes
DelaySeconds, which SQS caps at 900 s; a longer delay is sent with the cap and a `notBefore`
attribute (epoch ms), and a worker that receives the message early sends it on again for the
rest of the delay (`not_before_ms`, used by the worker handler), as often as needed.

One boto3 client per process (per Lambda container) serves every queue: creating one costs
tens of milliseconds and its connection pool is worth keeping warm. boto3 blocks, so each call
runs in a thread (`asyncio.to_thread`) and never stalls the event loop that serves streams or
runs the other records of a batch. The endpoint comes from boto3's own configuration, so
`AWS_ENDPOINT_URL_SQS` (or `AWS_ENDPOINT_URL`) points it at a local emulator.

Standard queues only: FIFO queues refuse per-message delays, which retries and back-off need.
"""

from __future__ import annotations

import asyncio
import math
import re
import threading
import time
from collections.abc import Mapping
from typing import Any

from a2a_serverless import tracing
from a2a_serverless.config import ConfigurationError
from a2a_serverless.queue.base import WEBHOOK_JOB, Job, JobConsumer, encode_job

# messaging.system of its spans (the messaging semantic conventions' name for SQS).
MESSAGING_SYSTEM = "aws_sqs"
# SQS's limit on DelaySeconds.
MAX_DELAY_S = 900
# Message attribute names.
KIND = "kind"
TASK_ID = "taskId"
JOB_ID = "jobId"
NOT_BEFORE = "notBefore"

# https://sqs.<region>.amazonaws.com/... and the legacy https://<region>.queue.amazonaws.com/...
_REGION_IN_URL = re.compile(
    r"^https://(?:sqs\.(?P<a>[a-z0-9-]+)|(?P<b>[a-z0-9-]+)\.queue)\.amazonaws\.com(?:\.cn)?/"
)
_clients: dict[str | None, Any] = {}
_clients_lock = threading.Lock()


class QueueConfigurationError(ConfigurationError):
    """The queue URL cannot be used (e.g. a FIFO queue)."""


def sqs_client(region: str | None = None) -> Any:
    """The process's SQS client for `region` (None: boto3's default region), made once."""
    client = _clients.get(region)
    if client is not None:
        return client
    with _clients_lock:
        client = _clients.get(region)
        if client is None:
            import boto3  # type: ignore[import-untyped]
            from botocore.config import Config  # type: ignore[import-untyped]

            # Fail over quickly rather than hold a request for botocore's 60 s defaults; the
            # standard retry mode retries throttling and 5xx with back-off.
            config = Config(
                connect_timeout=5,
                read_timeout=20,
                retries={"mode": "standard", "max_attempts": 4},
            )
            # A session of our own: the default session is not safe to create clients from in
            # several threads at once.
            client = boto3.session.Session().client("sqs", region_name=region, config=config)
            _clients[region] = client
    return client


def region_of(queue_url: str) -> str | None:
    """The region in an AWS queue URL (https://sqs.<region>.amazonaws.com/...), else None."""
    match = _REGION_IN_URL.match(queue_url)
    if match is None:
        return None
    return match.group("a") or match.group("b")


class SqsQueue:
    # DelaySeconds up to 900 s; longer delays are forwarded by the worker (`notBefore`).
    supports_delay = True

    def __init__(
        self,
        queue_url: str,
        *,
        webhook_queue_url: str | None = None,
        client: Any | None = None,
    ) -> None:
        """Jobs go to `queue_url`; webhook deliveries go to `webhook_queue_url` when given.

        `client` is a boto3 SQS client; by default the process's shared one for the queue's
        region (from the URL, else boto3's configuration), created on first use.
        """
        for url in (queue_url, webhook_queue_url):
            if url is not None and url.rstrip("/").endswith(".fifo"):
                raise QueueConfigurationError(
                    f"{url} is a FIFO queue: it refuses per-message delays, which job retries "
                    "and webhook back-off need; use a standard queue"
                )
        self.queue_url = queue_url
        self.webhook_queue_url = webhook_queue_url or queue_url
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = sqs_client(region_of(self.queue_url))
        return self._client

    def prime(self) -> None:
        """Create the client and build SendMessage's model now (priming.py). No request: SQS
        has none that is free of effects and that the functions' roles may call."""
        self.client.meta.service_model.operation_model("SendMessage")

    def drop_connections(self) -> None:
        """Close the client's pooled connections (see DynamoDBStore.drop_connections)."""
        if self._client is not None:
            self._client.close()

    def url_for(self, job: Job) -> str:
        return self.webhook_queue_url if job.kind == WEBHOOK_JOB else self.queue_url

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        url = self.url_for(job)
        # The job's JSON carries the trace it is sent in (the PRODUCER span's, with spans on).
        producing = tracing.producing(job, MESSAGING_SYSTEM, queue_name(url))
        with producing as job:
            request = send_message_request(url, job, delay_s, now_ms=_now_ms())
            sent = await asyncio.to_thread(self.client.send_message, **request)
            producing.sent(sent.get("MessageId"))

    def start(self, jobs: JobConsumer) -> None:
        """Nothing to start: the worker function (lambda_worker.py) consumes the queue."""
        return None

    async def aclose(self) -> None:
        # The client belongs to the process (shared, reused by the next invocation), not to
        # this queue: nothing to close.
        return None


def send_message_request(
    queue_url: str, job: Job, delay_s: float, *, now_ms: int
) -> dict[str, Any]:
    """The SendMessage parameters for `job`, not before `delay_s` seconds from `now_ms`."""
    attributes: dict[str, dict[str, str]] = {
        KIND: {"DataType": "String", "StringValue": job.kind},
        TASK_ID: {"DataType": "String", "StringValue": job.task_id},
        JOB_ID: {"DataType": "String", "StringValue": job.id},
    }
    # Whole seconds, rounded up: a job must never arrive before its delay is over.
    delay = max(0, math.ceil(delay_s)) if delay_s > 0 else 0
    if delay > MAX_DELAY_S:
        not_before = now_ms + math.ceil(delay_s * 1000)
        attributes[NOT_BEFORE] = {"DataType": "Number", "StringValue": str(not_before)}
        delay = MAX_DELAY_S
    request: dict[str, Any] = {
        "QueueUrl": queue_url,
        "MessageBody": message_body(job),
        "MessageAttributes": attributes,
    }
    if delay:
        request["DelaySeconds"] = delay
    return request


def message_body(job: Job) -> str:
    """The job's JSON as an SQS message body. SQS refuses U+FFFE and U+FFFF in a body (its
    allowed characters stop at U+FFFD, and the JSON is UTF-8, not ASCII): they can only be in
    a string, so they are sent as `\\ufffe` / `\\uffff` escapes, the same JSON."""
    body = encode_job(job).decode()
    if "\ufffe" in body or "\uffff" in body:
        body = body.replace("\ufffe", "\\ufffe").replace("\uffff", "\\uffff")
    return body


def queue_name(url_or_arn: str) -> str:
    """A queue's name (messaging.destination.name) from its URL or its ARN."""
    return url_or_arn.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]


def not_before_ms(message_attributes: Mapping[str, Any]) -> int | None:
    """The `notBefore` of a received message (Lambda event or ReceiveMessage shape), if any."""
    attribute = message_attributes.get(NOT_BEFORE)
    if not attribute:
        return None
    value = attribute.get("stringValue", attribute.get("StringValue"))
    return int(value) if value is not None else None


def _now_ms() -> int:
    return int(time.time() * 1000)
