"""The worker: runs one turn of a task when its `run-agent` job arrives from the Queue.

Queues deliver at least once, so a turn is claimed before it runs: the claim names the turn
(its step: the messageId that started it; `RunTurn.turn` in the job) and this worker, with a
lease. A second delivery of the same job finds the turn claimed (and waits for the lease to
run out, in case the first worker died) or done, and does not run the agent again. A job for
a step that is no longer current, or for a task that has ended, is dropped.

A worker that dies mid-turn (a crash, the function's timeout) leaves its events in the log; the
delivery that takes the turn over runs the agent again from the turn's start, and its events
follow the dead worker's. A turn started `max_attempts` times without ending fails with a reason
instead of being started again. A store that cannot be reached fails the job, not the task: the
queue delivers it again.

A job for a turn that is over may mean the worker that ran it died between a write and its
commit hooks (a push notification not queued): the journal's `catch_up` runs what they owe.
The worker knows nothing of push notifications.

A client's cancel reaches a running turn as `TaskEnded` from the agent's next write. An executor
with a cancel hook (`CancelableExecutor`: an executor class with `cancel`, an async `@agent`
function, an a2a-sdk executor) is watched instead: the turn's `execute` is stopped as soon as the
task is canceled (at once in this process or when a write of the turn's is refused, within
`cancel_poll_s` from another), as the SDK's server stops its executor, and its `cancel` is called
once, bounded by `cancel_timeout_s`, what it raises only logged. The agent may set both
(`Agent.cancel_poll_s`, `Agent.cancel_timeout_s`); the worker's are the defaults. This is the one
place of that rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Mapping
from typing import Protocol

from . import tracing
from .agent import Agent
from .durable.outcomes import TurnSuspended
from .executor import (
    AgentExecutor,
    CancelableExecutor,
    TaskEnded,
    TaskUpdater,
    has_cancel_hook,
)
from .holders import holder_is_dead
from .journal import Change, Journal, TaskGone, now_ms
from .lifecycle import status_event
from .models import Message, TaskState
from .observability import correlated_task
from .queue.base import Job, RetryJob, RunAgentJob
from .store.base import StoreUnavailable, TaskRecord, WorkerClaim
from .store.bookkeeping import TurnInfo
from .turn import ANONYMOUS_OWNER, Context, DurableOps, RemoteAgent, TurnOutcome, agent_message

log = logging.getLogger("a2a_serverless.worker")

SAFE_FAILURE_MESSAGE = "The agent failed while working on this task."
# A queue may hand one turn to a process twice at once (a redelivery, a retried send); the
# second waits this long for the first before asking to come back after a lease.
DUPLICATE_WAIT_S = 2.0
# How often a turn whose executor has a cancel hook reads its task to learn of a cancel made
# by another instance (one made in this process is seen at once): one store read per interval.
CANCEL_POLL_S = 2.0
# How long an executor's cancel hook may take to release what it holds.
CANCEL_HOOK_TIMEOUT_S = 10.0


class _Skip(Exception):
    pass


class TurnSession(DurableOps, Protocol):
    """A turn's durable operations, as the worker sets them up (durable/session.py)."""

    # How many updater writes earlier runs of the turn made (not made again).
    @property
    def replayed_writes(self) -> int: ...

    def attach(self, updater: TaskUpdater) -> None: ...

    def end_run(self) -> Awaitable[None] | None:
        """The run is over: stop its durable operations still running (ones the agent left
        unawaited). What is left to wait for, or None (a turn that made no durable operation:
        nothing to stop, no coroutine made)."""
        ...


class TurnSessions(Protocol):
    """Makes each turn's session (durable/session.py's `DurableCalls`)."""

    def begin(self, record: TaskRecord, step: str) -> TurnSession: ...


