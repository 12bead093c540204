"""Push notifications: from a committed task event to a verified POST at the client's webhook.

The flow, and where each guarantee comes from:

1. `on_commit(record, events)` runs after every journal write that logged events (a commit
   hook) and puts a delivery job on the Queue per config and qualifying event (`outbox.py`).
2. `handle(job)`, the job handler, delivers one notification. Per (task, config) the record
   keeps a delivery cursor (`cursors.py`: the last seq delivered or dead-lettered); a
   notification is sent only when every earlier qualifying one is done, so receivers see them
   in order, and one already behind the cursor is dropped. The URL is checked by the SSRF
   guard again, the request goes to the checked address (`delivery.py`), signed, with the body
   and headers of `payload.py`, and a failure is retried with exponential back-off and full
   jitter (or the receiver's Retry-After) until `push_max_attempts` or `push_deadline_s`; then,
   or on a permanent failure (a 4xx, a refused URL), the notification is dead-lettered
   (`deadletters.py`; see `dead_letters(task_id)`) and the cursor moves on so later
   notifications flow. Each receiving host gets at most its rate (`ratelimit.py`).
3. Delivery is at least once: a crash after the POST but before the cursor write sends the
   notification again, with the same X-A2A-Notification-Id, for receivers to de-duplicate.

This module is that flow, and the notifier the runtime wires: the set-time URL check (with the
optional ownership challenge), the JWKS, the handler and the redrive of a dead letter. The
runtime makes the outbox first and hands it to the journal (its commit and catch-up hooks) and
to the notifier: nothing is wired after construction.
"""

from __future__ import annotations

import logging
import random
import secrets
import ssl
import time
from collections.abc import Callable, Sequence
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..config import Settings
from ..errors import InvalidParamsError
from ..extras import require_crypto
from ..journal import Journal
from ..models import Task
from ..observability import Signal, Signals
from ..queue.base import WEBHOOK_JOB as WEBHOOK_JOB  # re-exported: the push package names it
from ..queue.base import Job, Notification, Queue, RetryJob, WebhookJob
from ..store import legacy
from ..store.base import Store, StoredPushConfig, TaskEvent, TaskEventPayload, TaskRecord
from ..store.bookkeeping import DeadLetteredNotification
from . import cursors, delivery, outbox
from .deadletters import RedriveResult, dead_letter, find_letter, record_redrive
from .delivery import DeliveryResult, loggable_url
from .keys import KeyRing, PushNotConfigured
from .outbox import Outbox
from .payload import bounded_body, notification_headers
from .ratelimit import HostRateLimiter
from .signing import JwtSigner
from .ssrf import HostUnresolvable, UrlGuard, UrlRefused

if TYPE_CHECKING:
    from ..filelinks import FileLinks

log = logging.getLogger("a2a_serverless.push")

NOTIFY_ON = ("final", "all")


