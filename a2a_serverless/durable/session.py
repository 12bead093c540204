"""One turn's durable operations (`ctx.call`, `ctx.sleep`, `ctx.step`), their replay, and the
turn's suspension.

Each operation takes the next position of the turn as it starts (in the order the agent starts
them: `asyncio.gather` starts its calls in argument order) and is recorded at that position in
the task record (`DurableTurn`, store/bookkeeping.py, written through the journal on this
turn's claim). When the turn runs again — a continuation after a suspension, or a takeover
after a crash — the agent runs from its start: an operation whose record is finished returns
the recorded outcome without going out again, the updater's writes the earlier runs made are
not made again (`TaskUpdater(skip_writes=...)`), and an operation that is not the one recorded
at its position fails the turn (`NonDeterministicReplay`).

A call sends its message with a messageId derived from (task, turn, position), so a send made
again after a crash is the same message (the remote de-duplicates it), and, when the remote
offers push notifications and this deployment knows its public URL, a push config naming an
unguessable callback URL of ours with a random token (resume.py answers it). It then waits up
to `durable_inline_wait_s` for the remote task to end; if it has not, the turn suspends
(`TurnSuspended`): the worker commits it (`suspend`): our task stays `working` with a status
message naming what it waits for, the claim is released, and a `durable-check` job is queued
to poll (resume.py), so no worker is held while the remote works.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import json
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import msgspec

from ..codec import ENCODER
from ..config import Settings
from ..errors import A2AError
from ..executor import TaskEnded, TaskUpdater
from ..ids import url_uuid
from ..journal import Change, Journal, now_ms
from ..lifecycle import status_event
from ..models import Message, Task, TaskPushNotificationConfig, TaskState
from ..publicurl import PublicPrefix, agent_url, clean_prefix, resolved_prefix
from ..queue.base import DurableCheck, DurableCheckJob, Queue, RunAgentJob, RunTurn
from ..routepaths import CALLBACK_PREFIX
from ..store import legacy
from ..store.base import TaskRecord
from ..store.bookkeeping import DurableOp, DurableTurn, durable_of
from ..turn import Failed, agent_message, to_parts
from .outcomes import (
    CallDeadlineExceeded,
    CallError,
    CallResult,
    RemoteCanceled,
    RemoteFailed,
    RemoteRejected,
    RemoteUnavailable,
    TurnSuspended,
)
from .remotes import Remotes

log = logging.getLogger("a2a_serverless.durable")

# The longest delay one job is queued with (SQS's maximum): a longer wait is chained.
MAX_QUEUE_DELAY_S = 900.0
# How often a call looks at its remote task while it waits inline.
INLINE_POLL_FIRST_S = 0.1
INLINE_POLL_MAX_S = 1.0
# How long the end of a run waits for the operations it stops to unwind.
END_RUN_WAIT_S = 5.0


class NonDeterministicReplay(Failed):
    """The turn, run again, brought another operation to a recorded position: the agent is not
    deterministic between durable operations (docs/durable-calls.md). The task fails with this
    message."""


def ended(task: Task) -> bool:
    """Whether a remote task is over for its caller: terminal, or asking for input."""
    return task.status.state.ends_stream


def remote_result_json(reply: Task | Message) -> str:
    """The JSON recorded for a remote's outcome: the Task without its history (the caller has
    its own), or the direct reply."""
    if isinstance(reply, Task):
        reply = reply.model_copy(update={"history": None})
    return ENCODER.encode(reply).decode()


def finished_op(op: DurableOp, reply: Task | Message, by: str, max_bytes: int) -> DurableOp:
    """`op` with the remote's outcome recorded (or `too-large`, which the call raises for)."""
    result = remote_result_json(reply)
    if len(result.encode()) > max_bytes:
        return msgspec.structs.replace(op, state="too-large", ended_at_ms=now_ms(), resumed_by=by)
    return msgspec.structs.replace(
        op, state="done", result=result, ended_at_ms=now_ms(), resumed_by=by
    )


