"""Run an a2a-sdk `AgentExecutor` (the official Python SDK's, 0.3.x or 1.x) durably here.

    from a2a_serverless.a2a_sdk import from_a2a_sdk

    agent = from_a2a_sdk(MyAgentExecutor(), name="Helper", description="Helps.")
    app = create_app(agent)   # or the Lambda / GCP handlers, the dev server, ...

The result is an ordinary `Agent`: served in A2A 1.0 and 0.3, its turns run in the worker from
the queue. For each turn the executor gets the SDK's own `RequestContext` (the message, the task
and context ids, the current task — None on a task's first message, as the SDK's server gives
it —, and in its `call_context.user` the caller: a `User` whose `user_name` is the authenticated
caller's tenancy key, the task's owner, or the SDK's `UnauthenticatedUser` where the deployment
authenticates nobody; executors that key sessions on user and context, as ADK's does, keep each
caller's apart) and an `EventQueue` whose `enqueue_event` writes the event to the task's
journal before it returns: one durable write per event, in order, seen by every stream,
resubscription and webhook. How events map:

- a status update: that state with its message (`submitted` is the task's first state here, so
  an executor's own `submitted` is a no-op);
- an artifact update: the artifact, with `append` / `lastChunk`;
- a `Task`: a snapshot; artifacts the task does not have yet and a state change are written;
- a bare `Message`: the answer; the task completes with it (every message makes a task here).

When the turn has ended (completed, input-required, ...), later events are dropped with a
warning. When `execute` returns without ending the turn, the task completes; when it raises, the
task fails, as for any agent. When the task is canceled (or the turn taken over) elsewhere, the
`execute` call is cancelled, as the SDK's own server does, and the executor's `cancel` is
called, with a queue that drops its events (the task is canceled already), so it can clean up.

a2a-sdk is imported on first use, never by `import a2a_serverless`; which of its lines is
installed is found out then (`sdk_version`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

from ..agent import Agent
from ..executor import TaskEnded, TaskUpdater
from ..extras import MissingExtra
from ..models import (
    Message,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatusUpdateEvent,
)
from ..turn import Context

log = logging.getLogger("a2a_serverless.a2a_sdk")

SdkEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent
Sink = Callable[[SdkEvent], Awaitable[None]]

# How often a running executor's task is read to learn of a cancel made by another instance
# (one made in this process is seen at once): one store read per interval per running turn.
DEFAULT_CANCEL_POLL_S = 2.0
# How long the executor's `cancel` may take to clean up once the task has ended.
DEFAULT_CANCEL_TIMEOUT_S = 10.0


class Dialect(Protocol):
    """What differs between a2a-sdk's lines: its objects, built from and read into ours."""

    def request_context(self, context: Context, task: Task | None) -> Any:
        """The SDK's RequestContext for a turn; `task` is its `current_task`."""

    def cancel_context(self, task: Task, owner: str | None) -> Any:
        """The SDK's RequestContext for `cancel`, as the SDK's server builds it; `owner`: the
        task's (`Context.owner`)."""

    def event_queue(self, sink: Sink) -> Any:
        """An SDK EventQueue whose `enqueue_event(e)` awaits `sink(<e as our model>)`."""


def sdk_version() -> str:
    """The installed a2a-sdk's version; MissingExtra when there is none."""
    try:
        return version("a2a-sdk")
    except PackageNotFoundError:
        raise MissingExtra("running an a2a-sdk AgentExecutor", "a2a-sdk", "a2a-sdk") from None


def sdk_line() -> str:
    """ "0.3" or "1": the installed a2a-sdk's line (looked up, not imported)."""
    found = sdk_version()
    if found.startswith("1."):
        return "1"
    if found.startswith("0.3."):
        return "0.3"
    raise ImportError(f"a2a-sdk {found} is installed; the 'a2a-sdk' extra needs 0.3.x or 1.x")


@functools.cache
def dialect() -> Dialect:
    """The installed a2a-sdk's line, imported once, on first use."""
    if sdk_line() == "1":
        from . import v1

        return v1.Dialect1()
    from . import v03

    return v03.Dialect03()


