"""The job router: which code runs a job of each kind, and which ends it when a queue gives up.

Built once per Runtime from the routes it wires (runtime.py: the worker's turns for `run-agent`,
the push notifier's deliveries for `deliver-webhook`); every queue's consumer (the in-process
queue, the Lambda worker handler, the GCP worker function) hands its jobs to `handle` and, when
it gives up on one, to `abandon`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping

import msgspec

from ..observability import correlated_task
from .base import Job, JobHandler

log = logging.getLogger("a2a_serverless.worker")

AbandonHandler = Callable[[Job, str], Awaitable[None]]


class JobRoute(msgspec.Struct, frozen=True):
    # Runs one delivery of the job (raises RetryJob to come again later).
    handle: JobHandler
    # A queue gave up on the job: end what it was for with the reason. Safe to call again.
    abandon: AbandonHandler


class JobRouter:
    def __init__(self, routes: Mapping[str, JobRoute]) -> None:
        self._routes = dict(routes)

    async def handle(self, job: Job) -> None:
        """Run `job` by its kind's route; ValueError for a kind nothing here runs."""
        route = self._routes.get(job.kind)
        if route is None:
            raise ValueError(f"unknown job kind {job.kind!r}")
        with correlated_task(job.task_id):
            await route.handle(job)

    async def abandon(self, job: Job, reason: str) -> None:
        """A queue gave up on `job` (its retries are spent; it went to a dead-letter queue):
        end what it was for, so nobody waits for it forever. A job of a kind nothing here runs
        is only logged."""
        with correlated_task(job.task_id):
            route = self._routes.get(job.kind)
            if route is None:
                log.error("abandoned job %s of kind %r: %s", job.id, job.kind, reason)
                return
            await route.abandon(job, reason)
