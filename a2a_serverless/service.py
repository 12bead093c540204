"""The stateless request core: every A2A method, independent of transport and protocol version.

A `TaskService` holds no state of its own between calls — everything is read from and written to
the Store through the Journal — so any number of instances (Lambda containers, Cloud Run
replicas, dev server processes) can serve the same tasks. The transports (JSON-RPC, REST) parse
requests into the protocol models, call one method here, and render what it returns. A method
holds its params to the request limits (limits.py) before anything else, so that no binding, of
either version, can skip them. It never asks which version a request speaks: where the versions'
rules differ, each version's codec (v03/, v10/) applies its own at the edge; a push config
records, as data, the version its notifications are written in.

A message creates or continues a Task: the turn is put on the Queue before the response is
sent, so it survives the function being frozen, and a blocking `message/send` then waits for it
within a budget. An agent with a direct hook (direct.py) may instead answer a new message at
once, in the request, with a Message and no task; the reply is kept under the message's
idempotency key, so a retry gets it again without the agent being asked twice.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncIterator, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import msgspec
from msgspec.structs import replace

from . import eager, limits
from .codec import ENCODER
from .config import Settings
from .contexts import Contexts
from .errors import (
    A2AError,
    FinishedTaskError,
    InvalidParamsError,
    PushConfigConflictError,
    PushConfigNotFoundError,
    PushNotificationNotSupportedError,
    ServiceUnavailableError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from .hashes import sha256
from .ids import random_uuid
from .journal import Change, Journal, TaskGone, TaskTooLarge, now_ms
from .lifecycle import CANCELABLE_STATES, now_iso, status_event, task_view
from .media import check_message_media
from .models import (
    AgentExtension,
    AuthenticationInfo,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from .observability import set_task_id
from .queue.base import Queue, RunAgentJob, RunTurn
from .sentinel import Sentinel
from .skills import SkillGate
from .store import legacy
from .store.base import (
    IdempotencyKeyTaken,
    KeyHeld,
    StoredPushConfig,
    StoredReply,
    StoreFull,
    StoreLimitExceeded,
    TaskEvent,
    TaskQuery,
    TaskRecord,
    message_digest,
)
from .store.bookkeeping import TurnInfo
from .turn import DirectContext

log = logging.getLogger("a2a_serverless.service")

if TYPE_CHECKING:
    from .auth import Identity
    from .bus import Subscription
    from .direct import DirectHook
    from .filelinks import FileLinks
    from .pagetoken import PageTokens
    from .push.notifier import PushNotifier

DEFAULT_PAGE_SIZE = 50


class Caller(msgspec.Struct, frozen=True):
    """Who is calling. Tasks and push configs belong to their creator's `owner`."""

    owner: str = "anonymous"
    # The authenticated identity behind `owner` (None in anonymous mode).
    identity: Identity | None = None
    # Extensions activated for this request (X-A2A-Extensions, as far as the agent declares).
    extensions: tuple[str, ...] = ()


class StreamEvent(msgspec.Struct, frozen=True):
    """One SSE event: `seq` is the event log position it reflects (the SSE `id`); None for a
    direct reply, which no log holds."""

    seq: int | None
    payload: Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


# Yielded by streams when nothing happened for a while, so the transport can keep the
# connection alive (an SSE comment).
KEEPALIVE = Sentinel("keep-alive")
# What a task's stream yields: its events, and KEEPALIVE now and then.
StreamItem = StreamEvent | Sentinel


class _Accepted(NamedTuple):
    """A message taken into its task: the task as stored, and the turn (step) to queue for it
    (None: a retry of a message whose turn is already queued, running or over)."""

    record: TaskRecord
    step: str | None

    @classmethod
    def new(cls, record: TaskRecord) -> _Accepted:
        """A turn just begun, its step to queue."""
        assert record.step is not None
        return cls(record, record.step)