class Worker:
    def __init__(
        self,
        agent: Agent,
        journal: Journal,
        *,
        lease_s: float = 900.0,
        worker_id: str | None = None,
        max_attempts: int = 5,
        local_liveness: bool = False,
        remote_agents: Mapping[str, RemoteAgent] | None = None,
        cancel_poll_s: float = CANCEL_POLL_S,
        cancel_timeout_s: float = CANCEL_HOOK_TIMEOUT_S,
        durable: TurnSessions | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("a turn needs at least one attempt (max_attempts >= 1)")
        if cancel_poll_s <= 0:
            raise ValueError("cancel_poll_s must be positive")
        self.agent = agent
        self.journal = journal
        self.lease_s = lease_s
        self.max_attempts = max_attempts
        self.worker_id = worker_id or uuid.uuid4().hex
        # Every worker is on this machine (a SQLite store): a claim whose holder process has
        # exited is taken over at once rather than when its lease runs out (holders.py).
        self.local_liveness = local_liveness
        # The agents this one may call, handed to each turn's Context (`ctx.remote(name)`).
        self.remote_agents = dict(remote_agents or {})
        # The agent's durable operations (ctx.call, ctx.sleep, ctx.step): each turn gets a
        # session, which replays what earlier runs of the turn recorded (durable/session.py).
        self.durable = durable
        # Turns this process is claiming or running now: one delivery of a turn at a time gets
        # in (run_turn), so a claim of ours found while claiming is a leftover of a run that
        # stopped (the store failed under it), which may be taken over at once.
        # Each with the event set when it ends, for a duplicate delivery waiting on it: made by
        # the first duplicate, not for every turn (most never have one).
        self._running: dict[tuple[str, str], asyncio.Event | None] = {}
        # How long a second delivery of a running turn waits for it in this process.
        self.duplicate_wait_s = DUPLICATE_WAIT_S
        self.cancel_poll_s = cancel_poll_s
        self.cancel_timeout_s = cancel_timeout_s

    async def handle(self, job: Job) -> None:
        """A `run-agent` job: run its turn, its task named in the log lines meanwhile."""
        with correlated_task(job.task_id):
            await self.run_turn(job.task_id, _turn_of(job))

    async def run_job(self, job: Job) -> None:
        """`handle` for the job router, which names the job's task in the log lines itself:
        the job router's route for `run-agent`."""
        await self.run_turn(job.task_id, _turn_of(job))

    async def abandon(self, job: Job, reason: str) -> None:
        """A queue gave up on a `run-agent` job (its retries are spent; it went to a dead-letter
        queue): fail its task with `reason` (unless that turn is over or superseded already), so
        nobody waits for it forever. Safe to call more than once."""
        with correlated_task(job.task_id):
            await self._fail_abandoned_turn(job.task_id, _turn_of(job), reason)

    async def _fail_abandoned_turn(self, task_id: str, step: str, reason: str) -> None:
        def decide(record: TaskRecord) -> Change | None:
            if record.task.status.state.is_terminal:
                return None
            if record.step != step:
                return None
            if record.turn_done == step:
                return None
            message = agent_message(f"The task could not be run: {reason}", task=record.task)
            event = status_event(record.task, TaskState.FAILED, message)
            return Change(events=[event], claim=None, turn_done=step, bounded=False)

        log.error("task %s step %s abandoned by the queue: %s", task_id, step, reason)
        with contextlib.suppress(TaskGone):
            await self.journal.write(task_id, decide)

    async def run_turn(self, task_id: str, step: str) -> None:
        key = (task_id, step)
        if key in self._running:
            # Another delivery of this turn is being claimed or run in this process. A short
            # turn is over in a moment: wait for it, and this delivery is then answered (the turn
            # is done) without spending one of the queue's delivery attempts on a retry.
            ended = self._running[key]
            if ended is None:
                ended = self._running[key] = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ended.wait(), self.duplicate_wait_s)
        if key in self._running:
            # Still running: look again when a lease would run out, as for a run in another
            # worker. Marked before the claim is written, so a duplicate cannot read our fresh
            # claim as a stopped run's.
            raise RetryJob("turn is running in this worker", delay_s=self.lease_s)
        self._running[key] = None
        try:
            await self._claim_and_run(task_id, step)
        finally:
            ended = self._running.pop(key)
            if ended is not None:
                ended.set()

    async def _claim_and_run(self, task_id: str, step: str) -> None:
        try:
            record = await self._write_claim(task_id, step)
        except _Skip as skip:
            log.info("task %s step %s not run: %s", task_id, step, skip)
            # The worker that ran it may have died between a write and its commit hooks.
            await self.journal.catch_up(task_id)
            return
        except TaskGone:
            log.info("task %s step %s not run: the task is gone", task_id, step)
            return
        if record.turn_done == step:
            log.error("task %s step %s failed: started %d times", task_id, step, self.max_attempts)
            return
        session = self.durable.begin(record, step) if self.durable is not None else None
        context = self._context(record, step, session)
        updater = TaskUpdater(
            self.journal,
            record,
            worker_id=self.worker_id,
            step=step,
            lease_s=self.lease_s,
            skip_writes=session.replayed_writes if session is not None else 0,
        )
        if session is not None:
            session.attach(updater)
        try:
            with tracing.agent_run(self.agent.name, record.task_id, record.context_id) as run:
                outcome, failure = await self._run_agent(context, updater)
                if updater.canceled_elsewhere:
                    await self._call_cancel_hook(context, updater)
                run.set_attribute("a2a.turn.outcome", outcome)
                if failure is not None:
                    tracing.failed(failure)  # the agent's span
            if failure is not None:
                tracing.failed(failure)  # the turn's (the job's CONSUMER span)
        finally:
            if session is not None and (ending := session.end_run()) is not None:
                await ending

    async def _write_claim(self, task_id: str, step: str) -> TaskRecord:
        """Claim turn `step`, from the record that began it when this process committed it
        (handoff.py: no read first), else from a read."""
        handoff = self.journal.handoff
        begun = handoff.take(task_id, step) if handoff is not None else None
        if begun is not None:
            try:
                return await self.journal.write(
                    task_id, lambda r: self._claim(r, step), record=begun
                )
            except (_Skip, RetryJob):
                # Decided not to claim, perhaps on the handed-over record, which may be stale:
                # only a write is checked against the store. Decided again on a read.
                pass
        return await self.journal.write(task_id, lambda r: self._claim(r, step))

    def _claim(self, record: TaskRecord, step: str) -> Change:
        if record.task.status.state.is_terminal:
            raise _Skip(f"task is {record.state}")
        if record.step != step:
            raise _Skip("a newer turn has started")
        if record.turn_done == step:
            raise _Skip("turn already done")
        claim = record.claim
        now = now_ms()
        # No other delivery of this turn is active in this process (run_turn), so a claim of
        # ours is a stopped run's.
        ours_stopped = claim is not None and claim.worker_id == self.worker_id
        holder_dead = claim is not None and self.local_liveness and holder_is_dead(claim.worker_id)
        if (
            claim is not None
            and claim.step == step
            and claim.lease_until_ms > now
            and not ours_stopped
            and not holder_dead
        ):
            # Another worker is running this turn. Look again when its lease runs out: if it
            # died, this delivery takes over; if it finished, this one is dropped then.
            wait_s = (claim.lease_until_ms - now) / 1000
            raise RetryJob("turn is running in another worker", delay_s=wait_s)
        attempt = claim.attempt + 1 if claim is not None and claim.step == step else 1
        if ours_stopped and claim is not None and claim.step == step:
            # Our own run of this turn stopped because the store failed under it, not the
            # agent or the process: it does not count against the turn's attempts.
            attempt = claim.attempt
        if attempt > self.max_attempts:
            # Every worker that ran this turn died (a crash, or killed at the function's
            # timeout): another run would likely end the same way, and a queue that re-sends
            # the job while a lease is held never counts up to its dead-letter limit.
            return self._give_up(record, step)
        lease_until = now + int(self.lease_s * 1000)
        return Change(claim=WorkerClaim(step, self.worker_id, lease_until, attempt))

    def _give_up(self, record: TaskRecord, step: str) -> Change:
        reason = (
            f"The task could not be run: its worker stopped {self.max_attempts} times while "
            "working on it (a crash, the function's time limit or an unreachable store), so "
            "it is not run again."
        )
        event = status_event(record.task, TaskState.FAILED, agent_message(reason, task=record.task))
        return Change(events=[event], claim=None, turn_done=step, bounded=False)

    def _context(self, record: TaskRecord, step: str, durable: DurableOps | None) -> Context:
        turn = record.turn or TurnInfo(message_id=step)
        history = record.task.history or []
        index = _find_message(history, turn.message_id or step)
        # A taken-over turn may find the dead worker's progress messages after its message;
        # the agent sees the task as it was when the turn began.
        task = record.task.model_copy(update={"history": history[: index + 1]})
        return Context._of_every_field(
            task_id=record.task_id,
            context_id=record.context_id,
            message=history[index],
            task=task,
            metadata=turn.metadata,
            accepted_output_modes=turn.accepted_output_modes,
            extensions=turn.extensions,
            skill_id=turn.skill_id,
            owner=None if record.owner == ANONYMOUS_OWNER else record.owner,
            remote_agents=self.remote_agents,
            durable=durable,
        )

    async def _run_agent(self, context: Context, updater: TaskUpdater) -> tuple[str, str | None]:
        """Run the agent's turn to its end: what the turn left the task in (a state, or
        "stopped" when the task ended or was taken over under it), and the reason the task was
        failed for, if the agent raised, timed out or could not run."""
        budget = self.agent.time_budget_s
        executor = self.agent.executor
        if executor is None:
            # An agent that only answers directly makes no tasks; one found here (made before
            # a redeploy changed the agent) cannot be worked on.
            return await self._fail(
                updater, context, "This agent answers messages directly; it runs no tasks."
            )
        deadline: asyncio.Timeout | None = None
        try:
            if budget is None:
                # No budget, no timer: `asyncio.timeout(None)` would still cost ~0.8 us a turn.
                suspended = await self._execute(executor, context, updater)
            else:
                async with asyncio.timeout(budget) as deadline:
                    suspended = await self._execute(executor, context, updater)
            if suspended:
                return "suspended", None
            if not updater.turn_over:
                await updater.complete()
        except TaskEnded as ended:
            log.info("task %s: stopped working: %s", context.task_id, ended)
            return "stopped", None
        except StoreUnavailable:
            # The store failed, not the agent: the job fails and the queue delivers it again
            # (the turn is taken over once the lease ends). Failing the task here would turn a
            # short outage into lost work.
            raise
        except TimeoutError:
            if deadline is None or not deadline.expired():
                return await self._fail(updater, context, SAFE_FAILURE_MESSAGE, exc_info=True)
            message = f"The agent did not finish within its time budget of {budget:g} s."
            return await self._fail(updater, context, message)
        except Exception:
            return await self._fail(updater, context, SAFE_FAILURE_MESSAGE, exc_info=True)
        return updater.task.status.state.value, None

    async def _execute(
        self, executor: AgentExecutor, context: Context, updater: TaskUpdater
    ) -> bool:
        """The executor's `execute`, an outcome it raises written; True if the turn suspended."""
        try:
            if has_cancel_hook(executor):
                await self._call_watched(executor, context, updater)
            else:
                await executor.execute(context, updater)
        except TurnOutcome as outcome:
            await updater.update_status(TaskState(outcome.state), outcome.message)
        except TurnSuspended as suspended:
            # The turn waits for a durable operation: no failure, no retry; it is resumed
            # (replayed) when the operation's outcome arrives.
            await suspended.commit()
            return True
        return False

    async def _call_watched(
        self, executor: CancelableExecutor, context: Context, updater: TaskUpdater
    ) -> None:
        """`executor.execute` of an executor with a cancel hook, watched, and stopped
        (TaskEnded) as soon as the task ends or is taken over elsewhere, not at its next write:
        its hook is then called after it has unwound, never beside it.

        It runs in this task, not one of its own, and the watch costs a turn that ends before
        anyone cancels it a bus subscription and a timer: the watch cancels this task when it
        learns the turn is over, and the cancel it caused comes back out as `TaskEnded`.
        """
        poll_s = self.agent.cancel_poll_s or self.cancel_poll_s
        stopper = _Stopper()
        with updater.watch_end(poll_s=poll_s, on_end=stopper.turn_ended):
            try:
                if stopper.reason is None:  # else the turn was over before it began
                    await executor.execute(context, updater)
            except asyncio.CancelledError:
                if not stopper.withdraw() or stopper.others_pending():
                    raise  # not ours, or the time budget's / a shutdown's as well: theirs wins
            except BaseException:
                if not stopper.withdraw():
                    raise
            else:
                stopper.withdraw()  # in case it swallowed the cancel
                if stopper.reason is None:
                    return
            finally:
                stopper.executing = False
        raise TaskEnded(stopper.reason)

    async def _call_cancel_hook(self, context: Context, updater: TaskUpdater) -> None:
        """A client canceled the task while this turn ran: the executor's cancel hook, if it has
        one, once; bounded by `cancel_timeout_s`, and what it raises only logged (the task is
        canceled whatever it does)."""
        executor = self.agent.executor
        if not has_cancel_hook(executor):
            return
        timeout_s = self.agent.cancel_timeout_s or self.cancel_timeout_s
        try:
            async with asyncio.timeout(timeout_s):
                await executor.cancel(context, updater)
        except TimeoutError:
            log.warning(
                "task %s: the executor's cancel() took over %g s", context.task_id, timeout_s
            )
        except Exception:
            log.warning("task %s: the executor's cancel() raised", context.task_id, exc_info=True)

    async def _fail(
        self, updater: TaskUpdater, context: Context, message: str, *, exc_info: bool = False
    ) -> tuple[str, str]:
        # The client sees only `message`; the traceback stays in the logs.
        log.error("task %s failed: %s", context.task_id, message, exc_info=exc_info)
        with contextlib.suppress(TaskEnded):
            await updater.fail(message)
        return TaskState.FAILED.value, message


