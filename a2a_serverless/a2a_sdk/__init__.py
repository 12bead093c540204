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
task fails, as for any agent. `SdkAgentExecutor` is a `CancelableExecutor`: when the task is
canceled elsewhere, the worker cancels the `execute` call, as the SDK's own server does, and
calls the executor's `cancel`, with a queue that drops its events (the task is canceled
already), so it can clean up (worker.py has the rule: when, how soon, how long). A turn taken
over by another worker is stopped too, without `cancel`: the task goes on there.

a2a-sdk is imported on first use, never by `import a2a_serverless`; which of its lines is
installed is found out then (`sdk_version`).
"""

from __future__ import annotations

import functools
import logging
import warnings
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
    """Our executor around an a2a-sdk AgentExecutor (see the module's docstring). A
    `CancelableExecutor`: the worker stops its turn when the task is canceled and calls `cancel`,
    which calls the SDK executor's."""

    def __init__(
        self,
        executor: Any,
        *,
        cancel_poll_s: float | None = None,
        cancel_timeout_s: float | None = None,
    ) -> None:
        """`cancel_poll_s` and `cancel_timeout_s` are deprecated here and ignored (the worker
        watches the turn): give them to `from_a2a_sdk` or `Agent`."""
        for method in ("execute", "cancel"):
            if not callable(getattr(executor, method, None)):
                raise TypeError(f"{executor!r} is not an a2a-sdk AgentExecutor: no {method}()")
        sdk_line()  # a missing or unsupported a2a-sdk fails here, at start-up
        if cancel_poll_s is not None or cancel_timeout_s is not None:
            warnings.warn(
                "SdkAgentExecutor's cancel_poll_s and cancel_timeout_s are ignored (the worker "
                "watches every turn that can be canceled): give them to from_a2a_sdk() or "
                "Agent(cancel_poll_s=..., cancel_timeout_s=...)",
                DeprecationWarning,
                stacklevel=2,
            )
        self.executor = executor

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        sdk = dialect()
        # The SDK's server gives no current task on a task's first message; samples make one.
        current = context.task if context.is_continuation else None
        turn = _Turn(updater)
        await self.executor.execute(sdk.request_context(context, current), sdk.event_queue(turn))
        if turn.ended_elsewhere is not None:
            # The executor caught the refusal of one of its events and returned: the turn is
            # over all the same.
            raise TaskEnded(turn.ended_elsewhere)

    async def cancel(self, context: Context, updater: TaskUpdater) -> None:
        """The task was canceled while the turn ran (its `execute` is stopped): the SDK
        executor's `cancel`, with the SDK's RequestContext for a cancel (`current_task` as the
        turn last saw it) and a queue that drops what it enqueues (the task is canceled
        already). What it raises is logged (many refuse: UnsupportedOperationError); the worker
        bounds how long it takes."""
        sdk = dialect()
        request_context = sdk.cancel_context(updater.task, context.owner)
        try:
            await self.executor.cancel(request_context, sdk.event_queue(_drop))
        except Exception as exc:
            log.info("task %s: the executor's cancel() raised %r", updater.task_id, exc)


async def _drop(event: SdkEvent) -> None:
    log.debug("dropped a %s enqueued by cancel(): the task has ended", type(event).__name__)


class _Turn:
    """The sink of one turn's EventQueue: each event becomes the updater's write."""

    def __init__(self, updater: TaskUpdater) -> None:
        self.updater = updater
        # Why the task ended elsewhere, once a write found out.
        self.ended_elsewhere: str | None = None

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
    cancel_poll_s: float | None = None,
    cancel_timeout_s: float | None = None,
    **card: Any,
) -> Agent:
    """An `Agent` whose turns an a2a-sdk `AgentExecutor` (0.3.x or 1.x) runs.

    `card`: the rest of `Agent`'s fields (`skills`, `input_modes`, `extensions`,
    `time_budget_s`, ...), passed to it as they are, so there is one list of them.
    `cancel_poll_s` and `cancel_timeout_s` are the Agent's (None: the worker's, 2 s and 10 s):
    how often a running turn reads its task to learn of a cancel made by another instance (one
    in this process is seen at once), and how long the executor's `cancel()` may clean up.
    """
    return Agent(
        name=name,
        description=description,
        executor=SdkAgentExecutor(executor),
        cancel_poll_s=cancel_poll_s,
        cancel_timeout_s=cancel_timeout_s,
        **card,
    )


__all__ = ["SdkAgentExecutor", "dialect", "from_a2a_sdk", "sdk_line", "sdk_version"]