def callback_path(task_id: str, callback_id: str) -> str:
    return f"{CALLBACK_PREFIX}{task_id}/{callback_id}"


def check_job(
    task_id: str, turn: DurableTurn, settings: Settings, poll_s: float
) -> DurableCheckJob:
    """The `durable-check` job of `turn`'s current suspension: due at its next poll, or earlier
    if a sleep wakes or a deadline passes first."""
    now = now_ms()
    due = now + int(poll_s * 1000)
    for op in turn.ops.values():
        if op.finished:
            continue
        for at in (op.wake_at_ms, op.deadline_at_ms):
            if at is not None:
                due = min(due, at)
    turn_deadline = turn_deadline_ms(turn, settings)
    if turn_deadline is not None:
        due = min(due, turn_deadline)
    return DurableCheckJob(
        task_id=task_id,
        payload=DurableCheck(
            turn=turn.step, generation=turn.generation, due_at_ms=max(due, now), poll_s=poll_s
        ),
    )


def queue_delay_s(due_at_ms: int) -> float:
    """How long to queue a job due at `due_at_ms` (chained beyond what a queue can hold)."""
    return min(max(0.0, (due_at_ms - now_ms()) / 1000), MAX_QUEUE_DELAY_S)


def turn_deadline_ms(turn: DurableTurn, settings: Settings) -> int | None:
    if settings.durable_turn_deadline_s is None or not turn.started_at_ms:
        return None
    return turn.started_at_ms + int(settings.durable_turn_deadline_s * 1000)


class DurableCalls:
    """What every turn's durable operations share in a process: the journal, the queue, the
    remote agents and the settings; `begin` makes a turn's session."""

    def __init__(
        self,
        journal: Journal,
        queue: Queue,
        settings: Settings,
        remotes: Remotes,
        public_prefix: PublicPrefix = "",
    ) -> None:
        self.journal = journal
        self.queue = queue
        self.settings = settings
        self.remotes = remotes
        self._public_prefix = (
            clean_prefix(public_prefix) if isinstance(public_prefix, str) else public_prefix
        )

    def callback_url(self, task_id: str, callback_id: str) -> str | None:
        """Our callback URL for one call, or None when this deployment's public URL is not
        configured (A2A_PUBLIC_URL): its calls are then resumed by polls alone. The route is
        under the agent's public prefix (a FastAPI mount's: mountprefix.py), found on first
        use."""
        if callable(self._public_prefix) and self.settings.public_url:
            self._public_prefix = resolved_prefix(self._public_prefix)
        base = agent_url(self.settings.public_url, self._public_prefix)
        return None if base is None else base + callback_path(task_id, callback_id)

    def begin(
        self, record: TaskRecord, step: str, started_at_ms: int | None = None
    ) -> DurableSession:
        """The session of a run of turn `step`; `started_at_ms`: when the turn began, if not
        now (a DeferredSession makes this one at the turn's first durable operation)."""
        return DurableSession(self, record, step, started_at_ms)


