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
When `execute` returns without ending the turn, the task is completed. A write that would take
the task over `max_task_bytes` is not made: the task fails, its status message naming the limit
and the figures, and the call raises `TaskEnded`.

The verbs are the official SDK's (`start_work`, `complete`, `failed`, `reject`, `cancel`,
`requires_input`, `requires_auth`; `fail` is kept as another name for `failed`). There is no
`submit`: the core submits a task when its message arrives, before any turn runs.

An executor may also have `async cancel(context, updater)` (`CancelableExecutor`), as the SDK's
has: when a client cancels the task while its turn runs, the worker stops `execute` at once and
calls `cancel` once, so the agent can release what it holds (worker.py).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from .bus import Subscription
from .ids import url_uuid
from .journal import Change, Journal, TaskTooLarge, now_ms
from .lifecycle import status_event
from .models import (
    Artifact,
    Message,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
)
from .store.base import (
    StoreLimitExceeded,
    StoreUnavailable,
    TaskEventPayload,
    TaskRecord,
    WorkerClaim,
)
from .turn import Content, Context, agent_message, to_parts

log = logging.getLogger("a2a_serverless.worker")


@runtime_checkable
class AgentExecutor(Protocol):
    """Runs a task's turns: `execute` once per turn, writing through the updater. It may also
    have a cancel hook (`CancelableExecutor`)."""

    async def execute(self, context: Context, updater: TaskUpdater) -> None: ...


