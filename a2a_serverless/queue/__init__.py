"""Queues: the protocol and the in-process implementation (cloud queues live in adapters)."""

from .base import RUN_AGENT, Job, JobHandler, Queue, RetryJob
from .inprocess import DeadLetteredJob, InProcessQueue

__all__ = [
    "RUN_AGENT",
    "DeadLetteredJob",
    "InProcessQueue",
    "Job",
    "JobHandler",
    "Queue",
    "RetryJob",
]
