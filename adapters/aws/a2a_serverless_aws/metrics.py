"""CloudWatch metrics for the Lambda entry points: the core's signals as powertools EMF metrics.

`MetricsObserver` is a runtime observer (`Runtime(observers=[...])`): each signal becomes a
metric in the invocation's metric set, and `flush()` — called by the handlers after every
invocation — prints them as one Embedded Metric Format line that CloudWatch turns into metrics.

| signal | metric (unit) |
| --- | --- |
| `task.submitted` | `TasksStarted` (Count) |
| `task.completed` | `TasksCompleted` (Count) |
| `task.failed`, `.canceled`, `.rejected` | `TasksFailed`, `TasksCanceled`, `TasksRejected` |
| `task.input-required` | `TasksInputRequired` (Count) |
| `task.auth-required` | `TasksAuthRequired` (Count) |
| any `task.*` above with a duration | `TaskDuration` (Seconds): created -> that state |
| `webhook.delivered` | `WebhooksDelivered` (Count) |
| `webhook.retrying`, `.dead-lettered` | `WebhooksRetrying`, `WebhooksDeadLettered` (Count) |
| a `webhook.*` signal with a duration | `WebhookAttemptDuration` (Seconds) |

`task.working` (every progress update) is not counted: it says nothing a dashboard needs.
The namespace is `POWERTOOLS_METRICS_NAMESPACE`, else "a2a-serverless"; the service dimension
is `POWERTOOLS_SERVICE_NAME`, else the handler's. `POWERTOOLS_METRICS_DISABLED=true` turns the
output off.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from a2a_serverless.observability import Signal

if TYPE_CHECKING:
    from aws_lambda_powertools import Metrics

DEFAULT_NAMESPACE = "a2a-serverless"

COUNTS = {
    "task.submitted": "TasksStarted",
    "task.completed": "TasksCompleted",
    "task.failed": "TasksFailed",
    "task.canceled": "TasksCanceled",
    "task.rejected": "TasksRejected",
    "task.input-required": "TasksInputRequired",
    "task.auth-required": "TasksAuthRequired",
    "webhook.delivered": "WebhooksDelivered",
    "webhook.retrying": "WebhooksRetrying",
    "webhook.dead-lettered": "WebhooksDeadLettered",
}


class MetricsObserver:
    def __init__(self, service: str, namespace: str | None = None) -> None:
        from aws_lambda_powertools import Metrics

        self.metrics: Metrics = Metrics(
            namespace=namespace
            or os.environ.get("POWERTOOLS_METRICS_NAMESPACE")
            or DEFAULT_NAMESPACE,
            service=os.environ.get("POWERTOOLS_SERVICE_NAME") or service,
        )

    def observe(self, signal: Signal) -> None:
        from aws_lambda_powertools.metrics import MetricUnit

        name = COUNTS.get(signal.name)
        if name is None:
            return
        self.metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)
        if signal.duration_s is not None:
            duration = (
                "TaskDuration" if signal.name.startswith("task.") else "WebhookAttemptDuration"
            )
            self.metrics.add_metric(name=duration, unit=MetricUnit.Seconds, value=signal.duration_s)

    def flush(self) -> None:
        """Print this invocation's metrics (one EMF line) and start a new set; nothing if none."""
        if self.metrics.metric_set:
            self.metrics.flush_metrics()
