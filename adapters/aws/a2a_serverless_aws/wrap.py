"""Turn an existing AWS Lambda handler into an A2A agent.

    from a2a_serverless_aws.wrap import wrap_lambda_handler
    from orders.app import handler          # def handler(event, context): ...

    agent = wrap_lambda_handler(handler, name="Orders", description="Looks up orders.")

Each turn calls the handler once, in a worker thread (async handlers are awaited):

- **event**: with ``event="direct"`` (the default) the message as one JSON value
  (`a2a_serverless.wrap.message_payload`: a data part's object, JSON text parsed, other text as
  ``{"text": ...}``). With ``event="api-gateway"`` an API Gateway HTTP API (v2) ``POST``
  event whose body is that JSON, for handlers written behind API Gateway.
- **context**: a `LambdaContext` like the runtime's: ``aws_request_id`` is the task id,
  ``get_remaining_time_in_millis()`` counts down the agent's time budget.
- **result**: text, a dict or a list becomes the task's artifact; an API Gateway proxy response
  (a dict with ``statusCode``) is unwrapped: its body is the artifact, a 4xx/5xx status fails
  the task with the body as the reason.
- **exceptions** fail the task with ``"<ErrorType>: <message>"``, as Lambda reports an error to
  its invoker (``expose_errors=False`` gives the client a generic message instead); the
  traceback goes to the log.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Unpack

from a2a_serverless.agent import Agent, CardOptions
from a2a_serverless.executor import TaskUpdater
from a2a_serverless.turn import Context, Failed, TurnOutcome
from a2a_serverless.wrap import http_result_parts, message_payload, result_parts, wrapped_agent

log = logging.getLogger("a2a_serverless_aws.wrap")

EventStyle = Literal["direct", "api-gateway"]
# The turn's time budget when the agent sets none: Lambda's own maximum.
DEFAULT_BUDGET_S = 900.0


@dataclass
class LambdaContext:
    """What a Lambda handler's `context` argument offers, for a handler run outside Lambda."""

    function_name: str
    aws_request_id: str
    deadline_s: float
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 128
    invoked_function_arn: str = ""
    log_group_name: str = ""
    log_stream_name: str = ""
    identity: Any = None
    client_context: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline_s - time.monotonic()) * 1000))


class LambdaHandlerExecutor:
    # The handler runs in the loop's default executor, whose thread priming starts at init.
    runs_in_threads = True

    def __init__(
        self,
        handler: Callable[[Any, Any], Any],
        *,
        event: EventStyle = "direct",
        function_name: str | None = None,
        time_budget_s: float | None = None,
        expose_errors: bool = True,
    ) -> None:
        if event not in ("direct", "api-gateway"):
            raise ValueError(f"event must be 'direct' or 'api-gateway', not {event!r}")
        self.handler = handler
        self.event = event
        self.function_name = function_name or str(getattr(handler, "__name__", "handler"))
        self.time_budget_s = time_budget_s or DEFAULT_BUDGET_S
        self.expose_errors = expose_errors

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work()
        payload = message_payload(context)
        event = payload if self.event == "direct" else _api_gateway_event(payload, context)
        lambda_context = LambdaContext(
            function_name=self.function_name,
            aws_request_id=context.task_id,
            deadline_s=time.monotonic() + self.time_budget_s,
            memory_limit_in_mb=int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")),
        )
        try:
            result = await self._call(event, lambda_context)
        except TurnOutcome:
            raise
        except Exception as exc:
            log.exception(
                "wrapped handler %s failed on task %s", self.function_name, context.task_id
            )
            if self.expose_errors:
                raise Failed(f"{type(exc).__name__}: {exc}") from exc
            raise Failed("The wrapped handler failed.") from exc
        parts = _proxy_parts(result) if _is_proxy_response(result) else result_parts(result)
        if parts:
            await updater.add_artifact(parts, name="result")
        await updater.complete()

    async def _call(self, event: Any, lambda_context: LambdaContext) -> Any:
        if inspect.iscoroutinefunction(self.handler):
            return await self.handler(event, lambda_context)
        result = await asyncio.to_thread(self.handler, event, lambda_context)
        if inspect.isawaitable(result):
            result = await result
        return result


def wrap_lambda_handler(
    handler: Callable[[Any, Any], Any],
    *,
    name: str | None = None,
    description: str | None = None,
    event: EventStyle = "direct",
    time_budget_s: float | None = None,
    expose_errors: bool = True,
    **card: Unpack[CardOptions],
) -> Agent:
    """An Agent whose turns call `handler(event, context)`; see the module docstring. The
    card's fields (`CardOptions`) default to `Agent`'s, but the modes are text and JSON."""
    function_name = getattr(handler, "__name__", "handler")
    executor = LambdaHandlerExecutor(
        handler,
        event=event,
        function_name=function_name,
        time_budget_s=time_budget_s,
        expose_errors=expose_errors,
    )
    return wrapped_agent(
        handler,
        executor,
        function_name=function_name,
        kind="Lambda handler",
        name=name,
        description=description,
        time_budget_s=time_budget_s,
        card=card,
        caller="wrap_lambda_handler",
    )


def _api_gateway_event(payload: Any, context: Context) -> dict[str, Any]:
    body = json.dumps(payload)
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": "POST /",
        "rawPath": "/",
        "rawQueryString": "",
        "headers": {"content-type": "application/json", "content-length": str(len(body))},
        "requestContext": {
            "http": {"method": "POST", "path": "/", "protocol": "HTTP/1.1", "sourceIp": ""},
            "requestId": context.task_id,
            "routeKey": "POST /",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": body,
        "isBase64Encoded": False,
    }


def _is_proxy_response(result: Any) -> bool:
    return isinstance(result, dict) and isinstance(result.get("statusCode"), int)


def _proxy_parts(result: dict[str, Any]) -> list[Any]:
    body = result.get("body") or ""
    if result.get("isBase64Encoded") and isinstance(body, str):
        body = base64.b64decode(body)
    headers = {str(k).lower(): str(v) for k, v in (result.get("headers") or {}).items()}
    return http_result_parts(result["statusCode"], body, headers.get("content-type"))
