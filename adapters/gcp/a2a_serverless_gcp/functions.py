"""functions-framework entry points: the A2A HTTP handler and the worker handler, each a
function registered with functions-framework.

    # main.py
    from a2a_serverless_gcp import entry_points
    from my_agent import agent

    entry_points(__name__, agent)   # `a2a` and `worker`, each made when its target is asked for

    # or, by hand (both are built at import):
    from a2a_serverless_gcp import make_http_handler, make_worker_handler
    a2a = make_http_handler(agent)        # functions-framework --target a2a
    worker = make_worker_handler(agent)   # functions-framework --target worker

`make_http_handler(agent, app=api)` serves a FastAPI (or Starlette) app into which
`a2a_serverless.fastapi.mount_agent` put the agent: its own routes beside the agent's, with the
same set-up; the mount serves with the deployment's Runtime, and the app's lifespan (its
start-up, then the agent's) runs on the first request of each process. The worker given the app
too (`make_worker_handler(agent, app=...)`, which `entry_points` passes on) names its durable
calls' callbacks under the mount's prefix (a2a_serverless/mountprefix.py).

Both are registered with functions-framework's ASGI mode (`functions_framework.aio`), so they
run under uvicorn and SSE streams go out as they are written (Cloud Run and Cloud Functions gen2
hold a response open up to the request timeout: keep A2A_STREAM_TIMEOUT_S below it). Each is
registered under its `name`, which must be the `--target` (the variable's name above is just
the convention; functions-framework looks the target up by the registered name).

The names match the AWS adapter's (`make_http_handler`, `make_worker_handler`, `entry_points`,
`gcp=` beside `aws=`); `http_function` and `worker_function`, and the `config=` keyword, are
this adapter's earlier names, kept as deprecated aliases. The deployment (settings, queue, the
Runtime on first use) is deployment.py's; what the worker does with a request, delivery.py's.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from a2a_serverless import tracing
from a2a_serverless.agent import Agent
from a2a_serverless.config import Settings
from a2a_serverless.lazyface import build_on_first_use, imported
from a2a_serverless.observability import Observer

from .cloud_logging import trace_from_headers, traced
from .config import GcpSettings
from .delivery import handle_delivery
from .deployment import Deployment
from .worker_auth import WorkerAuth

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from a2a_serverless.asgi import Receive, Scope, Send

    from .deployment import AsgiApp

log = logging.getLogger("a2a_serverless_gcp.worker")

# What functions-framework calls: a Starlette request in, something Starlette can answer with.
HttpFunction = Callable[["Request"], Awaitable[Any]]


def make_http_handler(
    agent: Agent,
    *,
    app: Starlette | None = None,
    name: str = "a2a",
    settings: Settings | None = None,
    gcp: GcpSettings | None = None,
    observers: Sequence[Observer] = (),
    configure_logging: bool = True,
    config: GcpSettings | None = None,
    **runtime_options: Any,
) -> HttpFunction:
    """The A2A HTTP function serving `agent` (card, JSON-RPC, REST, SSE), registered with
    functions-framework as the ASGI HTTP function `name`.

    Settings come from A2A_* variables unless given (`settings=`, `gcp=`; `config=` is the
    deprecated name of `gcp=`); `runtime_options` go to `Runtime` (e.g. `store=`, `security=`).
    `configure_logging` installs Cloud Logging JSON on stdout. With `app`, the function serves
    that FastAPI (or Starlette) app, in which `mount_agent(app, agent, ...)` put the agent
    (ValueError if it did not).
    """
    deployment = Deployment(
        agent,
        settings,
        gcp if gcp is not None else config,
        observers,
        dict(runtime_options),
        configure_logging=configure_logging,
        asgi=app,
    )

    async def serve(request: Request) -> _AsgiResponse:
        return _AsgiResponse(await deployment.served())

    return _register(serve, name)


def make_worker_handler(
    agent: Agent,
    *,
    name: str = "worker",
    app: Starlette | str | None = None,
    settings: Settings | None = None,
    gcp: GcpSettings | None = None,
    observers: Sequence[Observer] = (),
    configure_logging: bool = True,
    config: GcpSettings | None = None,
    **runtime_options: Any,
) -> HttpFunction:
    """The worker function: runs the jobs Pub/Sub pushes and Cloud Tasks sends (delivery.py),
    registered with functions-framework as the ASGI HTTP function `name`.

    `app`: the FastAPI (or Starlette) app the HTTP function serves the agent in, or its
    "package.module:attribute" (imported when the first durable call names its callback): the
    worker sends the calls, whose callbacks are under the mount's prefix (mountprefix.py).

    Callers are checked as A2A_WORKER_AUTH says (`worker_auth.py`); with nothing configured
    this raises ConfigurationError rather than run jobs for anyone (unless functions-framework
    is serving another target of the module, which then needs no worker settings).
    """
    if app is not None:
        from a2a_serverless.mountprefix import mount_prefix

        runtime_options["public_prefix"] = mount_prefix(app, agent)
    deployment = Deployment(
        agent,
        settings,
        gcp if gcp is not None else config,
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


# Deprecated aliases: this adapter's names before they were the AWS adapter's.
http_function = make_http_handler
worker_function = make_worker_handler


def entry_points(
    module: str,
    agent: Agent,
    *,
    app: Starlette | str | None = None,
    http: str = "a2a",
    worker: str = "worker",
) -> None:
    """Give the module `module` (pass `__name__`) its two functions, `http` (the A2A HTTP
    function) and `worker`, each made when functions-framework asks for its target: a process
    builds only the function it serves and reads only that function's settings. The names are
    the `--target`s. `app` is the FastAPI (or Starlette) app holding the agent, if the HTTP
    function serves one, or its "package.module:attribute", imported when the HTTP function
    is made; the worker imports it only when its first durable call names its callback, under
    the mount's prefix (so a worker that makes no call does not import FastAPI)."""

    def http_handler() -> HttpFunction:
        served = imported(app) if isinstance(app, str) else app
        return make_http_handler(agent, name=http, app=served)

    build_on_first_use(
        module,
        {http: http_handler, worker: lambda: make_worker_handler(agent, name=worker, app=app)},
    )


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
