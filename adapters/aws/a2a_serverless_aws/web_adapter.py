"""Live SSE on Lambda: the app under uvicorn, behind the AWS Lambda Web Adapter.

Mangum buffers responses; a function URL in RESPONSE_STREAM mode can stream them, and the Lambda
Web Adapter (a Lambda extension, attached as a layer) turns each invocation into an HTTP request
to a web server inside the function and streams its response back. This module is that server:

    # run.sh, the function's handler (with AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap)
    exec python -m a2a_serverless_aws.web_adapter my_agent:agent
    exec python -m a2a_serverless_aws.web_adapter my_app.api:api   # a FastAPI app, agent inside

It serves `create_web_app(agent)` (or `create_web_app(agent, app=api)`) with uvicorn on
127.0.0.1:$AWS_LWA_PORT (else $PORT, else 8080, the adapter's own defaults). The card tells the
truth about streaming: `true` when AWS_LWA_INVOKE_MODE=response_stream, `false` when the adapter
buffers (its default inside Lambda); outside Lambda (no AWS_LWA_INVOKE_MODE, no
AWS_LAMBDA_FUNCTION_NAME) A2A_STREAMING decides. A live stream is bounded by the function's
timeout: stream_timeout_s defaults to A2A_LAMBDA_TIMEOUT_S minus the margin (an explicit
A2A_STREAM_TIMEOUT_S that does not fit is an error), so streams end cleanly and clients
resubscribe with Last-Event-ID.

Behind API Gateway on a named stage, the stage (from the adapter's `x-amzn-request-context`
header, read only inside Lambda) is the root path: the routes see the path below it and the
card names it (a function URL has no stage).

Turns still go to SQS and run in the worker function; the stream follows the task's event log in
the store, so it shows the worker's writes as they land.

A FastAPI (or Starlette) app into which `a2a_serverless.fastapi.mount_agent` put the agent is
served whole, its routes beside the agent's, with the same set-up: the mount is bound to the
Runtime built here, and uvicorn runs the app's lifespan (the agent's start-up, then the app's).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from a2a_serverless.agent import Agent
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.config import Settings
from a2a_serverless.observability import Observer
from a2a_serverless.publicurl import api_gateway_stage

from .config import AwsSettings, check_http_timing, streaming_timeout
from .container import service_name
from .logs import configure_logging
from .metrics import MetricsObserver
from .sqs import SqsQueue

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger
    from starlette.applications import Starlette

    from a2a_serverless.runtime import Runtime

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

# The header in which the Web Adapter passes the invocation's Lambda context (JSON).
LAMBDA_CONTEXT_HEADER = b"x-amzn-lambda-context"
# The header in which it passes the event's request context (JSON): API Gateway's stage.
REQUEST_CONTEXT_HEADER = b"x-amzn-request-context"
DEFAULT_PORT = 8080


def adapter_streams(environ: Mapping[str, str]) -> bool | None:
    """Whether the Web Adapter streams responses: True, False, or None outside Lambda."""
    mode = environ.get("AWS_LWA_INVOKE_MODE")
    if mode:
        return mode.strip().lower() == "response_stream"
    if environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return False  # the adapter's default mode is buffered
    return None


class WebAdapterApp:
    """The A2A app (or the FastAPI app holding the agent) plus, per request: the Lambda request
    id in the logs, metrics flushed."""

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        runtime: Runtime,
        logger: Logger,
        metrics: MetricsObserver,
        *,
        behind_adapter: bool = False,
    ) -> None:
        self.app = app
        self.runtime = runtime
        self.logger = logger
        self.metrics = metrics
        # Inside Lambda the adapter writes the request-context header itself; elsewhere any
        # client could, so it is read only there.
        self.behind_adapter = behind_adapter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.behind_adapter:
            scope = _staged(scope)
        with self._request_keys(scope):
            try:
                await self.app(scope, receive, send)
            finally:
                self.metrics.flush()

    @contextlib.contextmanager
    def _request_keys(self, scope: Scope) -> Iterator[None]:
        keys = {}
        for name, value in scope.get("headers", []):
            if name == LAMBDA_CONTEXT_HEADER:
                with contextlib.suppress(ValueError, AttributeError):
                    request_id = json.loads(value).get("request_id")
                    if request_id:
                        keys["function_request_id"] = str(request_id)
        if not keys:
            yield
            return
        with self.logger.append_context_keys(**keys):
            yield


def _staged(scope: Scope) -> Scope:
    """`scope` with a named API Gateway stage (from the adapter's request-context header) as
    its root path: routed below it, named in the card. The adapter passes the path with the
    stage in it, or without (AWS_LWA_REMOVE_BASE_PATH); a function URL has no stage."""
    for name, value in scope.get("headers", []):
        if name == REQUEST_CONTEXT_HEADER:
            try:
                context = json.loads(value)
            except ValueError:
                return scope
            if not isinstance(context, dict):
                return scope
            stage = api_gateway_stage({"requestContext": context})
            if not stage or scope.get("root_path"):
                return scope
            path: str = scope["path"]
            if path != stage and not path.startswith(stage + "/"):
                path = stage + path
            return {**scope, "root_path": stage, "path": path}
    return scope


def create_web_app(
    agent: Agent,
    settings: Settings | None = None,
    aws: AwsSettings | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    app: Starlette | None = None,
    observers: Sequence[Observer] = (),
    **runtime_options: Any,
) -> WebAdapterApp:
    """The ASGI app the Web Adapter forwards to (see the module docstring for the settings).
    With `app`, that FastAPI (or Starlette) app, in which `mount_agent(app, agent, ...)` put the
    agent (ValueError if it did not), served whole with this set-up."""
    mount = None
    if app is not None:
        from a2a_serverless.fastapi import mounted

        mount = mounted(app, agent)  # before anything is built: a deployment error
        runtime_options["public_prefix"] = mount.prefix
    environ = os.environ if environ is None else environ
    aws = aws if aws is not None else AwsSettings.from_env(environ)
    settings = settings if settings is not None else Settings.from_env(environ)
    # Set on purpose (by the variable, or to anything but the default): never silently lowered.
    explicit = (
        "A2A_STREAM_TIMEOUT_S" in environ or settings.stream_timeout_s != Settings.stream_timeout_s
    )
    streams = adapter_streams(environ)
    settings = dataclasses.replace(
        settings,
        streaming=settings.streaming if streams is None else streams,
        stream_timeout_s=streaming_timeout(settings, aws, explicit=explicit),
    )
    check_http_timing(settings, aws)
    service = service_name(agent)
    logger = configure_logging(service)
    metrics = MetricsObserver(service)
    if "queue" not in runtime_options:
        runtime_options["queue"] = SqsQueue(
            aws.require_queue_url(), webhook_queue_url=aws.sqs_webhook_queue_url
        )
    from a2a_serverless.runtime import Runtime

    from .secrets import resolve_secrets

    settings = resolve_secrets(settings)
    runtime = Runtime(agent, settings, observers=[metrics, *observers], **runtime_options)
    behind_adapter = streams is not None
    if app is None or mount is None:
        return WebAdapterApp(
            A2AApplication(runtime), runtime, logger, metrics, behind_adapter=behind_adapter
        )
    # uvicorn runs the app's lifespan, which starts the runtime and closes it at shutdown.
    mount.bind(runtime, owned=True)
    return WebAdapterApp(app, runtime, logger, metrics, behind_adapter=behind_adapter)


def load_target(target: str) -> tuple[Agent, Starlette | None]:
    """The agent `target` names, and the FastAPI app holding it if it names one: the rules
    of `a2a-serverless dev` ("module:attribute", or a module with one agent), imported from
    the working directory. An app must hold exactly one agent: this function serves one."""
    from a2a_serverless.devserver import TargetError, load

    try:
        value = load(target)
    except TargetError as exc:
        raise SystemExit(str(exc)) from None
    if isinstance(value, Agent):
        return value, None
    if isinstance(value, A2AApplication):
        raise SystemExit(
            f"{target} is an app made by create_app: name its agent instead, so the app is "
            "built with this entry point's settings and queue"
        )
    from a2a_serverless.fastapi import agent_mounts

    mounts = agent_mounts(value)
    if len(mounts) != 1:
        prefixes = ", ".join(m.prefix for m in mounts)
        raise SystemExit(
            f"{target} holds {len(mounts)} agents ({prefixes}): this entry point serves one"
        )
    return mounts[0].agent, value


def port(environ: Mapping[str, str]) -> int:
    """The port the Web Adapter forwards to: AWS_LWA_PORT, else PORT, else 8080."""
    raw = environ.get("AWS_LWA_PORT") or environ.get("PORT") or str(DEFAULT_PORT)
    return int(raw)


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m a2a_serverless_aws.web_adapter module:agent` (or `module:api`, a FastAPI app
    holding the agent): serve it for the Web Adapter."""
    import uvicorn

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        raise SystemExit("usage: python -m a2a_serverless_aws.web_adapter module:agent|module:app")
    agent, api = load_target(args[0])
    app = create_web_app(agent, app=api)
    # The adapter connects over loopback; uvicorn's access log would duplicate the JSON logs.
    uvicorn.run(
        app,
        host=os.environ.get("AWS_LWA_HOST", "127.0.0.1"),
        port=port(os.environ),
        access_log=False,
        log_level="warning",
        timeout_graceful_shutdown=5,
    )


if __name__ == "__main__":
    main()
