"""Google Cloud adapter for a2a-serverless: Firestore store, Pub/Sub and Cloud Tasks queues,
functions-framework entry points.

    from a2a_serverless_gcp import http_function, worker_function

    a2a = http_function(agent)
    worker = worker_function(agent)

Nothing here is imported by the core; install this distribution (`pip install
a2a-serverless-gcp`) to use it. Names are imported on first use, so a function pays only for
what it touches on a cold start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_serverless.lazyface import lazy_face

if TYPE_CHECKING:
    from .cloud_tasks import CloudTasksQueue
    from .config import ConfigError, GcpConfig
    from .functions import http_function, worker_function
    from .pubsub import PubSubQueue
    from .routing import RoutedQueue

__all__ = [
    "CloudTasksQueue",
    "ConfigError",
    "GcpConfig",
    "PubSubQueue",
    "RoutedQueue",
    "http_function",
    "worker_function",
]

__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "CloudTasksQueue": ".cloud_tasks",
        "ConfigError": ".config",
        "GcpConfig": ".config",
        "PubSubQueue": ".pubsub",
        "RoutedQueue": ".routing",
        "http_function": ".functions",
        "worker_function": ".functions",
    },
)