class _Stopper:
    """Cancels the task running a watched `execute` when its watch says the turn is over
    elsewhere, and tells the cancel it caused from any other (the time budget's
    `asyncio.timeout` counts cancels: its count is kept balanced)."""

    def __init__(self) -> None:
        task = asyncio.current_task()
        assert task is not None  # the worker runs in a task
        self._task = task
        self._cancels_before = task.cancelling()
        self._canceled = False
        self.executing = True
        self.reason: str | None = None

    def turn_ended(self, reason: str | None) -> None:
        """The watch's `on_end`: None (the turn ended itself) lets `execute` finish."""
        if reason is None:
            return
        self.reason = reason
        # Not `cancel()` here: this may run in the turn's own task (its write refused), which
        # would then be cancelled at whatever it awaits next, `execute` over or not.
        asyncio.get_running_loop().call_soon(self._cancel)

    def _cancel(self) -> None:
        if self.executing:
            self._canceled = self._task.cancel()

    def withdraw(self) -> bool:
        """Take back this stopper's cancel of the task, if it made one: True if it did."""
        if not self._canceled:
            return False
        self._canceled = False
        self._task.uncancel()
        return True

    def others_pending(self) -> bool:
        """True if the task has cancels other than this stopper's pending."""
        return self._task.cancelling() > self._cancels_before


def _turn_of(job: Job) -> str:
    if not isinstance(job, RunAgentJob):
        raise TypeError(f"the worker runs run-agent jobs, not {job.kind!r}")
    return job.payload.turn


def _find_message(history: list[Message], message_id: str) -> int:
    for index in range(len(history) - 1, -1, -1):
        if history[index].message_id == message_id:
            return index
    raise LookupError(f"message {message_id!r} is not in the task's history")
