"""Runs a plain function as an executor: what `@agent` puts behind a decorated function.

What the function receives depends on its first parameter's annotation: `str` gets the message
text, `Message` the message, anything else (or `Context`) the whole `Context`. What it gives back
maps onto the task:

- returned text, a Part, a list of Parts or a dict -> one artifact, then `completed`;
- returned Artifact(s) -> those artifacts, then `completed`;
- returned Message -> `completed`, with that message as the final status message;
- returned or raised `InputRequired` / `AuthRequired` / `Rejected` / `Failed` -> that state;
- yielded text, Parts or dicts (generators) -> chunks of one streamed artifact; yielded
  `progress(...)` or a Message -> a `working` status message; a yielded Artifact -> added whole.

Sync functions and generators run in a worker thread, so blocking code does not stall others.

An async function (or async generator) is stopped as soon as its task is canceled, as an
executor with a cancel hook is (worker.py): `asyncio.CancelledError` is raised at the await it
is in, so its `try/finally` (or `async with`) is where it releases what it holds. A sync one
runs in a thread, which cannot be stopped: it runs on, and what it returns or yields next is
refused (`TaskEnded`) and dropped.
"""

from __future__ import annotations

import asyncio
import inspect
import typing
import uuid
from collections.abc import AsyncIterator, Callable, Generator
from typing import Any

import msgspec

from .executor import TaskUpdater
from .models import Artifact, Message
from .sentinel import Sentinel
from .turn import Context, DirectContext, Progress, TurnOutcome, to_parts

_EXHAUSTED = Sentinel("exhausted")  # the agent's generator ended without a value


def function_executor(func: Callable[..., Any]) -> FunctionExecutor:
    """The executor that runs `func`: one the worker stops on a cancel for an async function or
    async generator (`AsyncFunctionExecutor`), else one it leaves to its next write."""
    if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
        return AsyncFunctionExecutor(func)
    return FunctionExecutor(func)


class FunctionExecutor:
    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func
        self._argument = argument_kind(func)
        # Decided once: inspect's checks unwrap the function on every call.
        self._async_gen = inspect.isasyncgenfunction(func)
        self._gen = inspect.isgeneratorfunction(func)
        self._coroutine = inspect.iscoroutinefunction(func)
        # A function that is not async runs in the loop's default executor: the AWS adapter
        # starts its thread at init (a2a_serverless_aws.priming).
        self.runs_in_threads = not (self._coroutine or self._async_gen)

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work()
        argument = self._make_argument(context)
        func = self.func
        if self._async_gen:
            await self._stream(func(*argument), updater)
            return
        if self._gen:
            await self._stream(_in_thread(func(*argument)), updater)
            return
        if self._coroutine:
            result = await func(*argument)
        else:
            result = await asyncio.to_thread(func, *argument)
            if inspect.isawaitable(result):  # an async function behind a sync wrapper
                result = await result
        await self._finish(result, updater)

    def _make_argument(self, context: Context) -> tuple[Any, ...]:
        return call_arguments(self._argument, context)

    async def _stream(self, items: AsyncIterator[Any], updater: TaskUpdater) -> None:
        stream_id: str | None = None
        async for item in items:
            if isinstance(item, TurnOutcome):
                raise item
            if isinstance(item, _Returned):
                # What a sync generator returns ends the turn like a plain function's result.
                if stream_id is not None:
                    await updater.add_artifact(
                        [], artifact_id=stream_id, append=True, last_chunk=True
                    )
                await self._finish(item.value, updater)
                return
            if isinstance(item, Progress):
                await updater.start_work(item.message)
            elif isinstance(item, Message):
                await updater.start_work(item)
            elif isinstance(item, Artifact):
                await updater.add_artifact(item, last_chunk=True)
            else:
                # Chunks go out as soon as they are yielded; the closing `lastChunk` follows
                # when the generator ends, as the function cannot say which chunk is last.
                first = stream_id is None
                stream_id = await updater.add_artifact(
                    _parts(item),
                    artifact_id=stream_id,
                    name="response" if first else None,
                    append=not first,
                    last_chunk=False,
                )
        if stream_id is not None:
            await updater.add_artifact([], artifact_id=stream_id, append=True, last_chunk=True)
        await updater.complete()

    async def _finish(self, result: Any, updater: TaskUpdater) -> None:
        if isinstance(result, TurnOutcome):
            raise result
        if result is None:
            await updater.complete()
        elif isinstance(result, Message):
            await updater.complete(result)
        elif isinstance(result, Artifact):
            await updater.complete(artifacts=[result])
        elif isinstance(result, list) and result and all(isinstance(a, Artifact) for a in result):
            await updater.complete(artifacts=result)
        else:
            artifact = Artifact(
                artifact_id=str(uuid.uuid4()), parts=_parts(result), name="response"
            )
            await updater.complete(artifacts=[artifact])


