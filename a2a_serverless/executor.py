"""The class-based agent API: an executor drives one turn of a task through a TaskUpdater.

    class Researcher:
        async def execute(self, context: Context, updater: TaskUpdater) -> None:
            await updater.start_work("Looking it up…")
            await updater.add_artifact("first half", artifact_id="report", last_chunk=False)
            await updater.add_artifact("second half", artifact_id="report", append=True,
                                       last_chunk=True)
            await updater.complete()

Every updater call is one durable, conditional write (task + event log): when it returns, any
reader on any instance can see it. If the task was canceled or otherwise ended elsewhere, the
call raises `TaskEnded` and the executor should stop; nothing it writes afterwards is accepted.
When `execute` returns without ending the turn, the task is completed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from .ids import url_uuid
from .journal import Change, Journal, now_ms
from .lifecycle import status_event
from .models import (
    Artifact,
    Message,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
)
from .store.base import TaskEventPayload, TaskRecord, WorkerClaim
from .turn import Content, Context, agent_message, to_parts


@runtime_checkable
class AgentExecutor(Protocol):
    async def execute(self, context: Context, updater: TaskUpdater) -> None: ...


class TaskEnded(Exception):
    """The task ended elsewhere (e.g. canceled) or this turn is over: stop working."""


class TaskUpdater:
    def __init__(
        self,
        journal: Journal,
        record: TaskRecord,
        *,
        worker_id: str,
        step: str,
        lease_s: float,
    ) -> None:
        self._journal = journal
        self._record = record
        self._worker_id = worker_id
        self._step = step
        self._lease_ms = int(lease_s * 1000)
        self._turn_over = False
        self._artifacts_named = 0

    @property
    def task(self) -> Task:
        """The task as this updater last wrote or read it."""
        return self._record.task

    @property
    def task_id(self) -> str:
        return self._record.task_id

    @property
    def context_id(self) -> str:
        return self._record.context_id

    @property
    def turn_over(self) -> bool:
        """True once the turn has ended (a terminal or input/auth-required state was written)."""
        return self._turn_over

    def new_agent_message(self, content: Content) -> Message:
        return agent_message(to_parts(content), task=self.task)

    # --- status ---------------------------------------------------------------------------------

    async def start_work(self, message: Content | Message | None = None) -> None:
        await self.update_status(TaskState.WORKING, message)

    async def update_status(
        self, state: TaskState | str, message: Content | Message | None = None
    ) -> None:
        state = TaskState(state)
        event = status_event(self.task, state, self._message(message))
        await self._emit([event], ends_turn=event.final)

    async def complete(
        self, message: Content | Message | None = None, *, artifacts: Sequence[Artifact] = ()
    ) -> None:
        """End the turn `completed`. `artifacts` are added in the same write: one store write
        (and one wake-up of waiting readers) instead of one per artifact plus one."""
        events: list[TaskEventPayload] = [self._artifact_event(a) for a in artifacts]
        events.append(status_event(self.task, TaskState.COMPLETED, self._message(message)))
        await self._emit(events, ends_turn=True)

    async def fail(self, message: Content | Message | None = None) -> None:
        await self.update_status(TaskState.FAILED, message)

    async def reject(self, message: Content | Message | None = None) -> None:
        await self.update_status(TaskState.REJECTED, message)

    async def requires_input(self, message: Content | Message | None = None) -> None:
        await self.update_status(TaskState.INPUT_REQUIRED, message)

    async def requires_auth(self, message: Content | Message | None = None) -> None:
        await self.update_status(TaskState.AUTH_REQUIRED, message)

    # --- artifacts ------------------------------------------------------------------------------

    async def add_artifact(
        self,
        content: Content | Artifact,
        *,
        artifact_id: str | None = None,
        name: str | None = None,
        description: str | None = None,
        append: bool = False,
        last_chunk: bool | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        """Add an artifact, replace one, or (with `append`) add a chunk to one. Returns its id."""
        if isinstance(content, Artifact):
            artifact = content
        else:
            artifact = Artifact(
                artifact_id=artifact_id or self._next_artifact_id(),
                parts=to_parts(content),
                name=name,
                description=description,
                metadata=metadata,
            )
        event = self._artifact_event(artifact, append=append, last_chunk=last_chunk)
        await self._emit([event], ends_turn=False)
        return artifact.artifact_id

    def _next_artifact_id(self) -> str:
        # Derived from the turn, not random: a turn run again after its worker died names its
        # artifacts as the dead run did, in the same order, so each replaces the dead run's
        # partial one instead of sitting beside it.
        self._artifacts_named += 1
        name = f"a2a-serverless:{self.task_id}:{self._step}:{self._artifacts_named}"
        return url_uuid(name)

    def _artifact_event(
        self, artifact: Artifact, *, append: bool = False, last_chunk: bool | None = None
    ) -> TaskArtifactUpdateEvent:
        return TaskArtifactUpdateEvent(
            task_id=self.task_id,
            context_id=self.context_id,
            artifact=artifact,
            append=append or None,
            last_chunk=last_chunk,
        )

    # --- the write ------------------------------------------------------------------------------

    def _message(self, message: Content | Message | None) -> Message | None:
        if message is None or isinstance(message, Message):
            return message
        return self.new_agent_message(message)

    async def _emit(self, events: list[TaskEventPayload], *, ends_turn: bool) -> None:
        if self._turn_over:
            raise TaskEnded("this turn has already ended")

        def decide(record: TaskRecord) -> Change:
            if record.task.status.state.is_terminal:
                raise TaskEnded(f"task is {record.state}")
            claim = record.claim
            if claim is None or claim.worker_id != self._worker_id or claim.step != self._step:
                raise TaskEnded("another worker has taken over this turn")
            if ends_turn:
                return Change(events=events, claim=None, internal={"doneStep": self._step})
            renewed = WorkerClaim(
                claim.step, claim.worker_id, now_ms() + self._lease_ms, claim.attempt
            )
            return Change(events=events, claim=renewed)

        self._record = await self._journal.write(self.task_id, decide, record=self._record)
        if ends_turn:
            self._turn_over = True