class TaskService:
    def __init__(
        self,
        journal: Journal,
        queue: Queue,
        settings: Settings,
        *,
        notifier: PushNotifier | None = None,
        input_modes: Sequence[str] = ("*/*",),
        output_modes: Sequence[str] = ("*/*",),
        extensions: Sequence[AgentExtension] = (),
        skill_gate: SkillGate | None = None,
        direct: DirectHook | None = None,
        links: FileLinks | None = None,
    ) -> None:
        self.journal = journal
        # Signed URLs for large file parts in every task and event answered (filelinks.py).
        self.links = links
        self.direct = direct
        self.extensions = list(extensions)
        self.input_modes = list(input_modes)
        self.output_modes = list(output_modes)
        self.store = journal.store
        self.queue = queue
        self.settings = settings
        self.notifier = notifier
        self.skill_gate = skill_gate or SkillGate(())
        self.contexts = Contexts(self.store, settings.finished_task_ttl_s)

    @functools.cached_property
    def page_tokens(self) -> PageTokens:
        """The list methods' page tokens, made for the first list (a send needs none)."""
        from .pagetoken import PageTokens, page_token_key

        return PageTokens(page_token_key(self.settings))

    def activate_extensions(self, caller: Caller, header_value: str | None) -> Caller:
        """`caller` with the extensions its request activates (refuses missing required ones)."""
        if not self.extensions and not caller.extensions:
            # The common case, on every request: an agent without extensions activates none,
            # whatever the header asks for, so the caller is already right as it is.
            return caller
        from .extensions import activate

        return replace(caller, extensions=activate(self.extensions, header_value))

    # --- message/send, message/stream ----------------------------------------------------------

    async def send_message(
        self, params: SendMessageRequest, caller: Caller, *, webhook_version: str = "0.3"
    ) -> Task | Message:
        """Accept the message and answer the task (once its turn ends, unless non-blocking) or
        the direct reply. `webhook_version` is recorded with a push config the request carries:
        its notifications are written in that protocol version (versions.webhook_form)."""
        limits.check_send(params, self.settings)
        accepted = await self._accept(params, caller, webhook_version)
        if isinstance(accepted, Message):
            return accepted  # a direct reply: nothing to wait for
        record = accepted.record
        config = params.configuration
        if config is None or not config.return_immediately:
            # Subscribed before the turn is queued: an in-process queue may run the turn to its
            # end within `enqueue`, and its writes' wake-ups must not be missed.
            with self.journal.bus.subscribe(record.task_id) as subscription:
                await self._start_turn(accepted)
                record = await self._wait_for_turn_end(
                    record, subscription, self.settings.blocking_timeout_s
                )
        else:
            await self._start_turn(accepted)
        history_length = config.history_length if config else None
        return await self._shown(task_view(record.task, history_length=history_length))

    async def stream_message(
        self,
        params: SendMessageRequest,
        caller: Caller,
        *,
        last_event_id: int | None = None,
        webhook_version: str = "0.3",
    ) -> AsyncIterator[StreamItem]:
        """Accept the message, then stream the task: the Task first, then its events (or only
        the direct reply, when the agent answers that way). `webhook_version`: as for
        send_message."""
        limits.check_send(params, self.settings)
        self._require_streaming()
        accepted = await self._accept(params, caller, webhook_version)
        if isinstance(accepted, Message):
            return _only(accepted)
        record = accepted.record
        # Started whatever the cursor: the task is stored, and its turn must run. The stream's
        # first look is at the store, after it subscribes: a turn that ran in between is read
        # from there.
        await self._start_turn(accepted)
        _check_cursor(record, last_event_id)
        history_length = params.configuration.history_length if params.configuration else None
        return self._follow(record, after_seq=last_event_id, history_length=history_length)

    async def _accept(
        self, params: SendMessageRequest, caller: Caller, webhook_version: str
    ) -> _Accepted | Message:
        """The task the message created or continued, with the turn to start (the caller
        starts it: `_start_turn`), or the agent's direct reply to it."""
        message = params.message
        if message.role != "user":
            raise InvalidParamsError("message.role must be 'user'")
        config = params.configuration
        check_message_media(
            message,
            config.accepted_output_modes if config else None,
            input_modes=self.input_modes,
            output_modes=self.output_modes,
        )
        push_config = config.task_push_notification_config if config else None
        size = len(ENCODER.encode(message))
        if size > self.settings.max_task_bytes:
            # Alone over the bound of the task it would join: refused before anything (a
            # context's claim included) is stored. The journal checks the task it would make.
            raise limits.task_too_large(self.settings.max_task_bytes, size)
        if message.context_id and not message.task_id and Contexts.guards(caller.owner):
            # Before the agent sees it, directly or in a task (a task's context is its own).
            await self.contexts.hold(message.context_id, caller.owner)
        # Only a new message may be answered directly: one with a taskId continues its task.
        direct = self.direct if not message.task_id else None
        # A direct reply has no task to notify about: its push config is ignored, unchecked.
        if push_config is not None and direct is None:
            await self._require_push().check_config_url(push_config.url)
        key: str | None = None
        existing: str | None = None
        # A new task made with nothing written before it needs no look-up first: the create
        # itself is refused if the key, or its legacy form, is held (`_create_or_find`). What
        # would run or be written before it (a direct hook, a new context's claim) must not be
        # for a retry, and a continued task is written by the journal: those look up first.
        creates_first = not (
            direct is not None
            or message.task_id
            or (not message.context_id and Contexts.guards(caller.owner))
        )
        if self.settings.dedupe_message_ids:
            key = idempotency_key(caller.owner, params)
            if not creates_first:
                earlier = await self._earlier(key, message, caller, replies=direct is not None)
                if isinstance(earlier, Message):
                    return earlier
                existing = earlier
        try:
            if existing is not None:
                return await self._retried(existing, message, caller)
            if direct is not None:
                reply = await self._answer_directly(direct, params, caller, key)
                if reply is not None:
                    return reply
                if push_config is not None:
                    await self._require_push().check_config_url(push_config.url)
            if message.task_id:
                accepted = await self._continue(params, caller, key)
            elif creates_first and key is not None:
                made = await self._create_or_find(params, caller, key)
                if isinstance(made, str):
                    return await self._retried(made, message, caller)
                accepted = _Accepted.new(made)
            else:
                accepted = _Accepted.new(await self._create(params, caller, key))
        except IdempotencyKeyTaken as taken:
            # A concurrent copy of this request won the race: answer as for a retry.
            return await self._taken(taken, message, caller)
        set_task_id(accepted.record.task_id)
        if push_config is not None:
            await self._put_push_config(accepted.record, push_config, caller, webhook_version)
        return accepted

    async def _earlier(
        self, key: str, message: Message, caller: Caller, *, replies: bool
    ) -> str | Message | None:
        """What an identical earlier request got: its task's id or its direct reply (None: the
        request is new). `replies`: look for a direct reply too.

        Keys written before the fingerprint joined them (`owner\nmessageId`) are still read:
        such a key answers only a message that matches what was stored under it, as a retry
        was told apart then (same parts, no other taskId or contextId)."""
        legacy = legacy_idempotency_key(caller.owner, message.message_id)
        lookups: list[Coroutine[Any, Any, Any]] = [
            self.store.find_idempotency_key(key),
            self.store.find_idempotency_key(legacy),
        ]
        if replies:
            lookups += [self.store.find_reply(key), self.store.find_reply(legacy)]
        found = await eager.gather(*lookups)
        task_id, legacy_task_id = found[0], found[1]
        if replies:
            reply, legacy_reply = found[2], found[3]
            if reply is not None:
                return cast(StoredReply, reply).reply
            if legacy_reply is not None and _same_as_reply(legacy_reply, message):
                return cast(StoredReply, legacy_reply).reply
        if task_id is not None:
            return cast(str, task_id)
        if legacy_task_id is not None:
            record = await self.store.get_task(legacy_task_id)
            if (
                record is not None
                and record.owner == caller.owner
                and _same_as_task(record, message)
            ):
                return record.task_id
        return None

    async def _answer_directly(
        self, direct: DirectHook, params: SendMessageRequest, caller: Caller, key: str | None
    ) -> Message | None:
        """Ask the agent's direct hook; store and return its reply (None: make a task)."""
        message = params.message
        config = params.configuration
        context = DirectContext(
            message=message,
            context_id=message.context_id or random_uuid(),
            metadata=params.metadata or {},
            accepted_output_modes=config.accepted_output_modes if config else None,
            extensions=caller.extensions,
            skill_id=self.skill_gate.resolve(params, caller.identity),
        )
        reply = await direct.answer(context)
        if reply is not None and not message.context_id and Contexts.guards(caller.owner):
            await self.contexts.claim(context.context_id, caller.owner)
        if reply is None or key is None:
            # key None: messageIds are not deduplicated (dedupe_message_ids), so a retry asks
            # the hook again and nothing is kept.
            return reply
        stamp = now_ms()
        ttl_s = self.settings.finished_task_ttl_s
        # Kept as long as a finished task would be: a retry within that time gets this reply.
        try:
            await self.store.put_reply(
                StoredReply(
                    key=key,
                    owner=caller.owner,
                    request_digest=message_digest(message),
                    reply=reply,
                    created_at_ms=stamp,
                    expires_at_ms=None if ttl_s is None else stamp + int(ttl_s * 1000),
                )
            )
        except StoreLimitExceeded as over:
            # The client still gets the answer the agent gave; only a retry of this message is
            # not recognised (it asks the hook again), as without dedupe_message_ids.
            log.warning(
                "a direct reply of %d bytes is over %s (%d): answered, not kept for retries",
                over.size,
                over.store_limit,
                over.maximum,
            )
        return reply

    async def _taken(
        self, taken: IdempotencyKeyTaken, message: Message, caller: Caller
    ) -> _Accepted | Message:
        """Answer a message whose key a concurrent copy claimed first, for a task or a reply."""
        if taken.task_id:
            return await self._retried(taken.task_id, message, caller)
        replied = await self.store.find_reply(taken.key)
        if replied is None:
            # The reply that held the key expired in between: the key is free again.
            raise ServiceUnavailableError("The message's earlier reply just expired; send it again")
        return replied.reply

    async def _create_or_find(
        self, params: SendMessageRequest, caller: Caller, key: str
    ) -> TaskRecord | str:
        """The new task, made with no look-up before it, or the id of the task an identical
        earlier request made under the legacy key (`_earlier`). `IdempotencyKeyTaken` if the
        key is held (a retry, or a concurrent copy)."""
        message = params.message
        legacy_key = legacy_idempotency_key(caller.owner, message.message_id)
        try:
            return await self._create(params, caller, key, free_key=legacy_key)
        except KeyHeld:
            pass
        # Written before the fingerprint joined the key: it answers only a matching message.
        earlier = await self._earlier(key, message, caller, replies=False)
        if earlier is not None:
            return cast(str, earlier)
        return await self._create(params, caller, key)

    async def _create(
        self,
        params: SendMessageRequest,
        caller: Caller,
        key: str | None,
        *,
        free_key: str | None = None,
    ) -> TaskRecord:
        message = params.message
        task_id = random_uuid()
        context_id = message.context_id or random_uuid()
        if not message.context_id and Contexts.guards(caller.owner):
            await self.contexts.claim(context_id, caller.owner)
        message = replace(message, task_id=task_id, context_id=context_id)
        # The task is made in the status its first event gives it (one timestamp for both).
        submitted = TaskStatus(state=TaskState.SUBMITTED, timestamp=now_iso())
        task = Task(
            id=task_id,
            context_id=context_id,
            status=submitted,
            history=[message],
            metadata=params.metadata,
        )
        skill_id = self.skill_gate.resolve(params, caller.identity)
        try:
            return await self.journal.create(
                task,
                owner=caller.owner,
                events=[
                    TaskStatusUpdateEvent(task_id=task_id, context_id=context_id, status=submitted)
                ],
                turn=self._turn_info(params, caller, skill_id, 1),
                idempotency_key=key,
                free_key=free_key,
            )
        except TaskTooLarge as too_large:
            raise limits.task_too_large(too_large.maximum, too_large.actual) from None
        except StoreFull as full:
            raise limits.store_full(full.store_limit, full.maximum) from None
        except StoreLimitExceeded as over:
            raise limits.over_store_limit(over.store_limit, over.maximum, over.size) from None

    async def _continue(
        self, params: SendMessageRequest, caller: Caller, key: str | None
    ) -> _Accepted:
        message = params.message
        task_id = message.task_id
        assert task_id is not None

        def decide(record: TaskRecord) -> Change:
            if record.owner != caller.owner:
                raise TaskNotFoundError(data={"taskId": task_id})
            history = record.task.history or []
            state = record.task.status.state
            # A copy of this very request may have got in first (its key claimed after our
            # look-up) and moved the task on: then this request is a retry, answered with the
            # task whatever its state. Only the key tells: another message may reuse the id.
            maybe_retry = key is not None and any(
                m.message_id == message.message_id for m in history
            )
            if state.is_terminal:
                raise _refused(
                    maybe_retry,
                    _finished_task_error(task_id, state),
                )
            if message.context_id and message.context_id != record.context_id:
                raise InvalidParamsError(
                    f"message.contextId does not match the contextId of task {task_id}",
                    data={"taskId": task_id, "contextId": record.context_id},
                )
            if not state.is_interrupted:
                raise _refused(
                    maybe_retry,
                    InvalidParamsError(
                        f"Task {task_id} is {state.value}: it takes a new message once it asks "
                        "for input (input-required or auth-required)",
                        data={"taskId": task_id, "state": state.value},
                    ),
                )
            current = record.turn
            skill_id = self.skill_gate.resolve(
                params, caller.identity, current=None if current is None else current.skill_id
            )
            accepted = message.model_copy(update={"context_id": record.context_id})
            return Change(
                messages=[accepted],
                events=[status_event(record.task, TaskState.SUBMITTED)],
                turn=self._turn_info(
                    params,
                    caller,
                    skill_id,
                    len(history) + 1,
                    reused=any(m.message_id == message.message_id for m in history),
                ),
            )

        try:
            return _Accepted.new(await self.journal.write(task_id, decide, idempotency_key=key))
        except TaskGone:
            raise TaskNotFoundError(data={"taskId": task_id}) from None
        except TaskTooLarge as too_large:
            raise limits.task_too_large(too_large.maximum, too_large.actual) from None
        except StoreLimitExceeded as over:
            raise limits.over_store_limit(over.store_limit, over.maximum, over.size) from None
        except _MaybeRetry as maybe:
            assert key is not None
            if await self.store.find_idempotency_key(key) == task_id:
                return await self._retried(task_id, message, caller)
            raise maybe.refusal from None

    def _turn_info(
        self,
        params: SendMessageRequest,
        caller: Caller,
        skill_id: str | None,
        position: int,
        *,
        reused: bool = False,
    ) -> TurnInfo:
        """What the worker needs to run the turn this message begins. A turn is named by its
        messageId; an id may come again in the same task (`reused`: another message with the
        id, or any message without deduplication), so its place in the history makes the name
        unique."""
        turn = None
        if reused or not self.settings.dedupe_message_ids:
            turn = f"{params.message.message_id}#{position}"
        return _turn_info(params, caller, skill_id, turn)

    async def _retried(self, task_id: str, message: Message, caller: Caller) -> _Accepted:
        """A message seen before: answer with its task, never run the turn twice."""
        record = await self.store.get_task(task_id)
        if record is None or record.owner != caller.owner:
            raise TaskNotFoundError(data={"taskId": task_id})
        step = record.step
        turn = record.turn
        # Is the task's current turn the one this message began? (A record without turn info
        # names its turn by the messageId alone.)
        current = (
            step == message.message_id if turn is None else turn.message_id == message.message_id
        )
        state = record.task.status.state
        claim = record.claim
        waiting = state == TaskState.SUBMITTED and claim is None
        # A turn whose worker's lease ran out with nobody taking over (its job was lost with
        # the process that held it): the retry queues it again, and the worker resumes it, or
        # fails the task once the turn has used its attempts. Nothing stays `working` forever.
        stalled = (
            not state.is_terminal
            and claim is not None
            and claim.step == step
            and claim.lease_until_ms < now_ms()
        )
        if step is not None and current and (waiting or stalled):
            # The first attempt may have died between storing the task and enqueueing its turn.
            # Enqueueing again is safe: the worker claims each turn once.
            return _Accepted(record, step)
        return _Accepted(record, None)

    async def _start_turn(self, accepted: _Accepted) -> None:
        """Queue the turn the message began, if it has one to start."""
        if accepted.step is not None:
            job = RunAgentJob(task_id=accepted.record.task_id, payload=RunTurn(accepted.step))
            await self.queue.enqueue(job)

    async def _wait_for_turn_end(
        self, record: TaskRecord, subscription: Subscription, timeout: float
    ) -> TaskRecord:
        """Wait until the turn ends (terminal or interrupted state) or `timeout` passes;
        `subscription` (to the task) was made before the turn was queued."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            state = record.task.status.state
            if state.is_terminal or (state.is_interrupted and record.claim is None):
                return record
            remaining = deadline - loop.time()
            if remaining <= 0:
                return record
            woken = await subscription.wait(min(remaining, self.settings.poll_interval_s))
            # A write in this process hands over the record it committed; only a poll (for
            # writes by other processes) or a write that did not say reads the store.
            written = subscription.latest() if woken else None
            if written is not None:
                if written.version > record.version:
                    record = written
                continue
            fresh = await self.store.get_task(record.task_id)
            if fresh is None:
                return record
            record = fresh

    # --- tasks/resubscribe and the log follower -----------------------------------------------

    async def resubscribe(
        self,
        params: SubscribeToTaskRequest,
        caller: Caller,
        *,
        last_event_id: int | None = None,
        until_terminal: bool = False,
    ) -> AsyncIterator[StreamItem]:
        """Stream a task from the log: after `last_event_id`, or the Task first when None.

        `until_terminal` (v1.0's SubscribeToTask) follows the task for the rest of its life. A
        task in a terminal state has nothing to subscribe to and is refused with
        UnsupportedOperationError, unless the client resumes a stream (`last_event_id`), which
        still gets the rest of the log. The stream stays open while the task waits for input,
        until it finishes (v1.0 §3.1.6: "The stream MUST terminate when the task reaches a
        terminal state"), so a subscriber sees the turns other messages start; v0.3's
        resubscribe ends where a turn does.
        """
        self._require_streaming()
        record = await self._owned(params.id, caller)
        if until_terminal and last_event_id is None and record.task.status.state.is_terminal:
            raise UnsupportedOperationError(
                f"Task {params.id} is {record.task.status.state.value}: a finished task has "
                "no updates to subscribe to (read it with GetTask)",
                data={"taskId": params.id, "state": record.task.status.state.value},
            )
        if last_event_id is not None and last_event_id < 0:
            raise InvalidParamsError("Last-Event-ID must be a non-negative event number")
        _check_cursor(record, last_event_id, until_terminal=until_terminal)
        return self._follow(record, after_seq=last_event_id, until_terminal=until_terminal)

    async def _follow(
        self,
        record: TaskRecord,
        *,
        after_seq: int | None,
        history_length: int | None = None,
        until_terminal: bool = False,
    ) -> AsyncIterator[StreamItem]:
        loop = asyncio.get_running_loop()
        # A buffering platform sends nothing until the body ends, so a buffered stream gets the
        # time a blocking call gets, and keep-alives (which nobody would see) are left out.
        live = self.settings.streaming
        budget = self.settings.stream_timeout_s if live else self.settings.blocking_timeout_s
        deadline = loop.time() + budget
        task_id = record.task_id
        state = record.task.status.state
        at_rest = state.is_terminal or (
            not until_terminal and state.is_interrupted and record.claim is None
        )
        if after_seq is None:
            yield StreamEvent(
                record.last_seq,
                await self._shown(task_view(record.task, history_length=history_length)),
            )
            after_seq = record.last_seq
        if at_rest and after_seq > record.last_seq:
            # A cursor past the end of a finished log (_check_cursor refused it for a live
            # one): nothing to replay, so the stream ends with where the task stands.
            yield StreamEvent(
                record.last_seq,
                await self._shown(task_view(record.task, history_length=history_length)),
            )
            return
        if at_rest and after_seq >= record.last_seq:
            # Nothing left to replay and nothing will happen until the client acts.
            return
        quiet_since = loop.time()
        with self.journal.bus.subscribe(task_id, events=True) as subscription:
            # The first look is at the store (writes before the subscription); after that, a
            # write in this process hands over the events it logged, and the store is read
            # again only on a poll (writes by other processes) or when those events leave a gap.
            delivered: list[TaskEvent] | None = None
            while loop.time() < deadline:
                if delivered is not None:
                    events = delivered
                else:
                    events = await self.store.read_events(task_id, after_seq)
                for index, event in enumerate(events):
                    payload = event.payload
                    if self.links is not None:
                        payload = await self.links.event(task_id, payload)
                    yield StreamEvent(event.seq, payload)
                    after_seq = event.seq
                    if event.is_final and _stream_ends(
                        event.payload, last=index == len(events) - 1, until_terminal=until_terminal
                    ):
                        return
                now = loop.time()
                if events:
                    quiet_since = now
                elif live and now - quiet_since >= self.settings.keepalive_s:
                    yield KEEPALIVE
                    quiet_since = now
                woken = await subscription.wait(min(self.settings.poll_interval_s, deadline - now))
                delivered = subscription.events_after(after_seq) if woken else None

    # --- tasks/get, tasks/list, tasks/cancel ---------------------------------------------------

    async def get_task(self, params: GetTaskRequest, caller: Caller) -> Task:
        record = await self._owned(params.id, caller)
        return await self._shown(task_view(record.task, history_length=params.history_length))

    async def list_tasks(self, params: ListTasksRequest, caller: Caller) -> ListTasksResponse:
        limits.check_list(params)
        page_size = params.page_size or DEFAULT_PAGE_SIZE
        query = TaskQuery(
            owner=caller.owner,
            context_id=params.context_id,
            state=params.status.value if params.status else None,
            updated_after_ms=params.status_timestamp_after_ms,
            limit=page_size,
            after=self.page_tokens.decode(params.page_token) if params.page_token else None,
        )
        page = await self.store.list_tasks(query)
        history_length = params.history_length or 0
        with_artifacts = bool(params.include_artifacts)
        tasks = [
            await self._shown(
                task_view(r.task, history_length=history_length, include_artifacts=with_artifacts)
            )
            for r in page.records
        ]
        next_token = ""
        if page.has_more and page.records:
            last = page.records[-1]
            next_token = self.page_tokens.encode(last.updated_at_ms, last.task_id)
        return ListTasksResponse(
            tasks=tasks, next_page_token=next_token, page_size=page_size, total_size=page.total_size
        )

    async def context_has_tasks(self, context_id: str, caller: Caller) -> bool:
        """Whether the caller has any task in `context_id` (in any state)."""
        probe = await self.store.list_tasks(
            TaskQuery(owner=caller.owner, context_id=context_id, limit=1)
        )
        return bool(probe.records)

    async def cancel_task(self, params: CancelTaskRequest, caller: Caller) -> Task:
        def decide(record: TaskRecord) -> Change:
            if record.owner != caller.owner:
                raise TaskNotFoundError(data={"taskId": params.id})
            state = record.task.status.state
            if state not in CANCELABLE_STATES:
                raise TaskNotCancelableError(
                    f"Task cannot be canceled: it is {state.value}",
                    data={"taskId": params.id, "state": state.value},
                )
            return Change(events=[status_event(record.task, TaskState.CANCELED)], claim=None)

        try:
            record = await self.journal.write(params.id, decide)
        except TaskGone:
            raise TaskNotFoundError(data={"taskId": params.id}) from None
        return await self._shown(task_view(record.task))

    async def _shown(self, task: Task) -> Task:
        """The task as answered: large file parts as signed URLs when that is on."""
        return task if self.links is None else await self.links.task(task)

    # --- push notification configs -------------------------------------------------------------

    async def set_push_config(
        self, params: TaskPushNotificationConfig, caller: Caller, *, webhook_version: str = "0.3"
    ) -> TaskPushNotificationConfig:
        """Store a push config; its notifications are written in `webhook_version`."""
        if not params.task_id:
            raise InvalidParamsError(
                data={"errors": [{"field": "taskId", "message": "Object missing required field"}]}
            )
        limits.check_push_config(params, "pushNotificationConfig")
        notifier = self._require_push()
        await notifier.check_config_url(params.url)
        record = await self._owned(params.task_id, caller)
        return await self._put_push_config(record, params, caller, webhook_version)

    async def get_push_config(
        self, params: GetTaskPushNotificationConfigRequest, caller: Caller
    ) -> TaskPushNotificationConfig:
        self._require_push()
        await self._owned(params.task_id, caller)
        # An empty id names the task's default config (whose id is the task's).
        wanted = params.id or params.task_id
        for stored in await self.store.list_push_configs(params.task_id):
            if stored.config.id == wanted:
                return stored.config
        # Spec 1.0 §3.1.8: "TaskNotFoundError: the push notification configuration does not
        # exist". (Delete stays a success for a missing config: §3.1.10 makes it idempotent.)
        raise PushConfigNotFoundError(
            f"Task {params.task_id} has no push notification config {wanted!r}",
            data={"taskId": params.task_id, "pushNotificationConfigId": wanted},
        )

    async def list_push_configs(
        self, params: ListTaskPushNotificationConfigsRequest, caller: Caller
    ) -> ListTaskPushNotificationConfigsResponse:
        """A page of the task's configs (all of them without a page size)."""
        self._require_push()
        await self._owned(params.task_id, caller)
        configs = [s.config for s in await self.store.list_push_configs(params.task_id)]
        # A task has a handful of configs at most (A2A_PUSH_MAX_CONFIGS_PER_TASK): pages are
        # slices, their tokens the signed position, so a token is only good for the task it was
        # made for.
        start = 0
        if params.page_token:
            start, task_id = self.page_tokens.decode(params.page_token)
            if task_id != params.task_id:
                raise InvalidParamsError(
                    data={"errors": [{"field": "pageToken", "message": "not a token of this task"}]}
                )
        size = params.page_size or len(configs) or 1
        page = configs[start : start + size]
        end = start + len(page)
        token = self.page_tokens.encode(end, params.task_id) if end < len(configs) else ""
        return ListTaskPushNotificationConfigsResponse(configs=page, next_page_token=token)

    async def delete_push_config(
        self, params: DeleteTaskPushNotificationConfigRequest, caller: Caller
    ) -> None:
        """Remove a config. Deleting one that is already gone succeeds (retries are safe)."""
        notifier = self._require_push()
        await self._owned(params.task_id, caller)
        if await self.store.delete_push_config(params.task_id, params.id):
            await notifier.on_config_deleted(params.task_id, params.id)

    async def _put_push_config(
        self,
        record: TaskRecord,
        config: TaskPushNotificationConfig,
        caller: Caller,
        webhook_version: str,
    ) -> TaskPushNotificationConfig:
        """Store a config for the task `record` (as read before this call)."""
        task_id = record.task_id
        # Without an id a config is the task's default one (the official SDK does the same).
        config_id = config.id or task_id
        config = TaskPushNotificationConfig(
            url=config.url,
            id=config_id,
            task_id=task_id,
            token=config.token,
            authentication=config.authentication,
        )
        others = [s.config for s in await self.store.list_push_configs(task_id)]
        others = [c for c in others if c.id != config_id]
        if any(c.url == config.url for c in others):
            raise PushConfigConflictError(
                f"Task {task_id} already has a push notification config for this URL",
                data={"taskId": task_id, "field": "pushNotificationConfig.url"},
            )
        limit = self.settings.push_max_configs_per_task
        if len(others) >= limit:
            raise PushConfigConflictError(
                f"Task {task_id} has {len(others)} push notification configs, the most it "
                f"may have (A2A_PUSH_MAX_CONFIGS_PER_TASK={limit})",
                data={
                    "limit": "push_max_configs_per_task",
                    "setting": "A2A_PUSH_MAX_CONFIGS_PER_TASK",
                    "max": limit,
                },
            )
        await self.store.put_push_config(
            StoredPushConfig(task_id, caller.owner, config, webhook_version)
        )
        # Events up to here were never queued for this config; later ones must not wait on them.
        await self._require_push().on_config_set(task_id, config_id, seen_seq=record.last_seq)
        return config

    # --- helpers -------------------------------------------------------------------------------

    async def _owned(self, task_id: str, caller: Caller) -> TaskRecord:
        set_task_id(task_id)
        record = await self.store.get_task(task_id)
        # Another owner's task answers exactly like a missing one: its existence never leaks.
        if record is None or record.owner != caller.owner:
            raise TaskNotFoundError(data={"taskId": task_id})
        return record

    @property
    def push_notifications(self) -> bool:
        return self.notifier is not None

    def _require_push(self) -> PushNotifier:
        if self.notifier is None:
            raise PushNotificationNotSupportedError()
        return self.notifier

    def _require_streaming(self) -> None:
        if not self.settings.streaming and not self.settings.buffered_streams:
            raise UnsupportedOperationError(
                "Streaming is not available on this deployment; use message/send "
                "(with a push notification config) and tasks/get"
            )


class _MaybeRetry(Exception):
    """A refusal that may be a retry's answer: the message's id is in the task's history, so
    a copy of this request may have been accepted since the key was looked up."""

    def __init__(self, refusal: A2AError) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def _refused(maybe_retry: bool, refusal: A2AError) -> Exception:
    return _MaybeRetry(refusal) if maybe_retry else refusal


def _finished_task_error(task_id: str, state: TaskState) -> A2AError:
    """A message to a finished task (spec 1.0 §3.1.1; the 0.3 codec answers it otherwise)."""
    return FinishedTaskError(
        f"Task {task_id} is {state.value}: a finished task cannot take new messages; send a new "
        "message in the same contextId to start a new task",
        data={"taskId": task_id, "state": state.value},
    )


def idempotency_key(owner: str, params: SendMessageRequest) -> str:
    """The key a message is deduplicated under: its caller, its messageId and the fingerprint
    of the rest of the request (`request_fingerprint`). Another message with the same id has
    another key, so it is a new message, not a retry."""
    return f"{owner}\n{params.message.message_id}\n{request_fingerprint(params)}"


def legacy_idempotency_key(owner: str, message_id: str) -> str:
    """The key of records written before the fingerprint joined it (still read)."""
    return f"{owner}\n{message_id}"


def request_fingerprint(params: SendMessageRequest) -> str:
    """A digest of everything in a send request but its messageId, computed on the parsed
    request, so both bindings and both protocol versions give one value for one request.

    Left out on purpose are the options that only shape the answer (`blocking` — v1.0's
    `returnImmediately` —, `historyLength`): a client that re-sends a blocking send as a stream
    after a timeout is retrying the same message, and must get the same task, not a second run.
    Empty and absent values are one: `{}` and no metadata make the same request."""
    config = params.configuration
    message, untyped = _fingerprinted_message(params.message)
    metadata = params.metadata or None
    canonical = {
        "message": message,
        "acceptedOutputModes": (config.accepted_output_modes or None) if config else None,
        "pushNotificationConfig": (
            _fingerprinted_push_config(config.task_push_notification_config)
            if config is not None and config.task_push_notification_config is not None
            else None
        ),
        "metadata": metadata,
    }
    # The rest is typed strings (and lists of them), which msgspec and the stdlib write alike.
    untyped.append(metadata)
    if _plain_json(untyped):
        data = msgspec.json.encode(canonical, order="sorted")
    else:
        # Something the message's JSON would have written otherwise (a value `to_builtins`
        # converts) or only the stdlib writes right (a float): its old form as it always was.
        canonical["message"] = _fingerprinted_message_json(params.message)
        data = fingerprint_json(canonical)
    return sha256(data).hexdigest()


# Values a fingerprint leaves out: empty and absent are one.
_EMPTY: tuple[Any, ...] = (None, [], {})


def _fingerprinted_message(message: Message) -> tuple[dict[str, Any], list[Any]]:
    """The message, but its messageId, in the old form the keys already stored were taken
    over (store/legacy.py's `old_message` of its JSON), empty values left out; and what of it
    is typed `Any` (its metadata, its parts but text ones without metadata), where alone a
    value msgspec and the stdlib write differently (a float) can be. Made from its fields,
    not its JSON: when those are plain JSON, this is what `_fingerprinted_message_json` gives,
    without the dict of its JSON and its copy in the old form; with only those checked, a text
    message's fingerprint takes 2.1 us instead of 3.4 us."""
    parts = []
    untyped: list[Any] = [message.metadata]
    for part in message.parts:
        if part.text is not None and part.metadata is None:
            parts.append({"kind": "text", "text": part.text})
        else:
            old = legacy.old_part(part.model_dump())
            parts.append(old)
            untyped.append(old)
    fields = (
        ("kind", "message"),
        ("role", message.role),
        ("parts", parts),
        ("contextId", message.context_id),
        ("taskId", message.task_id),
        ("referenceTaskIds", message.reference_task_ids),
        ("extensions", message.extensions),
        ("metadata", message.metadata),
    )
    return {name: value for name, value in fields if value not in _EMPTY}, untyped


def _fingerprinted_message_json(message: Message) -> dict[str, Any]:
    """The same from the message's JSON: the form fingerprints were first taken over."""
    old = legacy.old_message(message.model_dump())
    old.pop("messageId", None)
    return {name: value for name, value in old.items() if value not in _EMPTY}


# The form fingerprints have always been taken over: stored keys depend on its exact bytes.
_FINGERPRINT_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint_json(canonical: dict[str, Any]) -> bytes:
    """`canonical` as sorted, compact, unescaped JSON (UTF-8), exactly as `json.dumps` with
    those options writes it. msgspec writes the same bytes, eight times faster, for strings,
    ints, booleans, nulls, lists and dicts with string keys: those are given to it. A float
    (whose repr the two write differently: `1e+16` and `1e16`) or anything else goes to the
    stdlib encoder."""
    if _plain_json(canonical):
        return msgspec.json.encode(canonical, order="sorted")
    return _FINGERPRINT_ENCODER.encode(canonical).encode()


def _plain_json(value: object) -> bool:
    """Whether `value` holds only what msgspec and the stdlib write alike (`fingerprint_json`);
    exact types, so no subclass with its own repr gets in. Loops, not `all()` over a generator,
    and leaves checked in place: it runs on every send."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str or (type(item) not in _PLAIN_SCALARS and not _plain_json(item)):
                return False
        return True
    if kind is list:
        for item in value:  # type: ignore[attr-defined]
            if type(item) not in _PLAIN_SCALARS and not _plain_json(item):
                return False
        return True
    return kind in _PLAIN_SCALARS


_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})


def _fingerprinted_push_config(config: TaskPushNotificationConfig) -> dict[str, Any]:
    """A push config as fingerprints have held it since they were first kept (0.3's JSON-RPC
    form: `authentication.schemes`), so a key stored before still names its request."""
    out: dict[str, Any] = {"url": config.url}
    for name, value in (("id", config.id), ("token", config.token)):
        if value is not None:
            out[name] = value
    if config.authentication is not None:
        out["authentication"] = _fingerprinted_auth(config.authentication)
    return out


def _fingerprinted_auth(auth: AuthenticationInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"schemes": [auth.scheme] if auth.scheme else []}
    if auth.credentials is not None:
        out["credentials"] = auth.credentials
    return out


def _same_as_task(record: TaskRecord, message: Message) -> bool:
    """A message stored under a legacy key's task is this one, as told apart when the key was
    written: same parts, and no other taskId or contextId."""
    first = next((m for m in record.task.history or [] if m.message_id == message.message_id), None)
    if first is not None and [p.model_dump() for p in first.parts] != [
        p.model_dump() for p in message.parts
    ]:
        return False
    return message.task_id in (None, record.task_id) and message.context_id in (
        None,
        record.context_id,
    )


def _same_as_reply(replied: StoredReply, message: Message) -> bool:
    """A legacy key's direct reply answered this message: same parts, no task, same context."""
    return (
        message_digest(message) == replied.request_digest
        and message.task_id is None
        and message.context_id in (None, replied.context_id)
    )


async def _only(reply: Message) -> AsyncIterator[StreamItem]:
    """A stream of one event, the direct reply, which then ends."""
    yield StreamEvent(None, reply)


def _check_cursor(
    record: TaskRecord, last_event_id: int | None, *, until_terminal: bool = False
) -> None:
    """Refuse a Last-Event-ID past the end of a live task's log: events up to it were never
    written, so the stream would skip them all (the final one included) and never end.

    A task waiting for input is at rest for a stream that ends with its turn (v0.3), but live
    for one that follows it to the end (`until_terminal`, v1.0's SubscribeToTask): the next
    turn's events would fall under the cursor and the stream stay silent until its timeout."""
    if last_event_id is None or last_event_id <= record.last_seq:
        return
    state = record.task.status.state
    at_rest = state.is_interrupted and record.claim is None and not until_terminal
    if state.is_terminal or at_rest:
        return  # a finished log: the stream answers with the task as it stands
    raise InvalidParamsError(
        f"Last-Event-ID {last_event_id} is past the end of the event log of task "
        f"{record.task_id} ({record.last_seq} events so far)",
        data={"taskId": record.task_id, "lastEventId": last_event_id, "lastSeq": record.last_seq},
    )


def _stream_ends(
    payload: TaskStatusUpdateEvent | TaskArtifactUpdateEvent, *, last: bool, until_terminal: bool
) -> bool:
    """A final event ends the stream if the task is finished, or (unless the stream follows the
    task `until_terminal`) waits for input right now."""
    assert isinstance(payload, TaskStatusUpdateEvent)
    return payload.status.state.is_terminal or (last and not until_terminal)


def _turn_info(
    params: SendMessageRequest, caller: Caller, skill_id: str | None, turn: str | None
) -> TurnInfo:
    config = params.configuration
    return TurnInfo(
        message_id=params.message.message_id,
        skill_id=skill_id,
        metadata=params.metadata or {},
        accepted_output_modes=config.accepted_output_modes if config else None,
        extensions=tuple(caller.extensions),
        turn=turn,
    )
