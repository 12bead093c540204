"""Queues: the protocol and the typed jobs, the delivery policy, the job router and the
in-process implementation (cloud queues live in adapters)."""

from .base import (
    RUN_AGENT,
    WEBHOOK_JOB,
    Job,
    JobFormatError,
    JobHandler,
    Notification,
    OtherJob,
    Queue,
    RetryJob,
    RunAgentJob,
    RunTurn,
    WebhookJob,
    decode_job,
    encode_job,
)
from .inprocess import DeadLetteredJob, InProcessQueue
from .router import JobRoute, JobRouter

__all__ = [
    "RUN_AGENT",
    "WEBHOOK_JOB",
    "DeadLetteredJob",
    "InProcessQueue",
    "Job",
    "JobFormatError",
    "JobHandler",
    "JobRoute",
    "JobRouter",
    "Notification",
    "OtherJob",
    "Queue",
    "RetryJob",
    "RunAgentJob",
    "RunTurn",
    "WebhookJob",
    "decode_job",
    "encode_job",
]
