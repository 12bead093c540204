"""One Cloud Function's deployment: its agent, settings and queue, and the Runtime, made by the
first request of each process.

Nothing connects to Google Cloud when the deployment is built: the runtime (store, queue
clients) is made by the first request of each process, after functions-framework's gunicorn has
forked its worker, in the event loop that serves it. Settings are read and checked when the
deployment is built, so a misconfigured function fails at start-up; the modules the first
request needs are imported then too (priming.py, unless A2A_PRIME=false).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from a2a_serverless import tracing
from a2a_serverless.agent import Agent
from a2a_serverless.collector import paused_during_init
from a2a_serverless.config import Settings
from a2a_serverless.exceptions import ConfigurationError
from a2a_serverless.observability import Observer
from a2a_serverless.queue.base import Queue

from .cloud_logging import install_logging
from .config import GcpSettings
from .priming import prime
from .routing import RoutedQueue

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from a2a_serverless.asgi import A2AApplication, Receive, Scope, Send
    from a2a_serverless.budget import ResponseBudget
    from a2a_serverless.fastapi import AgentMount, AppLifespan
    from a2a_serverless.runtime import Runtime

    AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Cloud Run's (and so Cloud Run functions') limit on an HTTP/1 response that is not streamed.
CLOUD_RUN_RESPONSE_BYTES = 32 * 1024 * 1024


def build_queue(config: GcpSettings) -> RoutedQueue:
    """The deployment's Queue: Pub/Sub for agent runs, Cloud Tasks for webhooks and delays, or
    whichever one is configured for everything."""
    from a2a_serverless.queue.base import WEBHOOK_JOB

    pubsub: Queue | None = None
    tasks: Queue | None = None
    if config.pubsub_topic is not None:
        from .pubsub import PubSubQueue

        pubsub = PubSubQueue(config.pubsub_topic)
    if config.cloud_tasks_queue is not None:
        from .cloud_tasks import CloudTasksQueue

        assert config.cloud_tasks_url is not None  # GcpSettings checks it
        tasks = CloudTasksQueue(
            config.cloud_tasks_queue,
            config.cloud_tasks_url,
            service_account=config.cloud_tasks_service_account,
            audience=config.cloud_tasks_audience,
            secret=config.worker_secret if config.worker_auth in (None, "secret") else None,
            emulator_host=config.cloud_tasks_emulator_host,
        )
    if pubsub is not None and tasks is not None:
        return RoutedQueue(pubsub, routes={WEBHOOK_JOB: tasks}, delayed=tasks)
    if pubsub is not None:
        return RoutedQueue(pubsub)
    if tasks is not None:
        return RoutedQueue(tasks, delayed=tasks)
    raise ConfigurationError(
        "no queue configured: set A2A_PUBSUB_TOPIC (agent runs) and/or A2A_CLOUD_TASKS_QUEUE "
        "with A2A_CLOUD_TASKS_URL (webhooks and delayed jobs)"
    )


class Deployment:
    """One function's agent, settings and queue; the Runtime is made on first use."""

    # Built at import, in functions-framework's master before it forks the workers: the objects
    # it makes are frozen there (and shared copy-on-write by the workers).
    @paused_during_init
    def __init__(
        self,
        agent: Agent,
        settings: Settings | None,
        config: GcpSettings | None,
        observers: Sequence[Observer],
        runtime_options: dict[str, Any],
        *,
        configure_logging: bool,
        asgi: Starlette | None = None,
    ) -> None:
        self.agent = agent
        self.asgi = asgi
        self._lifespan: AppLifespan | None = None
        self._mount: AgentMount | None = None
        if asgi is not None:
            from a2a_serverless.fastapi import mounted

            # Now, at start-up: an app without the agent is a deployment error.
            self._mount = mounted(asgi, agent)
            runtime_options["public_prefix"] = self._mount.prefix
        self.settings = settings if settings is not None else Settings.from_env()
        self.config = config if config is not None else GcpSettings.from_env()
        if configure_logging:
            install_logging(self.config.project, self.config.log_level)
        if self.settings.otel:
            # Now, not with the Runtime on the first request: a worker's first job must
            # already be a span (and a missing extra is a start-up error).
            tracing.enable()
        if self.config.prime:
            remote_agents = bool(agent.remote_agents or self.settings.remote_agents)
            prime(self.settings, self.config, remote_agents=remote_agents)
        self.queue: Queue = runtime_options.pop("queue", None) or build_queue(self.config)
        self.observers = list(observers)
        self.runtime_options = runtime_options
        self._runtime: Runtime | None = None
        self._app: A2AApplication | None = None

    def runtime(self) -> Runtime:
        # Built synchronously within one event loop: two first requests cannot both build it.
        if self._runtime is None:
            self._runtime = self._build_runtime()
        return self._runtime

    @paused_during_init
    def _build_runtime(self) -> Runtime:
        # On a worker's first request, after the fork (its clients cannot cross one).
        from a2a_serverless.runtime import Runtime

        return Runtime(
            self.agent,
            self.settings,
            queue=self.queue,
            observers=self.observers,
            **self.runtime_options,
        )

    def app(self) -> A2AApplication:
        if self._app is None:
            if self._mount is not None:
                self._app = self._mount.bind(self.runtime())
            else:
                from a2a_serverless.asgi import A2AApplication

                self._app = A2AApplication(self.runtime(), budget=self.response_budget())
        return self._app

    def response_budget(self) -> ResponseBudget | None:
        """Cloud Run's limit on a response that is not streamed (A2A_MAX_RESPONSE_BYTES; 32
        MiB unless set): a larger whole answer is refused with a typed error naming it, where
        the platform would cut it off. SSE streams go out live, chunked, and are not held to
        it."""
        from a2a_serverless.budget import ResponseBudget, response_limit

        limit = response_limit(self.settings.max_response_bytes, CLOUD_RUN_RESPONSE_BYTES)
        return ResponseBudget(limit, "Cloud Run") if limit is not None else None

    async def served(self) -> AsgiApp:
        """What answers a request: the A2A app, or the user's app (its lifespan entered on
        the first request of the process: functions-framework runs only its own)."""
        a2a = self.app()
        if self.asgi is None:
            return a2a
        if self._lifespan is None:
            from a2a_serverless.fastapi import AppLifespan

            self._lifespan = AppLifespan(self.asgi)
        await self._lifespan.start()
        lifespan, asgi = self._lifespan, self.asgi

        async def with_state(scope: Scope, receive: Receive, send: Send) -> None:
            await asgi(lifespan.scope(scope), receive, send)

        return with_state