@runtime_checkable
class CancelableExecutor(AgentExecutor, Protocol):
    """An executor with the optional cancel hook (the SDK's `AgentExecutor.cancel`)."""

    async def cancel(self, context: Context, updater: TaskUpdater) -> None:
        """A client canceled the task while this turn ran: release what the turn holds.

        Called once, after `execute` has been stopped (cancelled), with the turn's context and
        updater: the task is canceled already, so the updater's writes raise `TaskEnded`; its
        `task` is the task as the turn last saw it. Bounded by the worker's `cancel_timeout_s`;
        what it raises is logged and changes nothing. Not called when the turn ends by itself,
        nor when the task is canceled between turns (no turn of it is running then).
        """
        ...


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
        skip_writes: int = 0,
    ) -> None:
        """`skip_writes`: how many writes earlier runs of this turn made (a suspended turn's
        replay, durable/session.py): the first that many are not made again."""
        self._journal = journal
        self._record = record
        self._worker_id = worker_id
        self._step = step
        self._lease_ms = int(lease_s * 1000)
        self._turn_over = False
        self._canceled_elsewhere = False
        self._artifacts_named = 0
        self._skip_writes = skip_writes
        self._writes = 0
        # `wait_ended`'s subscription while it waits: a write of ours refused wakes it at once.
        self._watching: Subscription | None = None

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
    def writes(self) -> int:
        """How many writes this turn has asked for (those skipped on a replay included)."""
        return self._writes

    @property
    def turn_over(self) -> bool:
        """True once the turn has ended (a terminal or input/auth-required state was written)."""
        return self._turn_over

    @property
    def canceled_elsewhere(self) -> bool:
        """True once this updater has found the task canceled by someone else (a client): a
        write of its refused, or `wait_ended` woken by it."""
        return self._canceled_elsewhere

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

    async def failed(self, message: Content | Message | None = None) -> None:
        """End the turn `failed` (the SDK's name for it)."""
        await self.update_status(TaskState.FAILED, message)

    async def fail(self, message: Content | Message | None = None) -> None:
        """The same as `failed`: this kit's earlier name, kept."""
        await self.failed(message)

    async def cancel(self, message: Content | Message | None = None) -> None:
        """End the task `canceled`: the agent gives it up itself (a client cancels through
        `tasks/cancel` / `CancelTask`, which reaches a running turn as `TaskEnded`)."""
        await self.update_status(TaskState.CANCELED, message)

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
        self._writes += 1
        if self._writes <= self._skip_writes:
            return  # made by an earlier run of this turn

        def decide(record: TaskRecord) -> Change:
            renewed = self.renewed_claim(record)
            if ends_turn:
                return Change(events=events, claim=None, turn_done=self._step)
            return Change(events=events, claim=renewed)

        try:
            self._record = await self._journal.write(self.task_id, decide, record=self._record)
        except TaskTooLarge as too_large:
            await self._fail_too_large(too_large)
            raise TaskEnded(f"the task is over max_task_bytes ({too_large.maximum})") from None
        except StoreLimitExceeded as over:
            await self._fail_over_store_limit(over)
            raise TaskEnded(f"the task is over {over.store_limit} ({over.maximum})") from None
        if ends_turn:
            self._turn_over = True

    async def _fail_too_large(self, too_large: TaskTooLarge) -> None:
        """The agent's output would take the task over its bound: it is not written, and the
        task fails, its status message saying why (the limit and the figures)."""
        reason = (
            f"The agent's output would make this task {too_large.actual} bytes, over the "
            f"limit of {too_large.maximum} bytes a task may hold (A2A_MAX_TASK_BYTES), so it "
            "was not kept and the task has failed."
        )
        log.warning(
            "task %s failed: output over max_task_bytes (%d > %d)",
            self.task_id,
            too_large.actual,
            too_large.maximum,
        )
        await self._fail_saying(reason)

    async def _fail_over_store_limit(self, over: StoreLimitExceeded) -> None:
        """The agent's output would break one of the store's own limits (a DynamoDB item, a
        Firestore document): it is not written, and the task fails saying why."""
        reason = (
            f"The agent's output would need {over.size} bytes in {over.store_limit}, which "
            f"takes at most {over.maximum}, so it was not kept and the task has failed (the "
            "store keeps parts over 16 KB in its content bucket when it has one)."
        )
        log.warning("task %s failed: output over the store's limit: %s", self.task_id, over)
        await self._fail_saying(reason)

    async def _fail_saying(self, reason: str) -> None:
        def decide(record: TaskRecord) -> Change:
            refusal = self._not_ours(record)
            if refusal is not None:
                raise TaskEnded(refusal)
            message = agent_message(reason, task=record.task)
            event = status_event(record.task, TaskState.FAILED, message)
            return Change(events=[event], claim=None, turn_done=self._step, bounded=False)

        self._record = await self._journal.write(self.task_id, decide)
        self._turn_over = True

    def renewed_claim(self, record: TaskRecord) -> WorkerClaim:
        """This turn's claim on `record`, its lease renewed; TaskEnded if it is no longer ours.
        For a write made on this turn's behalf (a durable operation's record)."""
        refusal = self._not_ours(record)
        if refusal is not None:
            raise TaskEnded(refusal)
        claim = record.claim
        assert claim is not None  # _not_ours checked it
        return WorkerClaim(claim.step, claim.worker_id, now_ms() + self._lease_ms, claim.attempt)

    def _not_ours(self, record: TaskRecord) -> str | None:
        """`_refusal`, for a write of this turn's: a refusal also wakes `wait_ended`."""
        refusal = self._refusal(record)
        if refusal is not None and self._watching is not None:
            # What a write of ours found (read fresh from the store) is news to the watch.
            self._watching.wake(record)
        return refusal

    def _refusal(self, record: TaskRecord) -> str | None:
        """Why this turn may no longer write to `record`'s task, or None if it may (and notes
        a cancel found, for `canceled_elsewhere`)."""
        state = record.task.status.state
        if state.is_terminal:
            if state is TaskState.CANCELED:
                self._canceled_elsewhere = True
            return f"task is {record.state}"
        claim = record.claim
        if claim is None or claim.worker_id != self._worker_id or claim.step != self._step:
            return "another worker has taken over this turn"
        return None

    async def wait_ended(self, *, poll_s: float) -> str | None:
        """Wait until the task ends or this turn is taken over elsewhere (a cancel, another
        worker): returns why. Returns None once this updater itself ends the turn.

        For an executor that can stop early (e.g. to call an SDK's cancel) rather than learn it
        from its next write: a write in this process wakes it at once, one in another process
        (a cancel through another function instance) within `poll_s` seconds, a store read each,
        or as soon as a write of this updater is refused.
        """
        with self._journal.bus.subscribe(self.task_id) as woken:
            self._watching = woken
            try:
                record: TaskRecord | None = self._record
                while not self._turn_over:
                    if record is not None:
                        if record.turn_done == self._step:
                            # This turn's end was written (by this updater, or by a give-up).
                            return None
                        refusal = self._refusal(record)
                        if refusal is not None:
                            return refusal
                    await woken.wait(poll_s)
                    record = woken.latest()
                    if record is None:
                        try:
                            record = await self._journal.store.get_task(self.task_id)
                        except StoreUnavailable:
                            # The turn's own next write will meet the outage; keep watching.
                            continue
                        if record is None:
                            return "the task is gone"
            finally:
                self._watching = None
        return None
