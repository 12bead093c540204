"""Queues: the protocol, the delivery policy, the job router and the in-process implementation
(cloud queues live in adapters)."""

from .base import RUN_AGENT, WEBHOOK_JOB, Job, JobHandler, Queue, RetryJob
from .inprocess import DeadLetteredJob, InProcessQueue
from .router import JobRoute, JobRouter

__all__ = [
    "RUN_AGENT",
    "WEBHOOK_JOB",
    "DeadLetteredJob",
    "InProcessQueue",
    "Job",
    "JobHandler",
    "JobRoute",
    "JobRouter",
    "Queue",
    "RetryJob",
]
