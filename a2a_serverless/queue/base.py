"""The Queue protocol: how work leaves a request before its response returns.

A serverless function is frozen (or killed) once it has answered, so anything still to do after
the response — running the agent, delivering a webhook — is put on a Queue as a Job and done by a
worker invocation (an SQS- or Pub/Sub-triggered function, or the in-process worker of the dev
server). Queues deliver at least once; job handlers are written to be safe when a job arrives
twice.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..ids import random_hex
from ..tracecontext import TRACEPARENT, TRACESTATE, TraceContext, parse_traceparent

# The job kinds the kit queues: a task's turn for the worker, a push notification to deliver.
RUN_AGENT = "run-agent"
WEBHOOK_JOB = "deliver-webhook"


@dataclass(frozen=True, slots=True)
class Job:
    kind: str
    task_id: str
    payload: dict[str, Any] = field(default_factory=dict)
    # Stable across redeliveries, so handlers and receivers can de-duplicate.
    id: str = field(default_factory=random_hex)
    attempt: int = 1
    # The trace the job belongs to (the request's, or the span that queued it): its consumer
    # continues it (tracing.py). In the JSON as W3C `traceparent` / `tracestate` strings.
    trace: TraceContext | None = None

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "taskId": self.task_id,
            "payload": self.payload,
            "attempt": self.attempt,
        }
        if self.trace is not None:
            data[TRACEPARENT] = self.trace.traceparent()
            if self.trace.tracestate:
                data[TRACESTATE] = self.trace.tracestate
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Job:
        data = json.loads(text)
        return cls(
            kind=data["kind"],
            task_id=data["taskId"],
            payload=data.get("payload") or {},
            id=data["id"],
            attempt=data.get("attempt", 1),
            # Absent from jobs queued before it was carried; an invalid one is ignored.
            trace=_trace_of(data),
        )


def _trace_of(data: dict[str, Any]) -> TraceContext | None:
    traceparent, tracestate = data.get(TRACEPARENT), data.get(TRACESTATE)
    if not isinstance(traceparent, str):
        return None
    return parse_traceparent(traceparent, tracestate if isinstance(tracestate, str) else None)


JobHandler = Callable[[Job], Awaitable[None]]


class RetryJob(Exception):
    """Raised by a handler: deliver this job again after `delay_s` (e.g. a webhook back-off)."""

    def __init__(self, reason: str, delay_s: float = 0.0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.delay_s = delay_s


@runtime_checkable
class Queue(Protocol):
    @property
    def supports_delay(self) -> bool:
        """Whether a job enqueued with `delay_s` really waits that long before a worker gets it.
        A queue that cannot delay (Pub/Sub) only approximates it: its consumer nacks an early
        delivery and its back-off brings the job back, a delivery attempt spent each time. The
        job-delivery policy (queue/disposition.py) re-enqueues a planned retry only where
        this is True."""
        ...

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        """Hand `job` to a worker; it runs at least once, not before `delay_s` seconds."""
        ...

    async def aclose(self) -> None: ...
