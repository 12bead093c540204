"""Cloud Tasks: the queue of webhook deliveries and of every job that must wait.

`CloudTasksQueue.enqueue` creates an HTTP task that POSTs the job's JSON to the worker
function's URL at `schedule_time` (now + the delay: webhook back-off, a turn whose lease must
run out). The task is named after the job (kind, id, attempt): Cloud Tasks refuses a second task
of the same name for about an hour after the first is gone, so a job queued twice (a redelivered
worker job rescheduling its notifications) runs once; the refusal is taken as success.

The request is authenticated with an OIDC token of `service_account` (Cloud Tasks mints it;
the worker verifies it, or Cloud Run's IAM does), or with the shared secret header when the
worker uses one. Cloud Tasks retries a task whose request does not answer 2xx, with the queue's
back-off, up to its max attempts; `parse_task_request` tells the worker which attempt it is
from the X-CloudTasks-TaskRetryCount header so the last one can abandon the job.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_serverless import tracing
from a2a_serverless.exceptions import FormatError
from a2a_serverless.queue.base import Job, JobConsumer, decode_job, encode_job

from .cloud_logging import TRACE_HEADER, TraceContext, parse_trace, trace_from_headers

if TYPE_CHECKING:
    from google.cloud.tasks_v2 import CloudTasksAsyncClient

log = logging.getLogger("a2a_serverless_gcp.cloud_tasks")

SECRET_HEADER = "X-A2A-Worker-Secret"
# messaging.system of its spans (no name in the messaging semantic conventions).
MESSAGING_SYSTEM = "gcp_cloud_tasks"
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]")


def task_id(job: Job) -> str:
    """The task's id within its queue: stable for a job and its attempt (de-duplication)."""
    return _UNSAFE_NAME.sub("_", f"{job.kind}-{job.id}-{job.attempt}")[:500]


class CloudTasksQueue:
    """A Queue that turns each job into an HTTP task on one Cloud Tasks queue."""

    # A task's schedule_time.
    supports_delay = True

    def __init__(
        self,
        queue: str,
        url: str,
        *,
        service_account: str | None = None,
        audience: str | None = None,
        secret: str | None = None,
        emulator_host: str | None = None,
    ) -> None:
        """`queue`: ``projects/P/locations/L/queues/Q``. `url`: the worker function's URL.
        `service_account`: tasks carry an OIDC token it signs (audience: `audience` or `url`).
        `secret`: sent in the X-A2A-Worker-Secret header (readable by whoever may view the
        queue's tasks: prefer OIDC). `emulator_host`: a Cloud Tasks emulator's host:port."""
        self.queue = queue
        self.url = url
        self.service_account = service_account
        self.audience = audience or url
        self.secret = secret
        self.emulator_host = emulator_host
        self._client: CloudTasksAsyncClient | None = None
        self._client_lock = asyncio.Lock()

    async def client(self) -> CloudTasksAsyncClient:
        # Made on first use, in the event loop its gRPC channel then belongs to (grpc.aio
        # binds a channel to the loop it is made in). Finding credentials may block: a thread.
        async with self._client_lock:
            if self._client is None:
                from google.cloud.tasks_v2 import CloudTasksAsyncClient

                if self.emulator_host is None:
                    import google.auth

                    credentials, _ = await asyncio.to_thread(google.auth.default)
                    self._client = CloudTasksAsyncClient(credentials=credentials)
                else:
                    self._client = self._emulator_client(self.emulator_host)
            return self._client

    @staticmethod
    def _emulator_client(host_port: str) -> CloudTasksAsyncClient:
        import grpc  # type: ignore[import-untyped]
        from google.cloud.tasks_v2 import CloudTasksAsyncClient
        from google.cloud.tasks_v2.services.cloud_tasks.transports import (
            CloudTasksGrpcAsyncIOTransport,
        )

        channel = grpc.aio.insecure_channel(host_port)
        return CloudTasksAsyncClient(transport=CloudTasksGrpcAsyncIOTransport(channel=channel))

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        headers = {"Content-Type": "application/json"}
        if self.secret is not None:
            headers[SECRET_HEADER] = self.secret
        producing = tracing.producing(job, MESSAGING_SYSTEM, self.queue.rsplit("/", 1)[-1])
        with producing as job:
            await self._create(job, delay_s, headers)
            producing.sent(task_id(job))

    async def _create(self, job: Job, delay_s: float, headers: dict[str, str]) -> None:
        from google.api_core.exceptions import AlreadyExists
        from google.cloud import tasks_v2
        from google.protobuf import timestamp_pb2  # type: ignore[import-untyped]

        request = tasks_v2.HttpRequest(
            url=self.url,
            http_method=tasks_v2.HttpMethod.POST,
            headers=headers,
            # The job's JSON carries its trace: Cloud Run puts its own on the request.
            body=encode_job(job),
        )
        if self.service_account is not None:
            request.oidc_token = tasks_v2.OidcToken(
                service_account_email=self.service_account, audience=self.audience
            )
        name = f"{self.queue}/tasks/{task_id(job)}"
        task = tasks_v2.Task(name=name, http_request=request)
        if delay_s > 0:
            at = timestamp_pb2.Timestamp()
            at.FromNanoseconds(int((time.time() + delay_s) * 1e9))
            task.schedule_time = at
        client = await self.client()
        try:
            await client.create_task(parent=self.queue, task=task)
        except AlreadyExists:
            log.info("job %s (%s): task %s exists already (a duplicate)", job.id, job.kind, name)
            return
        log.debug("job %s (%s) queued as task %s in %.3g s", job.id, job.kind, name, delay_s)

    def start(self, jobs: JobConsumer) -> None:
        """Nothing to start: the worker function consumes the queue's tasks (the Queue protocol)."""
        return None

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.transport.close()  # type: ignore[no-untyped-call]
            self._client = None


class TaskFormatError(FormatError):
    """A request that claims to come from Cloud Tasks does not carry a job."""


@dataclass(frozen=True, slots=True)
class TaskRequest:
    job: Job
    task_name: str
    queue_name: str
    attempt: int  # 1 on the first dispatch
    trace: TraceContext | None


def is_task_request(headers: dict[str, str]) -> bool:
    return "x-cloudtasks-taskname" in headers


def parse_task_request(body: bytes, headers: dict[str, str]) -> TaskRequest:
    """The job of a Cloud Tasks request (header names lower-case)."""
    try:
        job = decode_job(body)
    except ValueError:
        raise TaskFormatError("the task's body is not a job") from None
    try:
        retries = int(headers.get("x-cloudtasks-taskretrycount", "0"))
    except ValueError:
        retries = 0
    return TaskRequest(
        job=job,
        task_name=headers.get("x-cloudtasks-taskname", ""),
        queue_name=headers.get("x-cloudtasks-queuename", ""),
        attempt=max(retries, 0) + 1,
        # The trace the job was queued in (its own; the header of a job queued by an earlier
        # version), else this request's own.
        trace=TraceContext.of(job.trace)
        or parse_trace(headers.get(TRACE_HEADER))
        or trace_from_headers(headers),
    )
