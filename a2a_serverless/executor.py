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

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeGuard, runtime_checkable

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


def has_cancel_hook(executor: AgentExecutor | None) -> TypeGuard[CancelableExecutor]:
    """`isinstance(executor, CancelableExecutor)` for an executor (it has `cancel`), asked once
    per turn: the Protocol's own check takes ~5 µs (Python 3.12) when the answer is no."""
    return getattr(executor, "cancel", None) is not None


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
        # The watches on this turn (`watch_end`): a write of ours refused tells them at once.
        self._watches: list[TurnWatch] = []

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
        write of its refused, or a watch (`watch_end`, `wait_ended`) told of it."""
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
        await self._emit([event], ends_turn=state.ends_stream)

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
        """`_refusal`, for a write of this turn's: a refusal also tells the turn's watches."""
        refusal = self._refusal(record)
        if refusal is not None:
            # What a write of ours found (read fresh from the store) is news to the watches,
            # which need not wait for their next poll to learn it.
            for watch in tuple(self._watches):
                watch.check(record)
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

    def watch_end(self, *, poll_s: float, on_end: Callable[[str | None], None]) -> TurnWatch:
        """Watch for the task's end or this turn's takeover elsewhere (a cancel, another
        worker), without a task of its own: `on_end` is called once, synchronously, with why,
        or with None when this turn's end is written (by this updater, or by a give-up). Close
        the watch (it is a context manager) when the turn's work is over.

        A write in this process tells it at once (in the writer's task), as does a write of
        this updater's refused; one in another process (a cancel through another function
        instance) is learnt by a store read every `poll_s` seconds, the first `poll_s` after
        the watch starts (a turn shorter than that reads nothing).
        """
        return TurnWatch(self, poll_s=poll_s, on_end=on_end)

    async def wait_ended(self, *, poll_s: float) -> str | None:
        """Wait until the task ends or this turn is taken over elsewhere (a cancel, another
        worker): returns why. Returns None once this updater itself ends the turn.

        For an executor that can stop early (e.g. to call an SDK's cancel) rather than learn it
        from its next write; `watch_end` says when each kind of end is seen.
        """
        if self._turn_over:
            return None
        ended: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def on_end(reason: str | None) -> None:
            if not ended.done():  # cancelled: our waiter is unwinding
                ended.set_result(reason)

        with self.watch_end(poll_s=poll_s, on_end=on_end):
            return await ended


class TurnWatch:
    """`TaskUpdater.watch_end`'s watch: a bus subscription whose writes are checked as they are
    delivered, and a timer that starts a store read when one is due."""

    def __init__(
        self, updater: TaskUpdater, *, poll_s: float, on_end: Callable[[str | None], None]
    ) -> None:
        self._updater = updater
        self._poll_s = poll_s
        self._on_end: Callable[[str | None], None] | None = on_end
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._reading: asyncio.Task[None] | None = None
        self._subscription = updater._journal.bus.subscribe(updater.task_id, on_write=self.check)
        updater._watches.append(self)
        self.check(updater._record)
        if self.watching:
            self._timer = self._loop.call_later(poll_s, self._poll)

    @property
    def watching(self) -> bool:
        """False once `on_end` has been called or the watch closed."""
        return self._on_end is not None

    def check(self, record: TaskRecord | None) -> None:
        """What a write in this process committed (None: it did not say; the store is read)."""
        if self._on_end is None:
            return
        if record is None:
            self._read_now()
        elif record.turn_done == self._updater._step:
            self._end(None)
        else:
            refusal = self._updater._refusal(record)
            if refusal is not None:
                self._end(refusal)

    def _end(self, reason: str | None) -> None:
        on_end = self._on_end
        self.close()
        assert on_end is not None  # check and _read ask `watching` first
        on_end(reason)

    def _poll(self) -> None:
        self._timer = None
        self._read_now()

    def _read_now(self) -> None:
        if self._reading is None:
            self._reading = self._loop.create_task(self._read())

    async def _read(self) -> None:
        updater = self._updater
        try:
            record = await updater._journal.store.get_task(updater.task_id)
        except StoreUnavailable:
            # The turn's own next write will meet the outage; keep watching.
            record = updater._record
        finally:
            self._reading = None  # before any `_end`: `close` cancels a read in flight
        if record is None:
            if self.watching:
                self._end("the task is gone")
            return
        self.check(record)
        if self.watching and self._timer is None:
            self._timer = self._loop.call_later(self._poll_s, self._poll)

    def close(self) -> None:
        """Stop watching; `on_end` is not called after this. A store read in flight is
        cancelled."""
        if self._on_end is None:
            return
        self._on_end = None
        self._subscription.close()
        self._updater._watches.remove(self)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._reading is not None:
            self._reading.cancel()
            self._reading = None

    def __enter__(self) -> TurnWatch:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
