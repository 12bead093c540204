"""A Queue that sends each job to the backend suited to it.

With both Pub/Sub and Cloud Tasks configured, agent-run jobs go to Pub/Sub (fan-out to as many
worker instances as needed, a dead-letter topic) and webhook deliveries and every delayed job go
to Cloud Tasks (per-task `schedule_time`, which Pub/Sub lacks). With one of them, it takes all.
"""

from __future__ import annotations

from collections.abc import Mapping

from a2a_serverless.queue.base import Job, JobConsumer, Queue


class RoutedQueue:
    def __init__(
        self,
        default: Queue,
        *,
        routes: Mapping[str, Queue] | None = None,
        delayed: Queue | None = None,
    ) -> None:
        """Jobs of a kind in `routes` go to that queue, jobs with a delay to `delayed` (when
        given), the rest to `default`."""
        self.default = default
        self.routes = dict(routes or {})
        self.delayed = delayed

    def route(self, job: Job, delay_s: float = 0.0) -> Queue:
        if delay_s > 0 and self.delayed is not None:
            return self.delayed
        return self.routes.get(job.kind, self.default)

    @property
    def supports_delay(self) -> bool:
        """Whether a delayed job really waits: as its delayed route does (Pub/Sub alone can
        only approximate it)."""
        if self.delayed is not None:
            return self.delayed.supports_delay
        return all(queue.supports_delay for queue in (self.default, *self.routes.values()))

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        await self.route(job, delay_s).enqueue(job, delay_s=delay_s)

    def start(self, jobs: JobConsumer) -> None:
        for queue in self._distinct():
            queue.start(jobs)

    def _distinct(self) -> list[Queue]:
        distinct: list[Queue] = []
        for queue in (self.default, *self.routes.values(), self.delayed):
            if queue is not None and not any(queue is q for q in distinct):
                distinct.append(queue)
        return distinct

    async def aclose(self) -> None:
        for queue in self._distinct():
            await queue.aclose()