class DurableSession:
    """The durable operations of one run of one turn (the `DurableOps` its Context holds)."""

    def __init__(
        self,
        calls: DurableCalls,
        record: TaskRecord,
        step: str,
        started_at_ms: int | None = None,
    ) -> None:
        self._calls = calls
        self._settings = calls.settings
        self.task_id = record.task_id
        self.turn_step = step
        kept = durable_of(record.internal)
        self._turn = (
            kept
            if kept is not None and kept.step == step
            # One start for the turn: its calls' deadlines and its own count from it.
            else DurableTurn(
                step, started_at_ms=now_ms() if started_at_ms is None else started_at_ms
            )
        )
        # How many updater writes earlier runs of this turn made: not made again.
        self.replayed_writes = self._turn.writes
        self._next_position = 0
        # Positions this run waits on (a call's outcome, a sleep's end), and the asyncio tasks
        # running operations (a suspension cancels those still running).
        self._awaiting: set[int] = set()
        self._running: set[asyncio.Task[Any]] = set()
        self._suspending = False
        self._updater: TaskUpdater | None = None

    def attach(self, updater: TaskUpdater) -> None:
        self._updater = updater

    # --- the operations -------------------------------------------------------------------------

    async def call(
        self,
        remote: str,
        message: str | Message,
        *,
        deadline_s: float | None = None,
        task_id: str | None = None,
    ) -> CallResult:
        position = self._take_position()
        with self._operation():
            url = await self._calls.remotes.resolve(remote)
            outgoing = self._outgoing(message, task_id, position)
            key = f"call {url} {_digest(outgoing)}"
            op = self._replayed(position, "call", key)
            fresh = op is None or (not op.finished and op.remote_task_id is None)
            if fresh:
                op = await self._send(position, url, key, outgoing, deadline_s, op)
            assert op is not None
            if not op.finished:
                op = await self._wait_for_call(position, op, inline=fresh)
            return _call_outcome(op, self._settings)

    async def sleep(self, seconds: float) -> None:
        position = self._take_position()
        with self._operation():
            key = f"sleep {seconds:g}"
            op = self._replayed(position, "sleep", key)
            if op is None:
                now = now_ms()
                op = DurableOp(
                    kind="sleep", key=key, started_at_ms=now, wake_at_ms=now + int(seconds * 1000)
                )
                await self._record(position, op)
            if op.finished:
                return
            assert op.wake_at_ms is not None
            remaining = (op.wake_at_ms - now_ms()) / 1000
            if remaining > self._settings.durable_inline_wait_s:
                self._awaiting.add(position)
                raise TurnSuspended(self.suspend, f"sleeping until {_iso(op.wake_at_ms)}")
            if remaining > 0:
                await asyncio.sleep(remaining)
            # Over: a later suspension's check does not wake the turn for it again.
            await self._record(
                position, msgspec.structs.replace(op, state="done", ended_at_ms=now_ms())
            )

    async def step(self, fn: Callable[[], Any | Awaitable[Any]], *, name: str | None = None) -> Any:
        position = self._take_position()
        with self._operation():
            key = f"step {name or getattr(fn, '__qualname__', type(fn).__name__)}"
            op = self._replayed(position, "step", key)
            if op is not None and op.result is not None:
                return json.loads(op.result)
            value = fn()
            if inspect.isawaitable(value):
                value = await value
            result = json.dumps(value, separators=(",", ":"))  # TypeError if not JSON
            limit = self._settings.durable_max_result_bytes
            if len(result.encode()) > limit:
                raise ValueError(
                    f"ctx.step {key!r} returned {len(result.encode())} bytes of JSON, over "
                    f"A2A_DURABLE_MAX_RESULT_BYTES ({limit})"
                )
            now = now_ms()
            await self._record(
                position,
                DurableOp(
                    kind="step",
                    key=key,
                    state="done",
                    started_at_ms=now,
                    ended_at_ms=now,
                    result=result,
                ),
            )
            return json.loads(result)

    # --- suspension -----------------------------------------------------------------------------

    async def suspend(self) -> None:
        """Write the suspension (the worker calls it through `TurnSuspended.commit`): the task
        stays `working`, saying what it waits for, the claim is released, and a check is queued
        — or, if what this run waited for has arrived meanwhile, the turn is queued again."""
        self._suspending = True
        current = asyncio.current_task()
        for task in list(self._running):
            if task is not current:
                task.cancel()
        writes = self._updater.writes if self._updater is not None else 0
        awaiting = set(self._awaiting)
        now = now_ms()
        ready = False

        def decide(record: TaskRecord) -> Change:
            nonlocal ready
            self._require_ours(record)
            turn = self._current(record)
            ready = any(_arrived(turn.op(p), now) for p in awaiting)
            turn = msgspec.structs.replace(
                turn,
                writes=max(turn.writes, writes),
                suspended=True,
                generation=turn.generation + 1,
            )
            message = agent_message(_waiting_text(turn, now), task=record.task)
            event = status_event(record.task, TaskState.WORKING, message)
            return Change(events=[event], claim=None, durable=turn)

        record = await self._calls.journal.write(self.task_id, decide)
        turn = self._current(record)
        if ready:
            await self._calls.queue.enqueue(
                RunAgentJob(task_id=self.task_id, payload=RunTurn(self.turn_step))
            )
            return
        job = check_job(self.task_id, turn, self._settings, self._settings.durable_poll_initial_s)
        await self._calls.queue.enqueue(job, delay_s=queue_delay_s(job.payload.due_at_ms))
        log.info(
            "task %s turn suspended (%d durable operations waiting)",
            self.task_id,
            sum(1 for op in turn.ops.values() if not op.finished),
        )

    async def end_run(self) -> None:
        """The run is over (the agent returned, raised or suspended): stop its operations still
        running — a call it did not await, or one `asyncio.gather` left when another raised.
        Their remote tasks are the journal's commit hook's to cancel (resume.py `left_behind`);
        a run must not go on reading them, or write for a turn that has ended."""
        current = asyncio.current_task()
        left = [task for task in self._running if task is not current and not task.done()]
        for task in left:
            task.cancel()
        if left:
            # Bounded: agent code around an operation could swallow the cancel.
            await asyncio.wait(left, timeout=END_RUN_WAIT_S)
            for task in left:
                if task.done() and not task.cancelled():
                    task.exception()  # retrieved: what a stopped operation raised is moot

    # --- calls ----------------------------------------------------------------------------------

    def _outgoing(self, message: str | Message, task_id: str | None, position: int) -> Message:
        # The same message on every run of the turn: a send made again is de-duplicated.
        message_id = url_uuid(f"a2a-serverless:durable:{self.task_id}:{self.turn_step}:{position}")
        if isinstance(message, str):
            return Message(
                message_id=message_id, role="user", parts=to_parts(message), task_id=task_id
            )
        update: dict[str, Any] = {"message_id": message_id, "role": "user"}
        if task_id is not None:
            update["task_id"] = task_id
        return message.model_copy(update=update)

    async def _send(
        self,
        position: int,
        url: str,
        key: str,
        outgoing: Message,
        deadline_s: float | None,
        op: DurableOp | None,
    ) -> DurableOp:
        client = await self._calls.remotes.client(url)
        if op is None:
            now = now_ms()
            deadlines = [] if deadline_s is None else [now + int(deadline_s * 1000)]
            turn_deadline = turn_deadline_ms(self._turn, self._settings)
            if turn_deadline is not None:
                deadlines.append(turn_deadline)
            op = DurableOp(
                kind="call",
                key=key,
                remote=url,
                started_at_ms=now,
                callback_id=secrets.token_urlsafe(24),
                callback_token=secrets.token_urlsafe(32),
                deadline_at_ms=min(deadlines) if deadlines else None,
            )
            # Recorded before it is sent: the callback it names must find it.
            await self._record(position, op)
        push = None
        assert op.callback_id is not None
        callback = self._calls.callback_url(self.task_id, op.callback_id)
        if callback is not None and self._calls.remotes.offers_push(client):
            push = TaskPushNotificationConfig(url=callback, token=op.callback_token)
        from ..client import ClientError  # loaded with the client above

        send = asyncio.ensure_future(client.send(outgoing, blocking=False, push=push))
        try:
            reply = await asyncio.shield(send)
        except asyncio.CancelledError:
            if not self._suspending:
                # The run stopped this call while its message was on the way (the turn ended,
                # or our task was canceled): the remote may have started a task no record
                # names, which nothing else would cancel. A suspension keeps it: the next run
                # sends the same message again and the remote answers with the same task.
                await _cancel_once_sent(send, self._calls.remotes, url)
            raise
        except (ClientError, A2AError) as exc:
            raise RemoteUnavailable(
                f"the agent at {url} did not take the message: {exc}", remote=url
            ) from None
        limit = self._settings.durable_max_result_bytes
        if isinstance(reply, Message):
            op = finished_op(op, reply, "inline", limit)
        else:
            op = msgspec.structs.replace(op, remote_task_id=reply.id)
            if ended(reply):
                op = finished_op(op, reply, "inline", limit)
        await self._record(position, op)
        return op

    async def _wait_for_call(self, position: int, op: DurableOp, *, inline: bool) -> DurableOp:
        """The call's outcome within the inline window (one look only, on a replay of a call
        that was already waited for); TurnSuspended if it has not come."""
        assert op.remote is not None and op.remote_task_id is not None
        self._awaiting.add(position)
        client = await self._calls.remotes.client(op.remote)
        window = self._settings.durable_inline_wait_s if inline else 0.0
        until = time.monotonic() + window
        pause = INLINE_POLL_FIRST_S
        while True:
            if op.deadline_at_ms is not None and now_ms() >= op.deadline_at_ms:
                op = await self._past_deadline(position, op)
                break
            task = await self._look(client, op)
            if task is not None and ended(task):
                limit = self._settings.durable_max_result_bytes
                op = finished_op(op, task, "inline", limit)
                await self._record(position, op)
                break
            window_left = until - time.monotonic()
            deadline_left = (
                math.inf if op.deadline_at_ms is None else (op.deadline_at_ms - now_ms()) / 1000
            )
            if window_left <= 0 and deadline_left > 0:
                raise TurnSuspended(
                    self.suspend, f"waiting for {op.remote} (task {op.remote_task_id})"
                )
            # Past both, the deadline is handled at the top of the loop.
            await asyncio.sleep(max(0.0, min(pause, window_left, deadline_left)))
            pause = min(pause * 2, INLINE_POLL_MAX_S)
        self._awaiting.discard(position)
        return op

    async def _look(self, client: Any, op: DurableOp) -> Task | None:
        """The remote task now, or None if it cannot be read just now (a suspension's poll
        will look again)."""
        from ..client import ClientError

        assert op.remote_task_id is not None
        try:
            task: Task = await client.get_task(op.remote_task_id, history_length=0)
        except (ClientError, A2AError) as exc:
            log.warning("task %s: could not read its remote task: %s", self.task_id, exc)
            return None
        return task

    async def _past_deadline(self, position: int, op: DurableOp) -> DurableOp:
        await cancel_remote(self._calls.remotes, op.remote, op.remote_task_id)
        op = msgspec.structs.replace(op, state="deadline", ended_at_ms=now_ms())
        await self._record(position, op)
        return op

    # --- records --------------------------------------------------------------------------------

    def _take_position(self) -> int:
        if self._suspending:
            # The turn is suspending: nothing more starts in this run.
            raise TurnSuspended(self.suspend, "suspending")
        position = self._next_position
        self._next_position += 1
        return position

    @contextlib.contextmanager
    def _operation(self) -> Iterator[None]:
        task = asyncio.current_task()
        if task is None:
            yield
            return
        self._running.add(task)
        try:
            yield
        finally:
            self._running.discard(task)

    def _replayed(self, position: int, kind: str, key: str) -> DurableOp | None:
        """The operation recorded at `position`, if any; NonDeterministicReplay if another
        operation was recorded there."""
        op = self._turn.op(position)
        if op is None:
            return None
        if op.kind != kind or op.key != key:
            raise NonDeterministicReplay(
                f"Non-deterministic replay: operation {position} of this turn was "
                f"'{op.key}' when it first ran and is now '{key}'. Durable agents must make the "
                "same calls, sleeps and steps in the same order each time a turn runs (put "
                "non-deterministic work in ctx.step)."
            )
        return op

    async def _record(self, position: int, op: DurableOp) -> None:
        def decide(record: TaskRecord) -> Change:
            claim = self._require_ours(record)
            turn = self._current(record)
            kept = turn.op(position)
            if kept is not None and kept.finished and not op.finished:
                # A callback recorded the outcome meanwhile: keep it.
                return Change(claim=claim)
            return Change(claim=claim, durable=turn.with_op(position, op))

        record = await self._calls.journal.write(self.task_id, decide)
        self._turn = self._current(record)

    def _current(self, record: TaskRecord) -> DurableTurn:
        kept = durable_of(record.internal)
        if kept is not None and kept.step == self.turn_step:
            return kept
        return DurableTurn(self.turn_step, started_at_ms=self._turn.started_at_ms)

    def _require_ours(self, record: TaskRecord) -> Any:
        if self._updater is None:
            raise TaskEnded("the turn's updater is not attached")
        return self._updater.renewed_claim(record)


