"""Turn an existing functions-framework function into an A2A agent.

    from a2a_serverless_gcp.wrap import wrap_http_function
    from main import lookup                  # @functions_framework.http def lookup(request): ...

    agent = wrap_http_function(lookup, name="Lookup", description="Looks things up.")

Each turn calls the function once, in a worker thread:

- **HTTP functions** get a Flask request: ``POST /`` whose JSON body is the message as one JSON
  value (`a2a_serverless.wrap.message_payload`: a data part's object, JSON text parsed, other
  text as ``{"text": ...}``), inside a request context so ``flask.request`` works too. Whatever
  they return (text, a dict, a ``(body, status)`` tuple, a Response) is made a response as
  Flask does; its body becomes the artifact, and a 4xx/5xx status fails the task with the body
  as the reason.
- **CloudEvent functions** get a CloudEvent whose data is that JSON value (type
  ``a2a.message.v1``, source ``a2a-serverless``, id the message id); they return nothing, so
  the task completes without an artifact unless they return a value.
- **exceptions** fail the task with ``"<ErrorType>: <message>"`` (``expose_errors=False`` gives
  the client a generic message); the traceback goes to the log.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any, Literal, Unpack

from a2a_serverless.agent import Agent, CardOptions
from a2a_serverless.executor import TaskUpdater
from a2a_serverless.turn import Context, Failed, TurnOutcome
from a2a_serverless.wrap import http_result_parts, message_payload, result_parts, wrapped_agent

log = logging.getLogger("a2a_serverless_gcp.wrap")

Signature = Literal["http", "cloudevent"]
EVENT_TYPE = "a2a.message.v1"


class CloudFunctionExecutor:
    """Runs a wrapped functions-framework function as an agent's executor (the AWS adapter's is
    `LambdaHandlerExecutor`; the core's `FunctionExecutor` runs `@agent` functions). Formerly
    this module's `FunctionExecutor`, still importable under that name (deprecated)."""

    def __init__(
        self, func: Callable[[Any], Any], *, signature: Signature, expose_errors: bool = True
    ) -> None:
        if signature not in ("http", "cloudevent"):
            raise ValueError(f"signature must be 'http' or 'cloudevent', not {signature!r}")
        self.func = func
        self.signature = signature
        self.expose_errors = expose_errors
        self.name = getattr(func, "__name__", "function")
        self._flask_app: Any = None

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work()
        payload = message_payload(context)
        call = self._call_http if self.signature == "http" else self._call_cloudevent
        try:
            parts = await asyncio.to_thread(call, payload, context)
        except TurnOutcome:
            raise
        except Exception as exc:
            log.exception("wrapped function %s failed on task %s", self.name, context.task_id)
            if self.expose_errors:
                raise Failed(f"{type(exc).__name__}: {exc}") from exc
            raise Failed("The wrapped function failed.") from exc
        if parts:
            await updater.add_artifact(parts, name="result")
        await updater.complete()

    def _call_http(self, payload: Any, context: Context) -> list[Any]:
        app = self._app()
        headers = {"X-A2A-Task-Id": context.task_id, "X-A2A-Context-Id": context.context_id}
        with app.test_request_context("/", method="POST", json=payload, headers=headers):
            from flask import request

            result = _resolve(self.func(request))
            response = app.make_response(result)
            return http_result_parts(
                response.status_code, response.get_data(), response.headers.get("Content-Type")
            )

    def _call_cloudevent(self, payload: Any, context: Context) -> list[Any]:
        from cloudevents.http import CloudEvent

        attributes = {
            "type": EVENT_TYPE,
            "source": "a2a-serverless",
            "id": context.message.message_id,
            "subject": context.task_id,
        }
        return result_parts(_resolve(self.func(CloudEvent(attributes, payload))))

    def _app(self) -> Any:
        if self._flask_app is None:
            import flask

            self._flask_app = flask.Flask(f"a2a-wrap-{self.name}")
        return self._flask_app


# Deprecated alias: the name this class had, the core's name for another.
FunctionExecutor = CloudFunctionExecutor


def _resolve(result: Any) -> Any:
    if inspect.isawaitable(result):
        return asyncio.run(_await(result))
    return result


async def _await(awaitable: Any) -> Any:
    return await awaitable


def wrap_http_function(
    func: Callable[[Any], Any],
    *,
    name: str | None = None,
    description: str | None = None,
    time_budget_s: float | None = None,
    expose_errors: bool = True,
    **card: Unpack[CardOptions],
) -> Agent:
    """An Agent whose turns call the HTTP function `func(request)`; see the module docstring.
    The card's fields (`CardOptions`) default to `Agent`'s, but the modes are text and JSON."""
    return _wrap(func, "http", name, description, time_budget_s, expose_errors, card,
                 "wrap_http_function")  # fmt: skip


def wrap_cloudevent_function(
    func: Callable[[Any], Any],
    *,
    name: str | None = None,
    description: str | None = None,
    time_budget_s: float | None = None,
    expose_errors: bool = True,
    **card: Unpack[CardOptions],
) -> Agent:
    """An Agent whose turns call the CloudEvent function `func(event)`."""
    return _wrap(func, "cloudevent", name, description, time_budget_s, expose_errors, card,
                 "wrap_cloudevent_function")  # fmt: skip


def _wrap(
    func: Callable[[Any], Any],
    signature: Signature,
    name: str | None,
    description: str | None,
    time_budget_s: float | None,
    expose_errors: bool,
    card: CardOptions,
    caller: str,
) -> Agent:
    return wrapped_agent(
        func,
        CloudFunctionExecutor(func, signature=signature, expose_errors=expose_errors),
        function_name=getattr(func, "__name__", "function"),
        kind="function",
        name=name,
        description=description,
        time_budget_s=time_budget_s,
        card=card,
        caller=caller,
    )
