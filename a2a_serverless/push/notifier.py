"""Push notifications: from a committed task event to a verified POST at the client's webhook.

The flow, and where each guarantee comes from:

1. `on_commit(record, events)` runs after every journal write that logged events (a commit
   hook). For each push config of the task and each qualifying event — a final status
   (input-required, auth-required, terminal) or, with `push_notify_on="all"`, every event — it
   puts one job on the Queue: the outbox. The job carries the Task exactly as that write left
   it and a notification id derived from (task, config, seq), so a job enqueued twice (a
   redelivered worker job, `reschedule`) is the same notification.
2. `handle(job)`, the job handler, delivers one notification. Per (task, config) the record
   keeps a delivery cursor (`PushCursor`: the last seq delivered or dead-lettered); a
   notification is sent only when every earlier qualifying one is done, so receivers see them
   in order, and one already behind the cursor is dropped. The URL is checked by the SSRF
   guard again, the request goes to the checked address, and a failure is retried with
   exponential back-off and full jitter (or the receiver's Retry-After) until
   `push_max_attempts` or `push_deadline_s`; then, or on a permanent failure (a 4xx, a refused
   URL), the notification is dead-lettered — recorded in the record's `dead_letters`, see
   `dead_letters(task_id)` — and the cursor moves on so later notifications flow.
3. Delivery is at least once: a crash after the POST but before the cursor write sends the
   notification again, with the same X-A2A-Notification-Id, for receivers to de-duplicate.

Bookkeeping in the task record (never shown to clients; `store/bookkeeping.py`): per config a
`PushCursor` (the seq delivered up to, the floor below which nothing is owed, the `PushRetry` of
the notification at the head of the line while it is retried), and the last 100 dead letters.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import logging
import random
import re
import secrets
import ssl
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.util import find_spec
from typing import Any
from urllib.parse import urlsplit

import msgspec

from ..config import Settings
from ..errors import InvalidParamsError
from ..extras import require_crypto
from ..journal import Change, Journal, TaskGone
from ..models import PushNotificationConfig, Task, TaskStatusUpdateEvent
from ..observability import Signal, Signals
from ..queue.base import WEBHOOK_JOB as WEBHOOK_JOB  # re-exported: the push package names it
from ..queue.base import Job, Queue, RetryJob
from ..store.base import StoredPushConfig, TaskEvent, TaskEventPayload, TaskRecord
from ..store.bookkeeping import DeadLetteredNotification, PushCursor, PushRetry
from . import delivery
from .delivery import DeliveryResult, loggable_url
from .keys import KeyRing, PushUnavailable
from .ratelimit import HostRateLimiter
from .signing import JwtSigner
from .ssrf import HostUnresolvable, UrlGuard, UrlRefused

log = logging.getLogger("a2a_serverless.push")

NOTIFY_ON = ("final", "all")
# Notification ids are uuid5(NOTIFICATION_NAMESPACE, "<task id>/<config id>/<seq>").
NOTIFICATION_NAMESPACE = uuid.UUID("5d0f4c1e-2f7b-5a57-9a0e-6b1d3c2a8e41")
MAX_DEAD_LETTERS = 100
# A snapshot larger than this is not put on the queue (SQS takes 256 KiB per message): the
# notification then carries the task as it is when it is sent.
MAX_INLINE_TASK_BYTES = 192 * 1024

_HEADER_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")


def notification_id(task_id: str, config_id: str, seq: int) -> str:
    """The stable id of the notification of event `seq` to config `config_id`."""
    return str(uuid.uuid5(NOTIFICATION_NAMESPACE, f"{task_id}/{config_id}/{seq}"))


def encode_task(task: dict[str, Any]) -> bytes:
    """The request body: the Task as JSON with sorted keys (the A2A samples' canonical form)."""
    return json.dumps(task, ensure_ascii=False, sort_keys=True).encode("utf-8")


def bounded_body(task: dict[str, Any], limit: int, protocol: str = "0.3") -> bytes:
    """The notification body of `task` (its v0.3 JSON), at most about `limit` bytes: a larger
    task goes without its history and artifacts, then without anything but its id, context and
    status state (the receiver reads the rest with tasks/get).

    In the version the config was registered in: v0.3, the Task; v1.0, a StreamResponse
    `{"task": ...}` in v1.0's shapes (spec v1.0 §4.3.3).
    """
    if protocol == "1.0":
        from ..models import Task
        from ..v1.convert import task_out

        task = task_out(Task.model_validate(task))

    def encoded(body: dict[str, Any]) -> bytes:
        return encode_task({"task": body} if protocol == "1.0" else body)

    body = encoded(task)
    if len(body) <= limit:
        return body
    trimmed = {k: v for k, v in task.items() if k not in ("history", "artifacts")}
    body = encoded(trimmed)
    if len(body) <= limit:
        return body
    status = task.get("status") or {}
    bare = {
        "id": task.get("id"),
        "contextId": task.get("contextId"),
        "status": {k: status[k] for k in ("state", "timestamp") if k in status},
    }
    return encoded(bare if protocol == "1.0" else {"kind": "task", **bare})


def _host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


@dataclass(frozen=True, slots=True)
class RedriveResult:
    """What `PushNotifier.redrive` did with one dead letter.

    outcome: "delivered" (sent now), "already" (a redrive delivered it before: nothing sent),
    "failed" (sent and refused or unreachable; the letter stays pending) or "missing" (no such
    dead letter, or its task or push config is gone: nothing to send).
    """

    outcome: str
    reason: str = ""
    letter: DeadLetteredNotification | None = None


class PushNotifier:
    def __init__(
        self,
        journal: Journal,
        queue: Queue,
        settings: Settings,
        *,
        issuer: str | None = None,
        keys: KeyRing | None = None,
        guard: UrlGuard | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """Raises `MissingExtra` without the `crypto` extra (signing needs cryptography);
        `PushUnavailable` without signing keys outside dev mode, or without PyJWT or httpx;
        ValueError for malformed settings."""
        require_crypto("signing push notifications (A2A_PUSH_SIGNING_KEYS)")
        missing = [name for name in ("jwt", "httpx") if find_spec(name) is None]
        if missing:
            raise PushUnavailable(
                f"push notifications need {', '.join(missing)}: pip install PyJWT httpx"
            )
        if settings.push_notify_on not in NOTIFY_ON:
            raise ValueError(
                f"A2A_PUSH_NOTIFY_ON={settings.push_notify_on!r}: expected 'final' or 'all'"
            )
        if settings.push_max_attempts < 1:
            raise ValueError("A2A_PUSH_MAX_ATTEMPTS must be at least 1")
        self.journal = journal
        self.store = journal.store
        self.queue = queue
        self.settings = settings
        self.keys = keys if keys is not None else KeyRing.from_settings(settings)
        self.signer = JwtSigner(
            self.keys, issuer=issuer or settings.public_url, ttl_s=settings.push_jwt_ttl_s
        )
        self.guard = guard or UrlGuard(
            dev_mode=settings.dev_mode, allowed_domains=settings.push_allowed_domains
        )
        # For receivers with a private CA (and tests); None verifies against public CAs.
        self.ssl_context = ssl_context
        self._notify_all = settings.push_notify_on == "all"
        self.host_limiter = HostRateLimiter(settings.push_max_per_host_per_s)
        # How often a notification waiting for an earlier one looks again, at most.
        self.wait_s = min(1.0, max(0.05, settings.push_backoff_base_s))
        # An earlier notification silent for this long is presumed lost and enqueued again.
        self.stall_s = max(60.0, 3 * settings.push_timeout_s)
        # Where delivery outcomes are reported for metrics (the runtime sets its own).
        self.signals = Signals()

    # --- what the lead wires ------------------------------------------------------------------

    def jwks_document(self) -> dict[str, Any]:
        """The body of GET /.well-known/jwks.json."""
        return self.keys.jwks()

    async def check_config_url(self, url: str) -> None:
        """The set-time guard for a config's URL: InvalidParamsError if it is refused."""
        try:
            await self.guard.check_at_set_time(url)
        except UrlRefused as refused:
            raise InvalidParamsError(
                f"pushNotificationConfig.url is not allowed: {refused.reason}",
                data={"url": refused.url, "reason": refused.reason},
            ) from None
        if self.settings.push_verify_ownership:
            await self._challenge(url)

    async def on_config_set(self, task_id: str, config_id: str, *, seen_seq: int) -> None:
        """Call after storing a config; `seen_seq` is the task's `last_seq` read before that.

        Notifications of events up to `seen_seq` were never queued for this config, so later
        ones must not wait for them.
        """

        def decide(record: TaskRecord) -> Change | None:
            cursor = record.push_cursor(config_id)
            floor = seen_seq if cursor.floor is None else min(cursor.floor, seen_seq)
            if cursor.floor == floor:
                return None
            return Change(push={config_id: msgspec.structs.replace(cursor, floor=floor)})

        with contextlib.suppress(TaskGone):
            await self.journal.write(task_id, decide)

    async def on_config_deleted(self, task_id: str, config_id: str) -> None:
        """Call after deleting a config: forgets its cursor, so a new one starts afresh."""

        def decide(record: TaskRecord) -> Change | None:
            if config_id not in record.push_cursors:
                return None
            return Change(push={config_id: None})

        with contextlib.suppress(TaskGone):
            await self.journal.write(task_id, decide)

    async def on_commit(self, record: TaskRecord, events: Sequence[TaskEvent]) -> None:
        """The journal commit hook: queue a notification per config and qualifying event.

        A failure to enqueue propagates to the writer (the write itself is done): a worker's
        run-agent job then fails and is redelivered, and its duplicate run calls `reschedule`.
        """
        wanted = [event for event in events if self.qualifies(event.payload)]
        if not wanted:
            return
        configs = await self.store.list_push_configs(record.task_id)
        if not configs:
            return
        snapshot = _snapshot(record.task)
        created = _now_ms()
        for stored in configs:
            config_id = _config_id(stored)
            for event in wanted:
                await self._enqueue(record.task_id, config_id, event.seq, snapshot, created)

    async def reschedule(self, record: TaskRecord) -> None:
        """Queue again every qualifying notification not yet delivered or dead-lettered.

        For a worker that finds its turn already done: the worker that did it may have died
        between a commit and its enqueue. Duplicates are harmless (stable ids, the cursor).
        The Task sent is the current one (the snapshot of the original write is gone).
        """
        configs = await self.store.list_push_configs(record.task_id)
        if not configs:
            return
        lowers = {_config_id(s): record.push_cursor(_config_id(s)).lower for s in configs}
        start = min(lowers.values())
        if start >= record.last_seq:
            return
        events = await self.store.read_events(record.task_id, start)
        snapshot = _snapshot(record.task)
        created = _now_ms()
        for config_id, lower in lowers.items():
            for event in events:
                if event.seq > lower and self.qualifies(event.payload):
                    await self._enqueue(record.task_id, config_id, event.seq, snapshot, created)

    async def dead_letters(self, task_id: str) -> list[DeadLetteredNotification]:
        """The notifications of a task that were given up on, oldest first (the last 100)."""
        record = await self.store.get_task(task_id)
        if record is None:
            return []
        return record.dead_letters

    async def redrive(self, task_id: str, notification_id: str) -> RedriveResult:
        """Send a dead-lettered notification again, once, now; safe to repeat.

        The notification keeps its id and seq (receivers de-duplicate on the id) and carries
        the task as it is now; it goes to the config's current URL, checked by the SSRF guard
        and signed like any other. The outcome is recorded on the dead letter, which stays in
        the list: a letter already redriven is not sent again, so running a redrive twice sends
        each notification at most once more (at least once, if the process dies between the
        send and that record, as for every delivery). The delivery cursor is left alone:
        notifications after this one have flowed already.
        """
        record = await self.store.get_task(task_id)
        if record is None:
            return RedriveResult("missing", f"task {task_id} is gone")
        letter = _find_letter(record, notification_id)
        if letter is None:
            return RedriveResult("missing", f"task {task_id} has no dead letter {notification_id}")
        if letter.redriven_at:
            return RedriveResult("already", f"redriven at {letter.redriven_at}", letter)
        stored = await self.store.get_push_config(task_id, letter.config_id)
        if stored is None:
            return RedriveResult("missing", f"push config {letter.config_id} was deleted", letter)
        result = await self._attempt(record, stored, letter.seq, notification_id, {})
        delivered = result.outcome == "delivered"
        at = _iso_now()
        log.info(
            "redrive of notification %s (task %s seq %d) to %s: %s",
            notification_id,
            task_id,
            letter.seq,
            loggable_url(stored.config.url),
            result.outcome if delivered else result.reason,
        )

        def decide(fresh: TaskRecord) -> Change | None:
            letters = fresh.dead_letters
            for index, current in enumerate(letters):
                if current.notification_id != notification_id or current.redriven_at:
                    continue
                letters[index] = dataclasses.replace(
                    current,
                    redriven_at=at if delivered else None,
                    redrive_attempts=current.redrive_attempts + 1,
                    redrive_error=None if delivered else result.reason[:500],
                )
                return Change(dead_letters=letters)
            return None

        with contextlib.suppress(TaskGone):
            record = await self.journal.write(task_id, decide)
        updated = _find_letter(record, notification_id) or letter
        if delivered:
            return RedriveResult("delivered", "", updated)
        return RedriveResult("failed", result.reason, updated)

    def qualifies(self, payload: TaskEventPayload) -> bool:
        if self._notify_all:
            return True
        if not isinstance(payload, TaskStatusUpdateEvent):
            return False
        state = payload.status.state
        return state.is_terminal or state.is_interrupted

    # --- the job handler ------------------------------------------------------------------------

    async def handle(self, job: Job) -> None:
        """Deliver one notification (the Worker's handler for WEBHOOK_JOB)."""
        payload = job.payload
        task_id = job.task_id
        config_id = str(payload["configId"])
        seq = int(payload["seq"])
        nid = str(payload["notificationId"])
        created_s = float(payload.get("firstAttemptAt") or _now_ms()) / 1000
        record = await self.store.get_task(task_id)
        if record is None:
            log.info("notification %s dropped: task %s is gone", nid, task_id)
            return
        stored = await self.store.get_push_config(task_id, config_id)
        if stored is None:
            log.info("notification %s dropped: config %s was deleted", nid, config_id)
            return
        if record.push_cursor(config_id).delivered >= seq:
            return  # delivered (or dead-lettered) already: a duplicate
        # Waiting for an earlier notification never dead-letters this one: the earlier one is
        # older, so it is delivered or dead-lettered first, and then this one's turn comes.
        await self._wait_for_earlier(record, config_id, seq, created_s)

        url = loggable_url(stored.config.url)
        deadline_at = created_s + self.settings.push_deadline_s
        retry = record.push_cursor(config_id).retry_of(seq)
        prior = 0 if retry is None else retry.attempts
        last_error = (retry.last_error or None) if retry is not None else None
        if time.time() >= deadline_at or prior >= self.settings.push_max_attempts:
            because = f"; last error: {last_error}" if last_error else ""
            reason = (
                f"not delivered within the deadline of {self.settings.push_deadline_s:g} s"
                if prior < self.settings.push_max_attempts
                else f"gave up after {prior} attempts"
            )
            await self._dead_letter(record, stored, seq, nid, reason + because, prior)
            return

        wait_s = self.host_limiter.reserve(_host_of(stored.config.url))
        if wait_s > 0:
            # Over the host's rate: not an attempt, just a later turn.
            raise RetryJob(f"notification {nid}: {url} is at its delivery rate", delay_s=wait_s)
        started = time.monotonic()
        result = await self._attempt(record, stored, seq, nid, payload)
        attempt_s = time.monotonic() - started
        attempt = prior + 1
        if result.outcome == "delivered":
            self.signals.emit(Signal("webhook.delivered", task_id, attempt_s))
            log.info("notification %s (task %s seq %d) delivered to %s", nid, task_id, seq, url)
            await self._advance(task_id, config_id, seq)
            return
        if result.outcome == "permanent":
            await self._dead_letter(record, stored, seq, nid, result.reason, attempt)
            return
        if attempt >= self.settings.push_max_attempts:
            reason = f"gave up after {attempt} attempts; last error: {result.reason}"
            await self._dead_letter(record, stored, seq, nid, reason, attempt)
            return
        delay = result.retry_after_s if result.retry_after_s is not None else self.backoff(attempt)
        if time.time() + delay >= deadline_at:
            reason = (
                f"the next attempt (in {delay:.3g} s) would be past the deadline of "
                f"{self.settings.push_deadline_s:g} s; last error: {result.reason}"
            )
            await self._dead_letter(record, stored, seq, nid, reason, attempt)
            return
        log.info(
            "notification %s attempt %d to %s failed (%s); next in %.3g s",
            nid,
            attempt,
            url,
            result.reason,
            delay,
        )
        await self._record_attempt(task_id, config_id, seq, delay, result.reason)
        self.signals.emit(Signal("webhook.retrying", task_id, attempt_s))
        raise RetryJob(f"notification {nid}: {result.reason}", delay_s=delay)

    async def abandon(self, job: Job, reason: str) -> None:
        """The queue gave up on this delivery job: dead-letter its notification (if it is still
        pending) so the notifications after it flow."""
        config_id = str(job.payload["configId"])
        seq = int(job.payload["seq"])
        record = await self.store.get_task(job.task_id)
        stored = await self.store.get_push_config(job.task_id, config_id)
        if record is None or stored is None:
            return
        cursor = record.push_cursor(config_id)
        if cursor.delivered >= seq:
            return
        retry = cursor.retry_of(seq)
        attempts = 0 if retry is None else retry.attempts
        why = f"the queue gave up on the delivery job: {reason}"
        await self._dead_letter(
            record, stored, seq, str(job.payload["notificationId"]), why, attempts
        )

    def backoff(self, attempt: int) -> float:
        """Delay after failed attempt `attempt`: full jitter over base * 2^(attempt-1), capped."""
        s = self.settings
        ceiling = min(s.push_backoff_max_s, s.push_backoff_base_s * 2 ** min(attempt - 1, 60))
        return random.uniform(0, ceiling)

    # --- steps ------------------------------------------------------------------------------------

    async def _wait_for_earlier(
        self, record: TaskRecord, config_id: str, seq: int, created_s: float
    ) -> None:
        """RetryJob while an earlier notification for this config is not done yet."""
        cursor = record.push_cursor(config_id)
        lower = cursor.lower
        if seq - 1 <= lower:
            return
        earlier = await self.store.read_events(record.task_id, lower, limit=seq - 1 - lower)
        pending = [e.seq for e in earlier if e.seq < seq and self.qualifies(e.payload)]
        if not pending:
            return
        head = pending[0]
        now = time.time()
        retry = cursor.retry_of(head)
        # When the head of the line is expected to make its next attempt.
        expected_at = created_s if retry is None else retry.next_at_ms / 1000
        if now - expected_at > self.stall_s:
            log.warning(
                "task %s config %s: notification of seq %d looks lost; queueing it again",
                record.task_id,
                config_id,
                head,
            )
            await self._requeue(record, config_id, pending, created_s)
            expected_at = now
        delay = max(self.wait_s, expected_at - now + self.wait_s)
        raise RetryJob(f"waiting for the notification of seq {head}", delay_s=delay)

    async def _requeue(
        self, record: TaskRecord, config_id: str, seqs: Sequence[int], created_s: float
    ) -> None:
        head = seqs[0]
        now = _now_ms()

        def decide(fresh: TaskRecord) -> Change | None:
            cursor = fresh.push_cursor(config_id)
            if cursor.delivered >= head:
                return None
            retry = cursor.retry_of(head) or PushRetry(seq=head, attempts=0, next_at_ms=now)
            retry = msgspec.structs.replace(retry, next_at_ms=now)
            return Change(push={config_id: msgspec.structs.replace(cursor, retry=retry)})

        try:
            await self.journal.write(record.task_id, decide)
        except TaskGone:
            return
        snapshot = _snapshot(record.task)
        for s in seqs:
            await self._enqueue(record.task_id, config_id, s, snapshot, int(created_s * 1000))

    async def _attempt(
        self,
        record: TaskRecord,
        stored: StoredPushConfig,
        seq: int,
        nid: str,
        payload: dict[str, Any],
    ) -> DeliveryResult:
        config = stored.config
        try:
            target = await self.guard.resolve_for_send(config.url)
        except UrlRefused as refused:
            return DeliveryResult("permanent", f"refused by the SSRF guard: {refused.reason}")
        except HostUnresolvable as unresolved:
            return DeliveryResult("retry", str(unresolved))
        task = payload.get("task") or record.task.dump()
        body = bounded_body(task, self.settings.push_max_body_bytes, stored.protocol)
        token, _ = self.signer.sign(body, config.url, record.task_id, notification_id=nid, seq=seq)
        try:
            headers = notification_headers(config, nid, seq, token, stored.protocol)
        except ValueError as exc:
            return DeliveryResult("permanent", str(exc))
        return await delivery.send(
            "POST",
            target,
            body=body,
            headers=headers,
            timeout_s=self.settings.push_timeout_s,
            max_response_bytes=self.settings.push_max_response_bytes,
            ssl_context=self.ssl_context,
        )

    async def _enqueue(
        self,
        task_id: str,
        config_id: str,
        seq: int,
        snapshot: dict[str, Any] | None,
        created_ms: int,
    ) -> None:
        nid = notification_id(task_id, config_id, seq)
        payload: dict[str, Any] = {
            "notificationId": nid,
            "configId": config_id,
            "seq": seq,
            "task": snapshot,
            "firstAttemptAt": created_ms,
        }
        await self.queue.enqueue(Job(kind=WEBHOOK_JOB, task_id=task_id, payload=payload, id=nid))

    async def _advance(self, task_id: str, config_id: str, seq: int) -> None:
        def decide(record: TaskRecord) -> Change | None:
            cursor = record.push_cursor(config_id)
            if cursor.delivered >= seq:
                return None
            return Change(push={config_id: _moved(cursor, seq)})

        with contextlib.suppress(TaskGone):
            await self.journal.write(task_id, decide)

    async def _record_attempt(
        self, task_id: str, config_id: str, seq: int, delay_s: float, error: str
    ) -> None:
        next_at = _now_ms() + int(delay_s * 1000)

        def decide(record: TaskRecord) -> Change | None:
            cursor = record.push_cursor(config_id)
            if cursor.delivered >= seq:
                return None
            prior = cursor.retry_of(seq)
            retry = PushRetry(
                seq=seq,
                attempts=(0 if prior is None else prior.attempts) + 1,
                next_at_ms=next_at,
                last_error=error[:500],
            )
            return Change(push={config_id: msgspec.structs.replace(cursor, retry=retry)})

        with contextlib.suppress(TaskGone):
            await self.journal.write(task_id, decide)

    async def _dead_letter(
        self,
        record: TaskRecord,
        stored: StoredPushConfig,
        seq: int,
        nid: str,
        reason: str,
        attempts: int,
    ) -> None:
        config_id = _config_id(stored)
        letter = DeadLetteredNotification(
            notification_id=nid,
            config_id=config_id,
            seq=seq,
            url=stored.config.url,
            reason=reason[:1000],
            attempts=attempts,
            at=_iso_now(),
        )
        self.signals.emit(Signal("webhook.dead-lettered", record.task_id))
        log.warning(
            "notification %s (task %s seq %d) to %s dead-lettered after %d attempt(s): %s",
            nid,
            record.task_id,
            seq,
            loggable_url(stored.config.url),
            attempts,
            reason,
        )

        def decide(fresh: TaskRecord) -> Change | None:
            cursor = fresh.push_cursor(config_id)
            if cursor.delivered >= seq:
                return None
            letters = [*fresh.dead_letters, letter][-MAX_DEAD_LETTERS:]
            return Change(push={config_id: _moved(cursor, seq)}, dead_letters=letters)

        with contextlib.suppress(TaskGone):
            await self.journal.write(record.task_id, decide)

    async def _challenge(self, url: str) -> None:
        """Ownership check: GET url?validationToken=<random>; the body must echo the token."""

        def refuse(why: str) -> InvalidParamsError:
            return InvalidParamsError(
                f"pushNotificationConfig.url failed the ownership check: {why}",
                data={"url": url, "reason": why},
            )

        try:
            target = await self.guard.resolve_for_send(url)
        except UrlRefused as refused:  # pragma: no cover - parse() already passed
            raise refuse(refused.reason) from None
        except HostUnresolvable as unresolved:
            raise refuse(str(unresolved)) from None
        token = secrets.token_urlsafe(24)
        result = await delivery.send(
            "GET",
            target.with_query("validationToken", token),
            headers={"X-A2A-Validation-Token": token},
            timeout_s=self.settings.push_timeout_s,
            max_response_bytes=min(self.settings.push_max_response_bytes, 4096),
            ssl_context=self.ssl_context,
        )
        if result.outcome != "delivered":
            raise refuse(f"the challenge request failed ({result.reason})")
        if result.body.strip() != token.encode():
            raise refuse("the response did not echo the validationToken")


def notification_headers(
    config: PushNotificationConfig, nid: str, seq: int, jwt_token: str, protocol: str = "0.3"
) -> dict[str, str]:
    """The headers of one notification POST (ValueError if the config's values are unusable).

    Our JWT goes in `Authorization: Bearer`, unless the config carries credentials for a Bearer
    or Basic scheme: those then go in Authorization and the JWT in X-A2A-Notification-JWT. A
    v1.0 config's body is `application/a2a+json`.
    """
    headers = {
        "Content-Type": "application/a2a+json" if protocol == "1.0" else "application/json",
        "X-A2A-Notification-Id": nid,
        "X-A2A-Notification-Seq": str(seq),
    }
    if config.token:
        if _HEADER_UNSAFE.search(config.token) or not config.token.isascii():
            raise ValueError("the config's token contains control characters or non-ASCII text")
        headers["X-A2A-Notification-Token"] = config.token
    explicit = _explicit_authorization(config)
    if explicit is not None:
        headers["Authorization"] = explicit
        headers["X-A2A-Notification-JWT"] = jwt_token
    else:
        headers["Authorization"] = f"Bearer {jwt_token}"
    return headers


def _explicit_authorization(config: PushNotificationConfig) -> str | None:
    auth = config.authentication
    if auth is None or not auth.credentials:
        return None
    credentials = auth.credentials.strip()
    if _HEADER_UNSAFE.search(credentials) or not credentials.isascii():
        raise ValueError("the config's credentials contain control characters or non-ASCII text")
    schemes = {scheme.strip().lower() for scheme in auth.schemes}
    if "bearer" in schemes:
        return f"Bearer {credentials}"
    if "basic" in schemes:
        if ":" in credentials:  # user:password, not yet encoded
            credentials = base64.b64encode(credentials.encode()).decode("ascii")
        return f"Basic {credentials}"
    return None


def _config_id(stored: StoredPushConfig) -> str:
    return stored.config.id or stored.task_id


def _find_letter(record: TaskRecord, notification_id: str) -> DeadLetteredNotification | None:
    for letter in record.dead_letters:
        if letter.notification_id == notification_id:
            return letter
    return None


def _iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _moved(cursor: PushCursor, seq: int) -> PushCursor:
    """`cursor` moved on to `seq`, without the retry state of a notification now done."""
    retry = cursor.retry
    if retry is not None and retry.seq <= seq:
        retry = None
    return msgspec.structs.replace(cursor, delivered=max(seq, cursor.delivered), retry=retry)


def _snapshot(task: Task) -> dict[str, Any] | None:
    data = task.dump()
    if len(encode_task(data)) > MAX_INLINE_TASK_BYTES:
        return None
    return data


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
