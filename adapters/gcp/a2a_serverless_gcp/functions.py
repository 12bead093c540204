"""functions-framework entry points: the A2A HTTP function and the worker function.

    # main.py
    from a2a_serverless_gcp import http_function, worker_function
    from my_agent import agent

    a2a = http_function(agent)        # functions-framework --target a2a
    worker = worker_function(agent)   # functions-framework --target worker

`http_function(agent, app=api)` serves a FastAPI (or Starlette) app into which
`a2a_serverless.fastapi.mount_agent` put the agent: its own routes beside the agent's, with the
same set-up; the mount serves with the deployment's Runtime, and the app's lifespan (its
start-up, then the agent's) runs on the first request of each process.

Both are registered with functions-framework's ASGI mode (`functions_framework.aio`), so they
run under uvicorn and SSE streams go out as they are written (Cloud Run and Cloud Functions gen2
hold a response open up to the request timeout: keep A2A_STREAM_TIMEOUT_S below it). Each is
registered under its `name`, which must be the `--target` (the variable's name above is just
the convention; functions-framework looks the target up by the registered name).

The worker function takes every way a job arrives and answers as the sender expects:

- a Pub/Sub push (the push body, or a CloudEvent carrying `MessagePublishedData` as Eventarc
  sends it): 2xx acks; 503 (retry later) and 500 (failure) nack, so Pub/Sub redelivers with its
  retry policy's back-off and dead-letters the message after max_delivery_attempts. A message
  from the dead-letter topic (pushed to this function by a subscription on that topic) is
  abandoned: the task fails with the reason. When the push says which delivery attempt it is
  and it is the last (A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS), a failure abandons the job at once;
- a Cloud Tasks request: 2xx done, 500 retried by Cloud Tasks; the last attempt
  (A2A_CLOUD_TASKS_MAX_ATTEMPTS) abandons the job instead of failing.

What comes of each delivery is the core's delivery policy (`a2a_serverless.queue.disposition`),
run by the runtime's job router (`Runtime.jobs`). A job that asks to come again later
(`RetryJob`: a webhook's back-off, a turn leased by another worker) is queued again with its
delay on Cloud Tasks when a queue is configured, and acked; without one it is nacked (see
`_later`). A failure on the last attempt abandons the job with a reason that carries no
exception text (the log has it).

Nothing connects to Google Cloud at import or when the function is built: the runtime (store,
queue clients) is made by the first request of each process, after functions-framework's
gunicorn has forked its worker, in the event loop that serves it. Settings are read and checked
when the function is built, so a misconfigured deployment fails at start-up; the modules the
first request needs are imported then too (priming.py, unless A2A_PRIME=false).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from a2a_serverless import tracing
from a2a_serverless.agent import Agent
from a2a_serverless.collector import paused_during_init
from a2a_serverless.config import Settings
from a2a_serverless.observability import Observer, correlated
from a2a_serverless.queue.base import Job, Queue
from a2a_serverless.queue.disposition import (
    Abandon,
    Done,
    RetryAfter,
    deliver,
    error_text,
)

from .cloud_logging import TraceContext, install_logging, trace_from_headers, traced
from .config import ConfigError, GcpConfig
from .priming import prime
from .routing import RoutedQueue
from .worker_auth import WorkerAuth

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from a2a_serverless.asgi import A2AApplication, Receive, Scope, Send
    from a2a_serverless.budget import ResponseBudget
    from a2a_serverless.fastapi import AgentMount, AppLifespan
    from a2a_serverless.runtime import Runtime

    AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("a2a_serverless_gcp.worker")

# Cloud Run's (and so Cloud Run functions') limit on an HTTP/1 response that is not streamed.
CLOUD_RUN_RESPONSE_BYTES = 32 * 1024 * 1024
# What functions-framework calls: a Starlette request in, something Starlette can answer with.
HttpFunction = Callable[["Request"], Awaitable[Any]]

ACK = 204
RETRY_LATER = 503
FAILED = 500
# What became of a job given up on, as its task's client reads it: it is acked, so no queue
# keeps it.
GIVEN_UP = "was given up"


def build_queue(config: GcpConfig) -> RoutedQueue:
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

        assert config.cloud_tasks_url is not None  # GcpConfig checks it
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
    raise ConfigError(
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
        config: GcpConfig | None,
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
        self.settings = settings if settings is not None else Settings.from_env()
        self.config = config if config is not None else GcpConfig.from_env()
        if configure_logging:
            install_logging(self.config.project, self.config.log_level)
        if self.settings.otel:
            # Now, not with the Runtime on the first request: a worker's first job must
            # already be a span (and a missing extra is a start-up error).
            tracing.enable()
        if self.config.prime:
            prime(self.settings, self.config)
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


def http_function(
    agent: Agent,
    *,
    app: Starlette | None = None,
    name: str = "a2a",
    settings: Settings | None = None,
    config: GcpConfig | None = None,
    observers: Sequence[Observer] = (),
    configure_logging: bool = True,
    **runtime_options: Any,
) -> HttpFunction:
    """The A2A HTTP function serving `agent` (card, JSON-RPC, REST, SSE), registered with
    functions-framework as the ASGI HTTP function `name`.

    Settings come from A2A_* variables unless given; `runtime_options` go to `Runtime` (e.g.
    `store=`, `security=`). `configure_logging` installs Cloud Logging JSON on stdout. With
    `app`, the function serves that FastAPI (or Starlette) app, in which `mount_agent(app,
    agent, ...)` put the agent (ValueError if it did not).
    """
    deployment = Deployment(
        agent,
        settings,
        config,
        observers,
        dict(runtime_options),
        configure_logging=configure_logging,
        asgi=app,
    )

    async def serve(request: Request) -> _AsgiResponse:
        return _AsgiResponse(await deployment.served())

    return _register(serve, name)


def worker_function(
    agent: Agent,
    *,
    name: str = "worker",
    settings: Settings | None = None,
    config: GcpConfig | None = None,
    observers: Sequence[Observer] = (),
    configure_logging: bool = True,
    **runtime_options: Any,
) -> HttpFunction:
    """The worker function: runs the jobs Pub/Sub pushes and Cloud Tasks sends (see the module
    docstring), registered with functions-framework as the ASGI HTTP function `name`.

    Callers are checked as A2A_WORKER_AUTH says (`worker_auth.py`); with nothing configured
    this raises ConfigError rather than run jobs for anyone (unless functions-framework is
    serving another target of the module, which then needs no worker settings).
    """
    deployment = Deployment(
        agent,
        settings,
        config,
        observers,
        dict(runtime_options),
        configure_logging=configure_logging,
    )
    # functions-framework names the function it serves (FUNCTION_TARGET) before it loads
    # main.py: a process serving another function of the module (the A2A HTTP function) needs
    # no worker settings. Elsewhere a missing one fails now, at start-up.
    target = os.environ.get("FUNCTION_TARGET")
    auth = None if target and target != name else WorkerAuth(deployment.config)
    if auth is not None:
        _check_turn_bound(deployment)

    async def work(request: Request) -> Response:
        from starlette.responses import PlainTextResponse, Response

        nonlocal auth
        if auth is None:
            auth = WorkerAuth(deployment.config)
        headers = dict(request.headers)  # Starlette's keys are lower-case
        denied = await auth.check(headers, request.url.query)
        if denied is not None:
            log.warning("worker request refused (%d): %s", denied.status, denied.reason)
            return PlainTextResponse(denied.reason, status_code=denied.status)
        body = await request.body()
        status = await handle_delivery(deployment, body, headers)
        return Response(status_code=status)

    return _register(work, name)


def _check_turn_bound(deployment: Deployment) -> None:
    """Warn when a turn whose worker dies on every Cloud Tasks dispatch could be dropped before
    the worker fails its task: Cloud Tasks has no dead-letter queue, so only the worker's own
    limit of starts (A2A_WORKER_MAX_ATTEMPTS) ends such a turn, and a task gets as many
    dispatches as A2A_CLOUD_TASKS_MAX_ATTEMPTS says."""
    config, settings = deployment.config, deployment.settings
    if config.cloud_tasks_queue is None:
        return
    if config.cloud_tasks_max_attempts <= settings.worker_max_attempts:
        log.warning(
            "A2A_CLOUD_TASKS_MAX_ATTEMPTS=%d is not above A2A_WORKER_MAX_ATTEMPTS=%d: a job "
            "whose worker dies on every Cloud Tasks dispatch may be dropped before its task is "
            "failed (Cloud Tasks keeps no dead letters); keep it higher",
            config.cloud_tasks_max_attempts,
            settings.worker_max_attempts,
        )


@dataclass(frozen=True, slots=True)
class Delivery:
    """A job as one queue delivered it, with what that delivery says about retries."""

    job: Job
    source: str  # "pubsub" or "cloud-tasks"
    attempt: int | None
    last_attempt: bool
    dead_letter_reason: str | None = None
    not_before_ms: int | None = None
    trace: TraceContext | None = None
    # For its span: the subscription or queue it came from, the message's id there.
    destination: str = ""
    message_id: str | None = None

    @property
    def messaging_system(self) -> str:
        return "gcp_pubsub" if self.source == "pubsub" else "gcp_cloud_tasks"


def parse_delivery(body: bytes, headers: dict[str, str], config: GcpConfig) -> Delivery:
    """The job in a worker request; ValueError if it carries none."""
    from .cloud_tasks import is_task_request, parse_task_request

    if is_task_request(headers):
        task = parse_task_request(body, headers)
        return Delivery(
            job=task.job,
            source="cloud-tasks",
            attempt=task.attempt,
            last_attempt=task.attempt >= config.cloud_tasks_max_attempts,
            trace=task.trace,
            # Cloud Tasks names the queue alone; its emulator gives the full path.
            destination=task.queue_name.rsplit("/", 1)[-1],
            message_id=task.task_name or None,
        )
    from .pubsub import parse_push

    pushed = parse_push(body, headers)
    attempt = pushed.delivery_attempt
    return Delivery(
        job=pushed.job,
        source="pubsub",
        attempt=attempt,
        last_attempt=attempt is not None and attempt >= config.pubsub_max_delivery_attempts,
        dead_letter_reason=pushed.dead_letter_reason,
        not_before_ms=pushed.not_before_ms,
        trace=pushed.trace or trace_from_headers(headers),
        destination=(pushed.subscription or "").rsplit("/", 1)[-1],
        message_id=pushed.message_id or None,
    )


async def handle_delivery(deployment: Deployment, body: bytes, headers: dict[str, str]) -> int:
    """Run the job of one worker request; the HTTP status tells the queue what to do next."""
    try:
        delivery = parse_delivery(body, headers, deployment.config)
    except ValueError as exc:
        # Retrying cannot make it a job: ack it, and say so.
        log.error("worker request without a job, dropped: %s", exc)
        return ACK
    job = delivery.job
    # The job's work continues the trace it was queued in (tracing.py); log lines join it too.
    consuming = tracing.consuming(
        job,
        delivery.messaging_system,
        delivery.destination,
        message_id=delivery.message_id,
        delivery_attempt=delivery.attempt,
    )
    with traced(delivery.trace), correlated(task_id=job.task_id), consuming:
        return await _run(deployment, delivery)


async def _run(deployment: Deployment, delivery: Delivery) -> int:
    job = delivery.job
    jobs = deployment.runtime().jobs
    if delivery.dead_letter_reason is not None:
        log.error("job %s (%s) abandoned: %s", job.id, job.kind, delivery.dead_letter_reason)
        await jobs.abandon(job, delivery.dead_letter_reason)
        return ACK
    if delivery.not_before_ms is not None:
        wait_s = delivery.not_before_ms / 1000 - time.time()
        if wait_s > 0:
            return await _later(deployment, delivery, wait_s, "not due yet")
    started = time.monotonic()
    disposition = await deliver(
        jobs.handle,
        job,
        delivery=delivery.attempt or 1,
        last_attempt=delivery.last_attempt,
        # Acked after the abandonment: the queue keeps nothing of it.
        fate=GIVEN_UP,
    )
    match disposition:
        case Done():
            log.info(
                "job %s (%s) from %s done in %.0f ms",
                job.id,
                job.kind,
                delivery.source,
                (time.monotonic() - started) * 1000,
            )
            return ACK
        case RetryAfter(planned=True):
            return await _later(deployment, delivery, disposition.delay_s, disposition.reason)
        case RetryAfter():
            log.warning(
                "job %s (%s) failed on attempt %s from %s; the queue will retry it: %s",
                job.id,
                job.kind,
                delivery.attempt or "?",
                delivery.source,
                disposition.reason,
            )
            return FAILED
        case Abandon():
            log.error(
                "job %s (%s) failed on its last attempt (%s), abandoned",
                job.id,
                job.kind,
                error_text(disposition.error),
            )
            await jobs.abandon(job, disposition.reason)
            return ACK


async def _later(deployment: Deployment, delivery: Delivery, delay_s: float, why: str) -> int:
    """The job must come again in `delay_s` (a planned retry, or an early delivery).

    Where the deployment's queue can wait (Cloud Tasks is configured) a copy is queued with that
    delay and this delivery acked, so a planned retry never spends one of the delivering
    queue's attempts — the rule of every queue (queue/disposition.py), for every kind of job: a
    webhook job is bounded by the notifier's own attempts, a turn by the worker's
    A2A_WORKER_MAX_ATTEMPTS starts. Without Cloud Tasks (Pub/Sub alone cannot delay a message)
    it is nacked: the subscription's back-off brings it back, an attempt spent each time.
    """
    job = delivery.job
    if deployment.queue.supports_delay:
        await deployment.queue.enqueue(job.next_attempt(), delay_s=max(delay_s, 0.0))
        log.info("job %s (%s) queued again in %.3g s: %s", job.id, job.kind, delay_s, why)
        return ACK
    log.info(
        "job %s (%s) nacked (%s); the queue redelivers it after its back-off (wanted %.3g s)",
        job.id,
        job.kind,
        why,
        delay_s,
    )
    return RETRY_LATER


class _AsgiResponse:
    """What the HTTP function returns: Starlette awaits it as an ASGI app, so the A2A app (or
    the user's app holding it) answers the request itself (streaming included) with the
    request's own scope."""

    def __init__(self, app: AsgiApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
        }
        trace = trace_from_headers(headers)
        # The core carries the request's trace to the jobs it queues (and reads `traceparent`
        # itself, first): an X-Cloud-Trace-Context alone is handed over in W3C form.
        with traced(trace), tracing.use(trace.w3c() if trace is not None else None):
            await self.app(scope, receive, send)


def _register(function: Callable[..., Awaitable[Any]], name: str) -> HttpFunction:
    """Register `function` with functions-framework as the ASGI HTTP function `name`."""
    if not name.isidentifier():
        raise ValueError(f"function name {name!r} must be a Python identifier (the --target)")
    import functions_framework.aio

    function.__name__ = name
    function.__qualname__ = name
    return cast(HttpFunction, functions_framework.aio.http(function))
