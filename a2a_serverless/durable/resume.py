"""What brings a suspended turn back: the callback endpoint, the `durable-check` job, and the
cancel of remote tasks when a turn ends.

**Callback** (`POST {CALLBACK_PREFIX}{taskId}/{callbackId}`, routepaths.py): a call's push
config names this URL, unguessable (a random callback id per call) and with a random token the
remote sends back (`X-A2A-Notification-Token`). The endpoint acts only when the callback id
names a pending call of that task, the token is that call's (constant-time compare), the body is
about that call's remote task and, if it is signed (a JWT, as our agents sign), the signature
verifies against the remote's JWKS (webhook_receiver.py); it then treats the notification as a
doorbell, not as the truth: the remote task is read from the remote agent (the URL we chose, not
one the request names), and only an ended task is recorded. So a forged or replayed notification
can at most cause one read of the remote task. Every answer is the same `202` with no body —
unknown task, unknown callback, wrong token, a call already resumed, a turn long over — so a
prober learns nothing; a body over `durable_max_callback_bytes` is refused (413) unread.

**Check** (a `durable-check` job, queued at every suspension): when due (a delay longer than a
queue holds is chained), it polls the suspended turn's pending calls, cancels those past their
deadline, wakes its sleeps, fails the turn past the turn's deadline; if anything arrived it
resumes the turn, else queues the next check with twice the poll interval (capped). A check of
an earlier suspension, of a turn that runs or is over, does nothing.

**Resuming** is recording the outcome through the journal and queueing the turn's `run-agent`
job again: the worker claims it as any turn and the agent is replayed (session.py). Both paths
resume only a turn that is suspended (its claim released), so at most one run replays it.

**Cancel**: a turn that ends — our task terminal (completed, failed, canceled, rejected) or
interrupted (input-required, auth-required: the next turn is a new message) — leaves behind the
remote tasks no later turn can reach: `left_behind` is that one rule. The commit that ends the
turn queues a check (the journal's commit hook, ending.py), which asks each remote agent to
cancel its task and marks those calls `canceled`. A call still pending is left behind by every
end (no later turn can learn its task: the call never returned). A remote task that asked a
question (input-required, auth-required) is not: the agent had its answer, and the next turn can
answer it (`task_id=`); only our task's own end leaves it behind.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec

from ..extras import crypto_available
from ..http import BodyTooLarge, Request, Response
from ..journal import Change, Journal, TaskGone, now_ms
from ..lifecycle import status_event
from ..models import Task, TaskState
from ..push.ratelimit import HostRateLimiter
from ..queue.base import (
    DurableCheckJob,
    Job,
    Queue,
    RemoteTaskRef,
    RetryJob,
    RunAgentJob,
    RunTurn,
)
from ..routepaths import CALLBACK_PREFIX, CARD_PATHS, JWKS_PATH
from ..safetext import escape_controls
from ..store.base import TaskRecord
from ..store.bookkeeping import DurableOp, DurableTurn, durable_of
from ..turn import agent_message
from .ending import left_behind, turn_over
from .session import (
    DurableCalls,
    cancel_remote,
    check_job,
    ended,
    finished_op,
    queue_delay_s,
    turn_deadline_ms,
)

if TYPE_CHECKING:
    from ..jwks import KeySet

log = logging.getLogger("a2a_serverless.durable")

ACCEPTED = Response(202, [])


class Resumer:
    def __init__(self, calls: DurableCalls) -> None:
        self.calls = calls
        self.journal: Journal = calls.journal
        self.queue: Queue = calls.queue
        self.settings = calls.settings
        self._key_sets: dict[str, KeySet] = {}
        # Callbacks come unauthenticated until their token is read from the store: bound how
        # often anyone can make us read it, in all and per task (the same token buckets as
        # push deliveries per host; keyed "" for all, else by the path's task id).
        rate = self.settings.durable_callbacks_per_s
        self._all_callbacks = HostRateLimiter(rate)
        self._task_callbacks = HostRateLimiter(max(1.0, rate / 5) if rate > 0 else 0)

    # --- the callback endpoint ------------------------------------------------------------------

    async def callback(self, request: Request) -> Response:
        if request.method != "POST":
            return Response(405, [(b"allow", b"POST")])
        try:
            body = await request.body(self.settings.durable_max_callback_bytes)
        except BodyTooLarge:
            return Response(413, [])
        task_id, _, callback_id = request.path.removeprefix(CALLBACK_PREFIX).partition("/")
        wait = self._all_callbacks.reserve("") or self._task_callbacks.reserve(task_id)
        if wait > 0:
            return Response(429, [(b"retry-after", str(max(1, round(wait))).encode())])
        token = request.headers.get("x-a2a-notification-token", "")
        if not task_id or not callback_id or "/" in callback_id:
            return ACCEPTED
        record = await self.journal.store.get_task(task_id)
        if record is None:
            return ACCEPTED
        found = _waiting_call(record, callback_id, token)
        if found is None:
            return ACCEPTED
        position, op = found
        if _notified_task_id(body) != op.remote_task_id:
            return ACCEPTED
        if await self._signature_refused(request, body, op, task_id, callback_id):
            return ACCEPTED
        task = await self._look(op)
        # Unread: the poll will find it (the remote may also send the notification again).
        if task is not None and ended(task):
            await self._resume(task_id, {position: (op, task)}, by="callback")
        return ACCEPTED

    async def _signature_refused(
        self, request: Request, body: bytes, op: DurableOp, task_id: str, callback_id: str
    ) -> bool:
        """Whether the notification carries a JWT that does not verify (webhook_receiver.py)
        against the remote's JWKS (`remote_jwks_urls`), addressed to this callback with this
        call's token. One without a JWT, or whose remote's JWKS cannot be read, goes on by its
        token alone: its outcome is read from the remote anyway. The log says which it was."""
        headers = request.headers
        signed = "x-a2a-notification-jwt" in headers or headers.get(
            "authorization", ""
        ).lower().startswith("bearer ")
        audience = self.calls.callback_url(task_id, callback_id)
        if not signed or audience is None or op.remote is None or not crypto_available():
            why = "not signed" if signed is False else "its signature cannot be checked here"
            log.info("task %s: a callback goes on by its token alone (%s)", task_id, why)
            return False
        from ..webhook_receiver import KeySetUnavailable, NotificationRejected, WebhookVerifier

        for jwks_url in remote_jwks_urls(op.remote):
            verifier = WebhookVerifier(jwks_url, audience=audience, token=op.callback_token)
            # One key set per JWKS URL, fetched once and kept as its cache rules say (the
            # verifier is per call: its audience and token are the call's).
            verifier.keys = self._key_sets.setdefault(jwks_url, verifier.keys)
            try:
                verified = await verifier.verify(headers, body)
            except NotificationRejected as rejected:
                log.info(
                    "task %s: a callback's signature was refused: %s", task_id, rejected.reason
                )
                return True
            except KeySetUnavailable:
                continue  # not served there: the next place, else the token alone
            log.info(
                "task %s: a callback verified by the remote's signature (key %s of %s)",
                task_id,
                escape_controls(verified.key_id),
                escape_controls(jwks_url),
            )
            return False
        log.info("task %s: a callback goes on by its token alone (no JWKS of the remote)", task_id)
        return False

    # --- the check job --------------------------------------------------------------------------

    async def handle(self, job: Job) -> None:
        if not isinstance(job, DurableCheckJob):
            raise TypeError(f"a durable check, not {job.kind!r}")
        check = job.payload
        if check.due_at_ms > now_ms():
            # Not due yet (a wait longer than the queue holds): queued again for the rest.
            raise RetryJob("not due yet", delay_s=queue_delay_s(check.due_at_ms))
        if check.cancel:
            # A turn's end named what it left behind: canceled whatever the record holds now.
            await self._cancel_left_behind(job.task_id, check.turn, check.cancel)
            return
        record = await self.journal.store.get_task(job.task_id)
        if record is None:
            return
        turn = durable_of(record.internal)
        if turn is None or turn.step != check.turn:
            return
        if turn_over(record, turn):
            # An earlier check of a turn that has ended since.
            await self._cancel_left_behind(job.task_id, turn.step, left_behind(record, turn))
            return
        if not _suspended(record, turn) or turn.generation != check.generation:
            return  # resumed (and maybe suspended again) since
        now = now_ms()
        deadline = turn_deadline_ms(turn, self.settings)
        if deadline is not None and now >= deadline:
            await self._fail_past_deadline(record.task_id, turn)
            return
        arrived: dict[int, tuple[DurableOp, Task | None]] = {}
        sleeping_done = any(
            op.kind == "sleep" and not op.finished and (op.wake_at_ms or 0) <= now
            for op in turn.ops.values()
        )
        for position, op in turn.pending_calls():
            if op.deadline_at_ms is not None and now >= op.deadline_at_ms:
                await cancel_remote(self.calls.remotes, op.remote, op.remote_task_id)
                arrived[position] = (op, None)
                continue
            task = await self._look(op)
            if task is not None and ended(task):
                arrived[position] = (op, task)
        if arrived or sleeping_done:
            await self._resume(
                job.task_id,
                arrived,
                by="poll",
                generation=check.generation,
                wake=sleeping_done,
            )
            return
        poll_s = min(check.poll_s * 2, self.settings.durable_poll_max_s)
        following = check_job(job.task_id, turn, self.settings, poll_s)
        await self.queue.enqueue(following, delay_s=queue_delay_s(following.payload.due_at_ms))

    async def abandon(self, job: Job, reason: str) -> None:
        """A check the queue gave up on (its retries spent): its turn would wait forever, so it
        fails with the reason."""
        if not isinstance(job, DurableCheckJob):
            return
        step = job.payload.turn

        def decide(record: TaskRecord) -> Change | None:
            turn = durable_of(record.internal)
            if record.task.status.state.is_terminal or turn is None or turn.step != step:
                return None
            if not _suspended(record, turn):
                return None
            message = agent_message(f"The task could not be resumed: {reason}", task=record.task)
            event = status_event(record.task, TaskState.FAILED, message)
            return Change(events=[event], claim=None, turn_done=step, bounded=False)

        with contextlib.suppress(TaskGone):
            await self.journal.write(job.task_id, decide)

    # --- a turn ended: cancel the remote tasks it leaves behind ---------------------------------

    async def _cancel_left_behind(
        self, task_id: str, step: str, targets: Sequence[RemoteTaskRef]
    ) -> None:
        """Ask each remote agent to cancel its task, then mark those calls of turn `step` still
        pending `canceled` (if the record still holds that turn)."""
        if not targets:
            return
        for target in targets:
            await cancel_remote(self.calls.remotes, target.remote, target.task_id)
        named = {(t.position, t.task_id) for t in targets}

        def decide(record: TaskRecord) -> Change | None:
            current = durable_of(record.internal)
            if current is None or current.step != step:
                return None
            changed = current
            for position, op in current.pending_calls():
                if (position, op.remote_task_id) in named:
                    done = msgspec.structs.replace(op, state="canceled", ended_at_ms=now_ms())
                    changed = changed.with_op(position, done)
            return None if changed is current else Change(durable=changed)

        with contextlib.suppress(TaskGone):
            await self.journal.write(task_id, decide)
        log.info("task %s: turn over: %d remote tasks asked to cancel", task_id, len(targets))

    async def _fail_past_deadline(self, task_id: str, turn: DurableTurn) -> None:
        limit = self.settings.durable_turn_deadline_s
        reason = (
            f"The task's durable operations did not end within its deadline of {limit:g} s "
            "(A2A_DURABLE_TURN_DEADLINE_S); the remote tasks it waited on were asked to cancel."
        )

        def decide(record: TaskRecord) -> Change | None:
            current = durable_of(record.internal)
            if record.task.status.state.is_terminal or current is None:
                return None
            if current.step != turn.step or not _suspended(record, current):
                return None
            event = status_event(
                record.task, TaskState.FAILED, agent_message(reason, task=record.task)
            )
            return Change(events=[event], claim=None, turn_done=turn.step, bounded=False)

        # The failed status's commit hook queues the cancel of the remote tasks.
        await self.journal.write(task_id, decide)

    # --- resuming -------------------------------------------------------------------------------

    async def _resume(
        self,
        task_id: str,
        arrived: dict[int, tuple[DurableOp, Task | None]],
        *,
        by: str,
        generation: int | None = None,
        wake: bool = False,
    ) -> None:
        """Record what arrived (a remote task that ended; None: a call past its deadline) and,
        if the turn is suspended, queue it to run again; `wake`: a sleep of it is over."""
        resume = False
        step = ""
        limit = self.settings.durable_max_result_bytes

        def decide(record: TaskRecord) -> Change | None:
            nonlocal resume, step
            resume = False
            turn = durable_of(record.internal)
            if turn is None or record.task.status.state.is_terminal:
                return None
            if generation is not None and turn.generation != generation:
                return None
            changed = turn
            for position, (seen, task) in arrived.items():
                op = changed.op(position)
                if op is None or op.finished or op.callback_id != seen.callback_id:
                    continue
                if task is None:
                    done = msgspec.structs.replace(op, state="deadline", ended_at_ms=now_ms())
                else:
                    done = finished_op(op, task, by, limit)
                changed = changed.with_op(position, done)
            # Resumed by whoever recorded something new (a duplicate callback finds the
            # outcome there already), or by a check that found a sleep over.
            resume = _suspended(record, turn) and (changed is not turn or wake)
            step = turn.step
            if changed is turn:
                return None
            return Change(durable=changed)

        try:
            await self.journal.write(task_id, decide)
        except TaskGone:
            return
        if resume:
            log.info("task %s: resumed by %s", task_id, by)
            await self.queue.enqueue(RunAgentJob(task_id=task_id, payload=RunTurn(step)))

    async def _look(self, op: DurableOp) -> Task | None:
        from ..client import ClientError
        from ..errors import A2AError
        from .outcomes import CallError

        try:
            client = await self.calls.remotes.client(op.remote or "")
            task: Task = await client.get_task(op.remote_task_id or "", history_length=0)
        except (ClientError, A2AError, CallError) as exc:
            log.info("remote task %s not read: %s", op.remote_task_id, exc)
            return None
        return task


def _suspended(record: TaskRecord, turn: DurableTurn) -> bool:
    """Whether `turn` waits with no worker running it."""
    return (
        turn.suspended
        and record.claim is None
        and record.step == turn.step
        and record.turn_done != turn.step
        and not record.task.status.state.is_terminal
    )


def _waiting_call(record: TaskRecord, callback_id: str, token: str) -> tuple[int, DurableOp] | None:
    """The pending call whose callback this is, if the token is its own."""
    turn = durable_of(record.internal)
    if turn is None:
        return None
    for position, op in turn.pending_calls():
        if op.callback_id is None or op.callback_token is None:
            continue
        same_id = hmac.compare_digest(op.callback_id.encode(), callback_id.encode())
        same_token = hmac.compare_digest(op.callback_token.encode(), token.encode())
        if same_id and same_token:
            return position, op
    return None


def _notified_task_id(body: bytes) -> str | None:
    """The task id a push notification's body is about: a Task (A2A 0.3), or a StreamResponse
    (A2A 1.0: its task or status update)."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    for key, field in (("task", "id"), ("statusUpdate", "taskId"), ("artifactUpdate", "taskId")):
        inner = data.get(key)
        if isinstance(inner, dict) and isinstance(inner.get(field), str):
            return str(inner[field])
    value = data.get("id") or data.get("taskId")
    return value if isinstance(value, str) else None


def remote_jwks_urls(remote: str) -> list[str]:
    """Where the remote agent at `remote` (the URL we called: its base URL, or its card's)
    serves its JWKS, most likely first: under its own path (an agent mounted under a prefix of
    an app serves it there, as ours do: asgi.py), then at its origin. Both come from the URL we
    chose, never from the request, nor from the JWT (a `jku` could name any server)."""
    parts = urlsplit(remote)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    for card_path in CARD_PATHS:
        if path.endswith(card_path):
            path = path.removesuffix(card_path)
            break
    else:
        if path.endswith(".json"):
            path = ""  # a card served elsewhere: where its agent is, it does not say
    urls = [f"{origin}{path}{JWKS_PATH}"] if path else []
    return [*urls, f"{origin}{JWKS_PATH}"]