class PushNotifier:
    def __init__(
        self,
        journal: Journal,
        queue: Queue,
        settings: Settings,
        *,
        issuer: str | Callable[[], str | None] | None = None,
        keys: KeyRing | None = None,
        guard: UrlGuard | None = None,
        ssl_context: ssl.SSLContext | None = None,
        outbox: Outbox | None = None,
        signals: Signals | None = None,
        links: FileLinks | None = None,
    ) -> None:
        """Raises `MissingExtra` without the `crypto` extra (signing needs cryptography);
        `PushNotConfigured` without signing keys outside dev mode, or without PyJWT or httpx;
        ValueError for malformed settings (`preflight` raises the same, before anything is
        built). `outbox`: the one the journal's hooks call (runtime.py), else one of its own on
        `queue`; `signals`: where delivery outcomes are reported for metrics; `links`: signed
        URLs for large file parts in bodies (a2a_serverless.filelinks); `issuer`: the JWTs' `iss`,
        the agent's URL (the Runtime's `agent_url`, with its mount prefix), else the public
        URL."""
        self.keys = keys if keys is not None else self.preflight(settings)
        self.links = links
        self.journal = journal
        self.store = journal.store
        self.queue = queue
        self.settings = settings
        self.signer = JwtSigner(
            self.keys, issuer=issuer or settings.public_url, ttl_s=settings.push_jwt_ttl_s
        )
        self.guard = guard or UrlGuard(
            dev_mode=settings.dev_mode, allowed_domains=settings.push_allowed_domains
        )
        # For receivers with a private CA (and tests); None verifies against public CAs.
        self.ssl_context = ssl_context
        self.outbox = outbox or self.make_outbox(journal.store, queue, settings)
        self.host_limiter = HostRateLimiter(settings.push_max_per_host_per_s)
        # How often a notification waiting for an earlier one looks again, at most.
        self.wait_s = min(1.0, max(0.05, settings.push_backoff_base_s))
        # An earlier notification silent for this long is presumed lost and enqueued again.
        self.stall_s = max(60.0, 3 * settings.push_timeout_s)
        self.signals = signals if signals is not None else Signals()

    @staticmethod
    def preflight(settings: Settings) -> KeyRing:
        """The signing keys push needs, checking first everything a notifier needs (see
        `__init__` for what it raises), so a caller can decide before it builds anything."""
        require_crypto("signing push notifications (A2A_PUSH_SIGNING_KEYS)")
        missing = [name for name in ("jwt", "httpx") if find_spec(name) is None]
        if missing:
            raise PushNotConfigured(
                f"push notifications need {', '.join(missing)}: pip install PyJWT httpx"
            )
        if settings.push_notify_on not in NOTIFY_ON:
            raise ValueError(
                f"A2A_PUSH_NOTIFY_ON={settings.push_notify_on!r}: expected 'final' or 'all'"
            )
        if settings.push_max_attempts < 1:
            raise ValueError("A2A_PUSH_MAX_ATTEMPTS must be at least 1")
        return KeyRing.from_settings(settings)

    @staticmethod
    def make_outbox(store: Store, queue: Queue, settings: Settings) -> Outbox:
        """The outbox of these settings: it queues the notifications writes owe on `queue`."""
        return Outbox(store, queue, notify_all=settings.push_notify_on == "all")

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
        await cursors.set_floor(self.journal, task_id, config_id, seen_seq)

    async def on_config_deleted(self, task_id: str, config_id: str) -> None:
        """Call after deleting a config: forgets its cursor, so a new one starts afresh."""
        await cursors.forget(self.journal, task_id, config_id)

    async def on_commit(self, record: TaskRecord, events: Sequence[TaskEvent]) -> None:
        """The journal commit hook: queue a notification per config and qualifying event.

        A failure to enqueue propagates to the writer (the write itself is done): a worker's
        run-agent job then fails and is redelivered, and its duplicate run calls `reschedule`.
        """
        await self.outbox.on_commit(record, events)

    async def reschedule(self, record: TaskRecord) -> None:
        """Queue again every qualifying notification not yet delivered or dead-lettered.

        For a worker that finds its turn already done: the worker that did it may have died
        between a commit and its enqueue. Duplicates are harmless (stable ids, the cursor).
        """
        await self.outbox.reschedule(record)

    def qualifies(self, payload: TaskEventPayload) -> bool:
        return self.outbox.qualifies(payload)

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
        letter = find_letter(record, notification_id)
        if letter is None:
            return RedriveResult("missing", f"task {task_id} has no dead letter {notification_id}")
        if letter.redriven_at:
            return RedriveResult("already", f"redriven at {letter.redriven_at}", letter)
        stored = await self.store.get_push_config(task_id, letter.config_id)
        if stored is None:
            return RedriveResult("missing", f"push config {letter.config_id} was deleted", letter)
        result = await self._attempt(record, stored, letter.seq, notification_id, None)
        delivered = result.outcome == "delivered"
        log.info(
            "redrive of notification %s (task %s seq %d) to %s: %s",
            notification_id,
            task_id,
            letter.seq,
            loggable_url(stored.config.url),
            result.outcome if delivered else result.reason,
        )
        written = await record_redrive(
            self.journal, task_id, notification_id, delivered=delivered, error=result.reason
        )
        updated = (None if written is None else find_letter(written, notification_id)) or letter
        if delivered:
            return RedriveResult("delivered", "", updated)
        return RedriveResult("failed", result.reason, updated)

    # --- the job handler ------------------------------------------------------------------------

    async def handle(self, job: Job) -> None:
        """Deliver one notification (the job router's route for WEBHOOK_JOB)."""
        payload = _notification_of(job)
        task_id = job.task_id
        config_id = payload.config_id
        seq = payload.seq
        nid = payload.notification_id
        created_s = (payload.first_attempt_at or outbox.now_ms()) / 1000
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
            await cursors.advance(self.journal, task_id, config_id, seq)
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
        next_at = outbox.now_ms() + int(delay * 1000)
        await cursors.record_attempt(self.journal, task_id, config_id, seq, next_at, result.reason)
        self.signals.emit(Signal("webhook.retrying", task_id, attempt_s))
        raise RetryJob(f"notification {nid}: {result.reason}", delay_s=delay)

    async def abandon(self, job: Job, reason: str) -> None:
        """The queue gave up on this delivery job: dead-letter its notification (if it is still
        pending) so the notifications after it flow."""
        payload = _notification_of(job)
        config_id, seq = payload.config_id, payload.seq
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
        await self._dead_letter(record, stored, seq, payload.notification_id, why, attempts)

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
            if await cursors.mark_requeued(
                self.journal, record.task_id, config_id, head, outbox.now_ms()
            ):
                await self.outbox.requeue(record, config_id, pending, created_s)
            expected_at = now
        delay = max(self.wait_s, expected_at - now + self.wait_s)
        raise RetryJob(f"waiting for the notification of seq {head}", delay_s=delay)

    async def _attempt(
        self,
        record: TaskRecord,
        stored: StoredPushConfig,
        seq: int,
        nid: str,
        payload: Notification | None,
    ) -> DeliveryResult:
        config = stored.config
        try:
            target = await self.guard.resolve_for_send(config.url)
        except UrlRefused as refused:
            return DeliveryResult("permanent", f"refused by the SSRF guard: {refused.reason}")
        except HostUnresolvable as unresolved:
            return DeliveryResult("retry", str(unresolved))
        # The task as the write that queued it left it (a job an earlier version queued holds it
        # in that version's form: legacy.py), else (too large to queue, a redrive) now.
        queued = payload.task if payload is not None else None
        task = Task.model_validate(legacy.task(queued)) if queued else record.task
        if self.links is not None:
            task = await self.links.task(task)
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

    async def _dead_letter(
        self,
        record: TaskRecord,
        stored: StoredPushConfig,
        seq: int,
        nid: str,
        reason: str,
        attempts: int,
    ) -> None:
        await dead_letter(self.journal, self.signals, record, stored, seq, nid, reason, attempts)

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


def _notification_of(job: Job) -> Notification:
    if not isinstance(job, WebhookJob):
        raise TypeError(f"the notifier delivers deliver-webhook jobs, not {job.kind!r}")
    return job.payload


def _host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""
