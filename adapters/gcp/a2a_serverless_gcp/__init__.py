"""Google Cloud adapter for a2a-serverless: Firestore store, Pub/Sub and Cloud Tasks queues,
functions-framework entry points.

    # main.py: `functions-framework --target a2a` and `--target worker`
    from a2a_serverless_gcp import entry_points
    from my_agent import agent

    entry_points(__name__, agent)   # `a2a` and `worker`, each made when its target is asked for

    # or by hand: a2a = make_http_handler(agent); worker = make_worker_handler(agent)

The names say what the AWS adapter's say (`make_http_handler`, `make_worker_handler`,
`entry_points`, `GcpSettings` beside `AwsSettings`, the core's `ConfigurationError`). Earlier
names stay importable, deprecated: `http_function` and `worker_function` (the handler
factories), `GcpConfig` (GcpSettings), `ConfigError` (ConfigurationError).

Nothing here is imported by the core; install this distribution (`pip install
a2a-serverless-gcp`) to use it. Names are imported on first use, so a function pays only for
what it touches on a cold start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_serverless.lazyface import lazy_face

if TYPE_CHECKING:
    from .cloud_tasks import CloudTasksQueue
    from .config import ConfigError, ConfigurationError, GcpConfig, GcpSettings
    from .functions import (
        entry_points,
        http_function,
        make_http_handler,
        make_worker_handler,
        worker_function,
    )
    from .pubsub import PubSubQueue
    from .routing import RoutedQueue

__all__ = [
    "CloudTasksQueue",
    "ConfigError",
    "ConfigurationError",
    "GcpConfig",
    "GcpSettings",
    "PubSubQueue",
    "RoutedQueue",
    "entry_points",
    "http_function",
    "make_http_handler",
    "make_worker_handler",
    "worker_function",
]

__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "CloudTasksQueue": ".cloud_tasks",
        "ConfigError": ".config",
        "ConfigurationError": ".config",
        "GcpConfig": ".config",
        "GcpSettings": ".config",
        "PubSubQueue": ".pubsub",
        "RoutedQueue": ".routing",
        "entry_points": ".functions",
        "http_function": ".functions",
        "make_http_handler": ".functions",
        "make_worker_handler": ".functions",
        "worker_function": ".functions",
    },
)
