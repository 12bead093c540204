"""The HTTP entry point: API Gateway and friends, answered by the core's buffered entry.

    # handler.py, the function's handler "handler.handler"
    from a2a_serverless_aws import make_http_handler
    from my_agent import agent
    handler = make_http_handler(agent)

HTTP API (payload v2) and function URL events are translated by http_api.py; REST API (v1),
ALB and Lambda@Edge events by Mangum's event handlers. Either way the request goes straight to
the core's buffered entry (`A2AApplication.respond_buffered`) on the container's loop, without
an ASGI message exchange per request (Mangum's HTTP cycle: a queue, a task and four messages,
~20 us of every warm call). The response is buffered, so this function says `streaming: false`
on its card whatever A2A_STREAMING says: message/stream and tasks/resubscribe answer one
buffered SSE body covering `blocking_timeout_s`, and the rest reaches clients by push
notification (live SSE needs the Lambda Web Adapter, see web_adapter.py). Turns go to SQS
(A2A_SQS_QUEUE_URL) before the response returns; the worker function runs them.

Built once per container, at init: the Runtime (store, queue, signing keys), Mangum's
configuration (base path, text MIME types), the powertools Logger and our EMF metrics.

With `app=` (a FastAPI or Starlette app into which `a2a_serverless.fastapi.mount_agent` put the
agent), the handler serves that whole app: the same set-up (secrets, settings and timing checks,
logging, metrics, priming, SQS), the mount bound to the container's Runtime, and every event
(HTTP API ones too) run through the app by Mangum's HTTP cycle on the container's loop. The
app's lifespan (its start-up, then the agent's) runs once, at init.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, cast

from a2a_serverless import tracing
from a2a_serverless.agent import Agent
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.budget import response_limit
from a2a_serverless.collector import paused_during_init
from a2a_serverless.config import Settings
from a2a_serverless.http import Request
from a2a_serverless.observability import Observer

from .config import AwsSettings, check_http_timing, invocation_seconds
from .container import Container, service_name
from .http_api import event_response, is_http_api_event, request_from_event, staged
from .logs import configure_logging, with_lambda_context
from .metrics import MetricsObserver
from .response_limit import LAMBDA_RESPONSE_BYTES, LambdaResponseBudget

if TYPE_CHECKING:
    from mangum.types import LambdaHandler
    from starlette.applications import Starlette

    from a2a_serverless.fastapi import AgentMount, AppLifespan

log = logging.getLogger("a2a_serverless_aws.http")


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
        from mangum import Mangum
        from mangum.adapter import DEFAULT_TEXT_MIME_TYPES

        mount: AgentMount | None = None
        if app is not None:
            from a2a_serverless.fastapi import mounted

            mount = mounted(app, agent)  # before anything is built: a deployment error
        self.aws = aws if aws is not None else AwsSettings.from_env()
        settings = settings if settings is not None else Settings.from_env()
        # Mangum cannot hold a response open: the card must not promise streaming.
        self.settings = dataclasses.replace(settings, streaming=False)
        check_http_timing(self.settings, self.aws)
        service = service_name(agent)
        self.logger = configure_logging(service)
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
        else:
            from a2a_serverless.fastapi import AppLifespan

            self.app = mount.bind(self.container.runtime)
            self.lifespan = AppLifespan(app)
            self._run_app(self.lifespan.start())
        # Only Mangum's event handlers are used (`infer`, then the handler's scope, body and
        # response format), never its ASGI cycle; lifespan "off" as nothing runs around a call.
        self.mangum = Mangum(
            self.app,
            lifespan="off",
            custom_handlers=_event_handlers(),
            text_mime_types=[*DEFAULT_TEXT_MIME_TYPES, "application/a2a+json"],
        )
        entry = with_lambda_context(self.logger, self.lambda_handler)
        if self.aws.tracing:
            from .tracing import traced

            entry = traced(entry, service)
        self._entry = entry
        self._short_timeout_logged = False

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        response: dict[str, Any] = self._entry(event, context)
        return response

    def lambda_handler(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """One invocation, inside the Logger's (and Tracer's) wrapping that `__call__` adds."""
        self._check_deadline(context)
        try:
            if self.asgi is not None:
                return self._answer_through_app(event, context)
            if is_http_api_event(event):
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

    def _answer_through_mangum(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        source = self.mangum.infer(event, context)
        request = Request(source.scope, body=source.body)
        budget = self.budget
        if "elb" in (event.get("requestContext") or {}):
            budget = self.alb_budget
        elif "version" not in event:
            budget = self.rest_api_budget
        response = self.container.run(self.app.respond_buffered(request, budget))
        headers = [[b"content-length", str(len(response.body)).encode()]]
        headers += [[name, value] for name, value in response.headers]
        answer: dict[str, Any] = source(
            {"status": response.status, "headers": headers, "body": response.body}
        )
        return answer

    def _answer_through_app(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """The event through the whole app (its routes, middleware and the mounted agent)."""
        from mangum.protocols.http import HTTPCycle

        assert self.asgi is not None and self.lifespan is not None
        source = self.mangum.infer(event, context)
        cycle = HTTPCycle(self.lifespan.scope(dict(source.scope)), source.body)
        self._run_app(cycle.run(self.asgi))
        answer: dict[str, Any] = source(
            {"status": cycle.status, "headers": cycle.headers, "body": cycle.body}
        )
        return answer

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
        if self._short_timeout_logged:
            return
        seconds = invocation_seconds(context.get_remaining_time_in_millis())
        needed = self.settings.blocking_timeout_s + self.aws.lambda_timeout_margin_s
        if seconds < needed:
            # Not an error: most requests (tasks/get, the card) are quick. Said once.
            self._short_timeout_logged = True
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


@functools.cache
def _event_handlers() -> list[type[LambdaHandler]]:
    """Mangum's event handlers, each computing its request scope once per event.

    Mangum's handlers build the scope anew on every access of the property, and their response
    formatting reads it again; these subclasses (Mangum's `custom_handlers`, tried first, same
    order as Mangum's own) keep it. API Gateway's put a named stage in the root path, as
    http_api.py does (Mangum routes `/prod/...` as it came, or drops the stage of a REST API).
    """
    from mangum.handlers import ALB, APIGateway, HTTPGateway, LambdaAtEdge

    handlers: list[type[LambdaHandler]] = []
    for base in (ALB, HTTPGateway, APIGateway, LambdaAtEdge):
        build_scope = cast(property, base.__dict__["scope"]).fget
        assert build_scope is not None
        if base in (HTTPGateway, APIGateway):
            build_scope = _with_stage(build_scope)
        scope = functools.cached_property(build_scope)
        handler = type(base.__name__, (base,), {"scope": scope, "__module__": __name__})
        scope.__set_name__(handler, "scope")
        handlers.append(handler)
    return handlers


def _with_stage(build_scope: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An API Gateway handler's scope, with a named stage as its root path (`staged`)."""

    def scope(handler: Any) -> Any:
        return staged(build_scope(handler), handler.event)

    return scope


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
