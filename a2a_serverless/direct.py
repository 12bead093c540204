"""Direct answers: a Message in reply to a message, with no task (spec: a "message-only" agent).

An agent's `direct` hook is asked about each new message (one without a taskId) in the request,
before any task exists, and within `Settings.direct_timeout_s`: the request function may be
frozen once it answers, so nothing here outlives the request. What the hook returns decides:

- None -> no direct answer: a task is made and the agent's executor runs it, as usual (an agent
  with no executor, made with `@direct_agent`, must answer: None is an invalid agent response);
- text, a Part, a list of Parts or a dict -> one agent Message with those parts;
- a Message -> that message (role `agent`; its contextId defaults to the request's).

It gets what its first parameter's annotation asks for, as an agent function does: `str` the
message text, `Message` the message, anything else a `DirectContext`. Sync hooks run in a worker
thread. Raising one of the protocol's errors (`InvalidParamsError`,
`ContentTypeNotSupportedError`, `UnsupportedOperationError`, ...) refuses the message with that
error, no task made; any other exception answers InternalError (logged, details kept from the
client), and so does a hook that runs past its time (`DirectAnswerTimeoutError`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

from .errors import A2AError, InternalError, InvalidAgentResponseError
from .function_agent import argument_kind, call_arguments
from .models import Message
from .turn import DirectContext, TurnOutcome, agent_message, to_parts

log = logging.getLogger("a2a_serverless.direct")


class DirectAnswerTimeoutError(InternalError):
    """The agent's direct hook did not answer within `direct_timeout_s`: -32603, HTTP 504."""

    http_status = 504


class DirectHook:
    """Runs an agent's direct hook and turns what it returns into a reply (or None)."""

    def __init__(
        self, func: Callable[..., Any], *, timeout_s: float, required: bool = False
    ) -> None:
        self.func = func
        self.timeout_s = timeout_s
        # True for an agent with no executor: every message must be answered here.
        self.required = required
        self._argument = argument_kind(func)

    async def answer(self, context: DirectContext) -> Message | None:
        """The reply to `context.message`, or None to make a task. Raises A2AError to refuse."""
        try:
            async with asyncio.timeout(self.timeout_s):
                result = await self._call(context)
        except A2AError:
            raise
        except TimeoutError:
            raise DirectAnswerTimeoutError(
                f"The agent did not answer within {self.timeout_s:g} s (A2A_DIRECT_TIMEOUT_S)",
                data={"setting": "A2A_DIRECT_TIMEOUT_S", "timeoutSeconds": self.timeout_s},
            ) from None
        except Exception:
            log.exception("the agent's direct hook failed")
            raise InternalError("The agent failed while answering this message.") from None
        return self._reply(result, context)

    async def _call(self, context: DirectContext) -> Any:
        argument = call_arguments(self._argument, context)
        func = self.func
        if inspect.iscoroutinefunction(func):
            return await func(*argument)
        result = await asyncio.to_thread(func, *argument)
        if inspect.isawaitable(result):  # an async function behind a sync wrapper
            result = await result
        return result

    def _reply(self, result: Any, context: DirectContext) -> Message | None:
        if result is None:
            if self.required:
                raise _invalid("returned None; an agent without tasks must answer every message")
            return None
        if isinstance(result, TurnOutcome):
            raise _invalid(
                f"returned {type(result).__name__}; a direct answer is a Message (refuse a "
                "message by raising a protocol error such as InvalidParamsError)"
            )
        if isinstance(result, Message):
            if result.role != "agent" or result.task_id is not None:
                raise _invalid("returned a Message that is not the agent's or names a task")
            if result.context_id is not None:
                return result
            answered: Message = result.model_copy(update={"context_id": context.context_id})
            return answered
        try:
            parts = to_parts(result)
        except TypeError:
            raise _invalid(
                f"returned {type(result).__name__}; expected text, Parts, a dict, a Message or None"
            ) from None
        return agent_message(parts, context_id=context.context_id)


def _invalid(what: str) -> InvalidAgentResponseError:
    log.error("the agent's direct hook %s", what)
    return InvalidAgentResponseError(f"The agent's direct answer is invalid: it {what}")
