"""The HTTP entry point: API Gateway and friends, answered by the core's buffered entry.

    # handler.py, the function's handler "handler.handler"
    from a2a_serverless_aws import make_http_handler
    from my_agent import agent
    handler = make_http_handler(agent)

HTTP API (payload v2) and function URL events, what the kit's deployments use, are translated
by http_api.py and go straight to the core's buffered entry (`A2AApplication.respond_buffered`)
on the container's loop, without an ASGI message exchange. REST API (v1), ALB and Lambda@Edge
events go through Mangum's public entry, `Mangum(app, lifespan="off")(event, context)`, to an
ASGI app (`BufferedEntry`) that answers through the same buffered entry: Mangum's HTTP cycle (a
queue, a task and four messages) costs these events about 20 us more per warm call than a
payload v2 event. The response is buffered, so this function says `streaming: false`
on its card whatever A2A_STREAMING says: message/stream and tasks/resubscribe answer one
buffered SSE body covering `blocking_timeout_s`, and the rest reaches clients by push
notification (live SSE needs the Lambda Web Adapter, see web_adapter.py). Turns go to SQS
(A2A_SQS_QUEUE_URL) before the response returns; the worker function runs them.

Built once per container, at init: the Runtime (store, queue, signing keys), the kit's logging
and our EMF metrics; the powertools Logger itself on the first record logged (logs.py). Mangum
is imported and built on the first event that goes through it (at init with `app=`): a payload
v2 function never loads it. A named API Gateway stage is the scope's root path (http_api.py's
`staged`) for every event, however it is translated.

With `app=` (a FastAPI or Starlette app into which `a2a_serverless.fastapi.mount_agent` put the
agent), the handler serves that whole app: the same set-up (secrets, settings and timing checks,
logging, metrics, priming, SQS), the mount bound to the container's Runtime, and every event
(HTTP API ones too) run through the app by Mangum on the container's loop. The app's lifespan
(its start-up, then the agent's) runs once, at init, and its state reaches every request.

Mangum is used through its documented constructor and call alone (no subclassed handlers, no
`mangum.protocols`), within the range adapters/aws/pyproject.toml pins and the tests cover.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from a2a_serverless import tracing
from a2a_serverless.agent import Agent
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.budget import response_limit
from a2a_serverless.collector import paused_during_init
from a2a_serverless.config import Settings
from a2a_serverless.http import Receive, Request, Scope, Send
from a2a_serverless.observability import Observer

from .config import AwsSettings, check_http_timing, invocation_seconds
from .container import Container, service_name
from .http_api import TEXT_TYPES, event_response, is_http_api_event, request_from_event, staged
from .logs import deferred_logging, with_lambda_context
from .metrics import MetricsObserver
from .response_limit import LAMBDA_RESPONSE_BYTES, LambdaResponseBudget

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger
    from starlette.applications import Starlette

    from a2a_serverless.fastapi import AgentMount, AppLifespan

log = logging.getLogger("a2a_serverless_aws.http")

# The response types Mangum sends as text (its defaults, 0.19 to 0.22, with A2A 1.0's JSON);
# anything else goes base64-encoded.
MANGUM_TEXT_TYPES = [*TEXT_TYPES, "application/vnd.api+json", "application/vnd.oai.openapi"]


class HttpHandler:
    """A Lambda handler `(event, context) -> response` serving one agent over HTTP, alone or
    (`app=`) inside a FastAPI app."""

    @paused_during_init
    def __init__(
        self,
        agent: Agent,
        settings: Settings | None = None,
        aws: AwsSettings | None = None,
        *,
        app: Starlette | None = None,
        observers: Sequence[Observer] = (),
        **runtime_options: Any,
    ) -> None:
        mount: AgentMount | None = None
        if app is not None:
            from a2a_serverless.fastapi import mounted

            mount = mounted(app, agent)  # before anything is built: a deployment error
            runtime_options["public_prefix"] = mount.prefix
        self.aws = aws if aws is not None else AwsSettings.from_env()
        settings = settings if settings is not None else Settings.from_env()
        # Mangum cannot hold a response open: the card must not promise streaming.
        self.settings = dataclasses.replace(settings, streaming=False)
        check_http_timing(self.settings, self.aws)
        service = service_name(agent)
        # The powertools Logger is built on the first record the kit's loggers let through.
        self.logs = deferred_logging(service)
        self.metrics = MetricsObserver(service)
        self.container = Container(
            agent,
            self.settings,
            self.aws,
            observers=[self.metrics, *observers],
            **runtime_options,
        )
        # Lambda's limit on a response (A2A_MAX_RESPONSE_BYTES; 6 MiB unless set): a larger
        # answer is compressed for a client that accepts gzip, else refused with a typed error
        # (the app's own; with `app=`, the app's other routes are not held to it).
        limit = response_limit(self.settings.max_response_bytes, LAMBDA_RESPONSE_BYTES)
        self.budget = LambdaResponseBudget(limit) if limit is not None else None
        self.alb_budget = LambdaResponseBudget.for_alb(limit) if limit is not None else None
        # A REST API (v1) turns a base64 body back into bytes only for its binaryMediaTypes:
        # no gzip there.
        self.rest_api_budget = (
            LambdaResponseBudget(limit, compress=False) if limit is not None else None
        )
        self.asgi: Starlette | None = app
        self.lifespan: AppLifespan | None = None
        if app is None or mount is None:
            self.app = A2AApplication(self.container.runtime)
            served: Any = BufferedEntry(self.app, self.budget_for)
        else:
            from a2a_serverless.fastapi import AppLifespan

            self.app = mount.bind(self.container.runtime)
            self.lifespan = AppLifespan(app)
            self._run_app(self.lifespan.start())
            served = WholeApp(app, self.lifespan)
        self._served = served
        self._mangum: Callable[[dict[str, Any], Any], dict[str, Any]] | None = None
        if app is not None:
            self._mangum = self._make_mangum()  # every event goes through it
        entry = with_lambda_context(self.logs, self.lambda_handler)
        if self.aws.tracing:
            from .tracing import traced

            entry = traced(entry, service)
        self._entry = entry
        self._deadline_checked = False

    @property
    def logger(self) -> Logger:
        """The powertools Logger of the kit's records (built now if no record has been)."""
        return self.logs.logger

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        response: dict[str, Any] = self._entry(event, context)
        return response

    def lambda_handler(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """One invocation, inside the Logger's (and Tracer's) wrapping that `__call__` adds."""
        self._check_deadline(context)
        try:
            if self.asgi is None and is_http_api_event(event):
                return self._answer_http_api(event, context)
            return self._answer_through_mangum(event, context)
        finally:
            self.metrics.flush()
            # Spans are exported before Lambda freezes the process (with spans on).
            tracing.flush()

    def _answer_http_api(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        request = request_from_event(event, context)
        # The container's loop, every time: loop-bound clients made by earlier invocations stay
        # usable.
        return event_response(self.container.run(self.app.respond_buffered(request, self.budget)))

    def budget_for(self, event: dict[str, Any]) -> LambdaResponseBudget | None:
        """The response budget of an event Mangum translates: an ALB's, or a REST API's (v1:
        no gzip), or the HTTP API's."""
        if "elb" in (event.get("requestContext") or {}):
            return self.alb_budget
        if "version" not in event:
            return self.rest_api_budget
        return self.budget

    def _answer_through_mangum(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        # Mangum runs the app with `run_until_complete` on the current loop: the container's
        # (see `_run_app` on why not `Container.run`).
        asyncio.set_event_loop(self.container.loop)
        if self._mangum is None:
            self._mangum = self._make_mangum()
        return self._mangum(event, context)

    def _make_mangum(self) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        from mangum import Mangum

        # Lifespan "off": the app's own lifespan ran at init, once; nothing runs around a call.
        # Mangum's text types (0.19 to 0.22) and A2A 1.0's JSON are sent as text.
        made: Callable[[dict[str, Any], Any], dict[str, Any]] = Mangum(
            self._served, lifespan="off", text_mime_types=MANGUM_TEXT_TYPES
        )
        return made

    def _run_app(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run the app's work on the container's loop with `run_until_complete`, not
        `Container.run`: AnyIO (Starlette's sync routes, run in its worker threads) takes the
        task run_until_complete runs as its root and stops its worker threads as that task
        ends, in the same turn of the loop; after `Container.run` they would wait for the next
        invocation, and a process that ends (a test, a script) would wait for them forever."""
        loop = self.container.loop
        asyncio.set_event_loop(loop)
        loop.run_until_complete(coroutine)

    def _check_deadline(self, context: Any) -> None:
        # A function's timeout is the same for every invocation of an execution environment
        # (a new configuration starts new ones): the first invocation's look is enough.
        if self._deadline_checked:
            return
        self._deadline_checked = True
        seconds = invocation_seconds(context.get_remaining_time_in_millis())
        needed = self.settings.blocking_timeout_s + self.aws.lambda_timeout_margin_s
        if seconds < needed:
            # Not an error: most requests (tasks/get, the card) are quick. Said once.
            log.warning(
                "the function's timeout (%g s) is shorter than A2A_BLOCKING_TIMEOUT_S (%g s) plus "
                "the margin (%g s): blocking message/send and buffered streams will be cut off",
                seconds,
                self.settings.blocking_timeout_s,
                self.aws.lambda_timeout_margin_s,
            )

    def close(self) -> None:
        """Close the app's lifespan, the runtime and the loop (tests; in Lambda the process
        just ends)."""
        if self.lifespan is not None and not self.container.loop.is_closed():
            self._run_app(self.lifespan.stop())
        self.container.close()


class BufferedEntry:
    """The A2A app as the ASGI app Mangum runs: the request (its stage as the root path) goes to
    the core's buffered entry, and the response comes back in two messages."""

    def __init__(
        self,
        app: A2AApplication,
        budget_for: Callable[[dict[str, Any]], LambdaResponseBudget | None],
    ) -> None:
        self.app = app
        self.budget_for = budget_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = b""
        while True:  # Mangum sends the whole body in one message; read as ASGI allows
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        event = scope["aws.event"]
        request = Request(staged(scope, event), body=body)
        response = await self.app.respond_buffered(request, self.budget_for(event))
        headers = [(b"content-length", str(len(response.body)).encode()), *response.headers]
        await send({"type": "http.response.start", "status": response.status, "headers": headers})
        await send({"type": "http.response.body", "body": response.body})


class WholeApp:
    """A FastAPI (or Starlette) app holding the agent, as the ASGI app Mangum runs: each
    request with its stage as the root path and the state the app's lifespan gave."""

    def __init__(self, app: Starlette, lifespan: AppLifespan) -> None:
        self.app = app
        self.lifespan = lifespan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope = self.lifespan.scope(staged(scope, scope["aws.event"]))
        await self.app(scope, receive, send)


def make_http_handler(
    agent: Agent,
    settings: Settings | None = None,
    aws: AwsSettings | None = None,
    *,
    app: Starlette | None = None,
    **runtime_options: Any,
) -> HttpHandler:
    """The Lambda handler serving `agent` over HTTP (API Gateway v1/v2, ALB, function URL).

    Settings default to the `A2A_*` environment variables; `runtime_options` go to `Runtime`
    (e.g. `store=`, `security=`, `observers=`). With `app`, the handler serves that FastAPI
    (or Starlette) app, in which `mount_agent(app, agent, ...)` put the agent (ValueError if it
    did not): the app's routes beside the agent's, with this handler's set-up.
    """
    return HttpHandler(agent, settings, aws, app=app, **runtime_options)