class SdkAgentExecutor:
    """Our executor around an a2a-sdk AgentExecutor (see the module's docstring)."""

    def __init__(
        self,
        executor: Any,
        *,
        cancel_poll_s: float = DEFAULT_CANCEL_POLL_S,
        cancel_timeout_s: float = DEFAULT_CANCEL_TIMEOUT_S,
    ) -> None:
        for method in ("execute", "cancel"):
            if not callable(getattr(executor, method, None)):
                raise TypeError(f"{executor!r} is not an a2a-sdk AgentExecutor: no {method}()")
        sdk_line()  # a missing or unsupported a2a-sdk fails here, at start-up
        if cancel_poll_s <= 0:
            raise ValueError("cancel_poll_s must be positive")
        self.executor = executor
        self.cancel_poll_s = cancel_poll_s
        self.cancel_timeout_s = cancel_timeout_s

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        sdk = dialect()
        # The SDK's server gives no current task on a task's first message; samples make one.
        current = context.task if context.is_continuation else None
        request_context = sdk.request_context(context, current)
        turn = _Turn(updater)
        run = asyncio.create_task(self.executor.execute(request_context, sdk.event_queue(turn)))
        watch = asyncio.create_task(self._watch(updater, turn))
        try:
            await asyncio.wait({run, watch}, return_when=asyncio.FIRST_COMPLETED)
            if run.done() and turn.ended_elsewhere is None:
                # Finished (or raised) by itself: its result is the turn's.
                run.result()
                return
            reason = turn.ended_elsewhere or watch.result() or "the turn ended"
        finally:
            for task in (run, watch):
                task.cancel()
            # Let both unwind (the executor's finally blocks run) before the turn is over.
            await asyncio.gather(run, watch, return_exceptions=True)
        await self._cancel(sdk, updater.task, context.owner)
        raise TaskEnded(reason)

    async def _watch(self, updater: TaskUpdater, turn: _Turn) -> str | None:
        """Returns why the task ended elsewhere, when it does; never returns otherwise."""
        watcher = asyncio.ensure_future(updater.wait_ended(poll_s=self.cancel_poll_s))
        stopped = asyncio.ensure_future(turn.stopped.wait())
        try:
            await asyncio.wait({watcher, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if stopped.done():
                return turn.ended_elsewhere
            reason = watcher.result()
            if reason is None:
                # This turn ended itself: nothing to watch for; the executor finishes.
                await asyncio.Event().wait()
            turn.ended_elsewhere = reason
            return reason
        finally:
            watcher.cancel()
            stopped.cancel()

    async def _cancel(self, sdk: Dialect, task: Task, owner: str | None) -> None:
        """Give the executor its `cancel`, to clean up; what it enqueues there is dropped."""
        try:
            async with asyncio.timeout(self.cancel_timeout_s):
                context = sdk.cancel_context(task, owner)
                await self.executor.cancel(context, sdk.event_queue(_drop))
        except TimeoutError:
            log.warning(
                "task %s: the executor's cancel() took over %g s", task.id, self.cancel_timeout_s
            )
        except Exception as exc:
            # Many executors refuse cancel (UnsupportedOperationError): the task is canceled
            # here regardless.
            log.info("task %s: the executor's cancel() raised %r", task.id, exc)


async def _drop(event: SdkEvent) -> None:
    log.debug("dropped a %s enqueued by cancel(): the task has ended", type(event).__name__)


class _Turn:
    """The sink of one turn's EventQueue: each event becomes the updater's write."""

    def __init__(self, updater: TaskUpdater) -> None:
        self.updater = updater
        # Why the task ended elsewhere, once a write found out (or the watcher did).
        self.ended_elsewhere: str | None = None
        self.stopped = asyncio.Event()

    async def __call__(self, event: SdkEvent) -> None:
        updater = self.updater
        if updater.turn_over or self.ended_elsewhere is not None:
            log.warning(
                "task %s: dropped a %s enqueued after the turn ended",
                updater.task_id,
                type(event).__name__,
            )
            return
        try:
            await self._apply(event)
        except TaskEnded as ended:
            if not updater.turn_over:
                self.ended_elsewhere = str(ended)
                self.stopped.set()
            raise

    async def _apply(self, event: SdkEvent) -> None:
        updater = self.updater
        if isinstance(event, Message):
            await updater.complete(self._tied(event))
            return
        if isinstance(event, TaskStatusUpdateEvent | TaskArtifactUpdateEvent):
            self._check_task(event.task_id)
        if isinstance(event, TaskArtifactUpdateEvent):
            await updater.add_artifact(
                event.artifact, append=bool(event.append), last_chunk=event.last_chunk
            )
        elif isinstance(event, TaskStatusUpdateEvent):
            await self._status(event.status.state, event.status.message)
        else:
            await self._snapshot(event)

    async def _status(self, state: TaskState, message: Message | None) -> None:
        if state is TaskState.UNKNOWN:
            raise ValueError("the executor enqueued a status with no state (unknown)")
        if state is TaskState.SUBMITTED:
            # The task was submitted when the message came; a turn does not go back to it.
            return
        await self.updater.update_status(state, self._tied(message) if message else None)

    async def _snapshot(self, task: Task) -> None:
        self._check_task(task.id)
        current = self.updater.task
        have = current.artifacts or []
        new = [a for a in task.artifacts or [] if a not in have]
        state = task.status.state
        if state is TaskState.COMPLETED:
            message = task.status.message
            await self.updater.complete(self._tied(message) if message else None, artifacts=new)
            return
        for artifact in new:
            await self.updater.add_artifact(artifact)
        if state is not current.status.state:
            await self._status(state, task.status.message)

    def _check_task(self, task_id: str) -> None:
        if task_id != self.updater.task_id:
            raise ValueError(
                f"the executor enqueued an event for task {task_id!r} while running task "
                f"{self.updater.task_id!r}"
            )

    def _tied(self, message: Message) -> Message:
        """`message` as part of this task (SDK helpers often leave its ids out)."""
        if message.task_id == self.updater.task_id and message.context_id:
            return message
        return message.model_copy(
            update={"task_id": self.updater.task_id, "context_id": self.updater.context_id}
        )


def from_a2a_sdk(
    executor: Any,
    *,
    name: str,
    description: str,
    cancel_poll_s: float = DEFAULT_CANCEL_POLL_S,
    cancel_timeout_s: float = DEFAULT_CANCEL_TIMEOUT_S,
    **card: Any,
) -> Agent:
    """An `Agent` whose turns an a2a-sdk `AgentExecutor` (0.3.x or 1.x) runs.

    `card`: the rest of `Agent`'s fields (`skills`, `input_modes`, `extensions`,
    `time_budget_s`, ...), passed to it as they are, so there is one list of them.
    `cancel_poll_s`: how often a running turn reads its task to learn of a cancel made by
    another instance (one in this process is seen at once); `cancel_timeout_s`: how long the
    executor's `cancel()` may clean up.
    """
    sdk_executor = SdkAgentExecutor(
        executor, cancel_poll_s=cancel_poll_s, cancel_timeout_s=cancel_timeout_s
    )
    return Agent(name=name, description=description, executor=sdk_executor, **card)


__all__ = ["SdkAgentExecutor", "dialect", "from_a2a_sdk", "sdk_line", "sdk_version"]