async def cancel_remote(remotes: Remotes, remote: str | None, task_id: str | None) -> None:
    """Ask the remote agent at `remote` to cancel its task `task_id`; a failure is logged, not
    raised (the remote may have ended it already)."""
    if remote is None or task_id is None:
        return
    from ..client import ClientError

    try:
        client = await remotes.client(remote)
        await client.cancel_task(task_id)
    except (ClientError, A2AError, CallError) as exc:
        log.info("remote task %s not canceled: %s", task_id, exc)


async def _cancel_once_sent(send: asyncio.Future[Any], remotes: Remotes, remote: str) -> None:
    """Once `send` answers, cancel the remote task it started, if one is still running. Bounded
    by the client's timeout, and by `end_run`'s wait, which cancels this again."""
    try:
        reply = await asyncio.shield(send)
    except Exception:  # the message was not taken: no task was started
        return
    if isinstance(reply, Task) and not ended(reply):
        await cancel_remote(remotes, remote, reply.id)


def _call_outcome(op: DurableOp, settings: Settings) -> CallResult:
    remote = op.remote or ""
    if op.state == "deadline":
        raise CallDeadlineExceeded(
            f"the call to {remote} passed its deadline; its task was asked to cancel",
            remote=remote,
            task_id=op.remote_task_id,
        )
    if op.state == "too-large":
        raise CallError(
            f"the result of the call to {remote} is over A2A_DURABLE_MAX_RESULT_BYTES "
            f"({settings.durable_max_result_bytes})",
            remote=remote,
            task_id=op.remote_task_id,
        )
    if op.state == "canceled" or op.result is None:
        raise RemoteCanceled(
            CallResult(TaskState.CANCELED, op.remote_task_id or "", ""), remote=remote
        )
    # Recorded as the internal model's JSON (one an earlier version recorded: `legacy.py`).
    data = legacy.task_or_message(json.loads(op.result))
    if "messageId" in data:
        reply = Message.model_validate(data)
        return CallResult(
            TaskState.COMPLETED, reply.task_id or "", reply.context_id or "", [], reply, True
        )
    result = CallResult.of_task(Task.model_validate(data))
    if result.state in (TaskState.COMPLETED, TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED):
        return result
    if result.state == TaskState.REJECTED:
        raise RemoteRejected(result, remote=remote)
    if result.state == TaskState.CANCELED:
        raise RemoteCanceled(result, remote=remote)
    raise RemoteFailed(result, remote=remote)


def _arrived(op: DurableOp | None, now: int) -> bool:
    if op is None:
        return False
    if op.kind == "sleep":
        return op.wake_at_ms is not None and op.wake_at_ms <= now
    return op.finished


def _waiting_text(turn: DurableTurn, now: int) -> str:
    waits = []
    for _, op in sorted((int(p), op) for p, op in turn.ops.items()):
        if op.finished:
            continue
        if op.kind == "call" and op.remote_task_id:
            waits.append(f"{op.remote} (task {op.remote_task_id})")
        elif op.kind == "sleep" and op.wake_at_ms is not None and op.wake_at_ms > now:
            waits.append(f"a timer until {_iso(op.wake_at_ms)}")
    return "Waiting for " + (", ".join(waits) if waits else "a durable operation") + "."


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds")


def _digest(message: Message) -> str:
    """What identifies a call's message across runs: its parts and the remote task it
    continues (not its id, which the turn derives)."""
    content = ENCODER.encode([message.parts, message.task_id, message.context_id])
    return hashlib.sha256(content).hexdigest()[:16]
