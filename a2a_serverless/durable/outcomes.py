"""What a durable operation gives the agent back: a call's `CallResult`, the typed errors a call
raises, and the signal that suspends a turn.

A leaf (it imports only the protocol models), so turn.py's `Context` can name these types and
the worker can catch `TurnSuspended` without importing the machinery behind them (session.py).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..exceptions import A2AServerlessError, UnavailableError
from ..models import Artifact, Message, Task, TaskState


class CallResult(msgspec.Struct, frozen=True):
    """How a remote agent's task ended (or stopped to ask): what `ctx.call` returns.

    `state` is `completed`, or `input-required` / `auth-required` when the remote asks its
    caller something: answer with `ctx.call(remote, answer, task_id=result.task_id)`, or pass
    the question up (`raise InputRequired(result.text)`)."""

    state: TaskState
    task_id: str
    context_id: str
    artifacts: list[Artifact] = msgspec.field(default_factory=list)
    # The remote's final (or asking) status message, if it gave one.
    message: Message | None = None
    # The remote answered the message directly (no task): that reply is `message`.
    direct: bool = False

    @property
    def input_required(self) -> bool:
        return self.state in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED)

    @property
    def text(self) -> str:
        """The text of the artifacts, else of the status message, joined by newlines."""
        parts = [p for a in self.artifacts for p in a.parts]
        if not parts and self.message is not None:
            parts = list(self.message.parts)
        return "\n".join(p.text for p in parts if p.text is not None)

    @classmethod
    def of_task(cls, task: Task) -> CallResult:
        return cls(
            state=task.status.state,
            task_id=task.id,
            context_id=task.context_id,
            artifacts=list(task.artifacts or []),
            message=task.status.message,
        )


class CallError(A2AServerlessError):
    """A durable call did not give a result. `remote` is the agent's URL; `task_id` its task,
    when one was made."""

    def __init__(self, message: str, *, remote: str, task_id: str | None = None) -> None:
        super().__init__(message)
        self.remote = remote
        self.task_id = task_id


class RemoteTaskEnded(CallError):
    """The remote task ended otherwise than `completed`; `result` is how it ended."""

    def __init__(self, result: CallResult, *, remote: str) -> None:
        reason = f": {result.text}" if result.text else ""
        super().__init__(
            f"the remote task {result.task_id} at {remote} is {result.state.value}{reason}",
            remote=remote,
            task_id=result.task_id,
        )
        self.result = result


class RemoteFailed(RemoteTaskEnded):
    """The remote task failed."""


class RemoteRejected(RemoteTaskEnded):
    """The remote agent rejected the task."""


class RemoteCanceled(RemoteTaskEnded):
    """The remote task was canceled (by its agent, or by anyone else)."""


class CallDeadlineExceeded(CallError):
    """The call's deadline (or the turn's) passed before the remote task ended; the remote task
    was asked to cancel."""


class RemoteUnavailable(CallError, UnavailableError):
    """The remote agent could not be reached or refused the request (its card, the send). Not
    recorded: the call is made again when the turn runs again."""


class UnknownRemote(A2AServerlessError, LookupError):
    """`ctx.call` named a remote that is neither a URL nor configured (`Agent(remote_agents=...)`,
    A2A_REMOTE_AGENTS)."""


class DurableUnavailable(A2AServerlessError, RuntimeError):
    """A durable operation was used where there is none: a context made outside the worker
    (a direct hook, a test), or an agent whose runtime was built without durable calls."""


class TurnSuspended(BaseException):
    """The turn waits for something that has not happened yet: it stops here and is run again
    (replayed) when it has. A BaseException so that an agent's `except Exception` does not
    swallow it; the worker catches it and `commit`s the suspension."""

    def __init__(self, suspend: Any, reason: str) -> None:
        super().__init__(reason)
        # An async callable writing the waiting state (the session's `suspend`).
        self._suspend = suspend
        self.reason = reason

    async def commit(self) -> None:
        await self._suspend()