class AsyncFunctionExecutor(FunctionExecutor):
    """A `FunctionExecutor` of an async function or async generator, with the cancel hook that
    makes it a `CancelableExecutor`: the worker stops its turn at once when the task is canceled
    (the coroutine gets `asyncio.CancelledError` at its await)."""

    async def cancel(self, context: Context, updater: TaskUpdater) -> None:
        """Nothing more to release: the function's own `finally` ran when it was stopped."""


def _parts(value: Any) -> list[Any]:
    try:
        return list(to_parts(value))
    except TypeError:
        raise TypeError(
            f"an agent function returned or yielded {type(value).__name__}; expected text, "
            "Parts, a dict, an Artifact, a Message, progress(...) or an outcome"
        ) from None


def call_arguments(kind: str, context: Context | DirectContext) -> tuple[Any, ...]:
    """What a function whose first parameter is of `kind` (`argument_kind`) is called with."""
    if kind == "none":
        return ()
    if kind == "text":
        return (context.text,)
    if kind == "message":
        return (context.message,)
    return (context,)


def argument_kind(func: Callable[..., Any]) -> str:
    """How `func` is called (see `call_arguments`); TypeError, when it is made an agent, for a
    function no such call fits, rather than a failed turn when the first message comes."""
    if not callable(func):
        raise TypeError(f"an agent needs a function, got {type(func).__name__}")
    parameters = list(inspect.signature(func).parameters.values())
    _check_callable_with_one_argument(func, parameters)
    if not parameters:
        return "none"
    try:
        hints = typing.get_type_hints(func)
    except Exception:  # unresolvable annotations: fall back to the whole context
        hints = {}
    annotation = hints.get(parameters[0].name)
    if annotation is str:
        return "text"
    if annotation is Message:
        return "message"
    return "context"


def _check_callable_with_one_argument(
    func: Callable[..., Any], parameters: list[inspect.Parameter]
) -> None:
    """The function is called with its first parameter alone, positionally."""
    name = getattr(func, "__qualname__", repr(func))
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if parameters and parameters[0].kind == inspect.Parameter.KEYWORD_ONLY:
        raise TypeError(
            f"agent function {name}: its first parameter {parameters[0].name!r} is keyword-only; "
            "it is passed the message text, the Message or the Context positionally"
        )
    required = [
        p.name
        for p in parameters[1:]
        if p.default is inspect.Parameter.empty
        and (p.kind in positional or p.kind == inspect.Parameter.KEYWORD_ONLY)
    ]
    if parameters and parameters[0].kind not in (*positional, inspect.Parameter.VAR_POSITIONAL):
        required.insert(0, parameters[0].name)  # **kwargs first: never given a value
    if required:
        raise TypeError(
            f"agent function {name} cannot be called: it is given one argument (the message "
            "text, the Message or the Context, by its first parameter's annotation), and "
            f"{', '.join(map(repr, required))} would get none; give them defaults"
        )


class _Returned(msgspec.Struct, frozen=True):
    value: Any


def _step(generator: Generator[Any, None, Any]) -> Any:
    try:
        return next(generator)
    except StopIteration as stop:
        return _Returned(stop.value) if stop.value is not None else _EXHAUSTED


async def _in_thread(generator: Generator[Any, None, Any]) -> AsyncIterator[Any]:
    """Iterate a sync generator in a worker thread, one item at a time; then its return value."""
    while True:
        item = await asyncio.to_thread(_step, generator)
        if item is _EXHAUSTED:
            return
        yield item
