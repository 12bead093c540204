"""Dead letters: notifications given up on, kept on the task record with why; and their redrive.

Dead-lettering a notification moves its config's cursor past it in the same write, so the
notifications after it flow; the record keeps the last `MAX_DEAD_LETTERS`. A redrive sends one
again once (`PushNotifier.redrive`) and records the outcome on the letter, which stays listed.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec

from ..journal import Change, Journal, TaskGone
from ..observability import Signal, Signals
from ..store.base import StoredPushConfig, TaskRecord
from ..store.bookkeeping import DeadLetteredNotification
from .cursors import config_id_of, moved
from .delivery import loggable_url

log = logging.getLogger("a2a_serverless.push")

MAX_DEAD_LETTERS = 100


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


async def dead_letter(
    journal: Journal,
    signals: Signals,
    record: TaskRecord,
    stored: StoredPushConfig,
    seq: int,
    nid: str,
    reason: str,
    attempts: int,
) -> None:
    """Give up on the notification `nid` (of `seq`) after `attempts` attempts, because of
    `reason`: one WARNING line, a metric, the letter and the moved cursor in one write."""
    config_id = config_id_of(stored)
    letter = DeadLetteredNotification(
        notification_id=nid,
        config_id=config_id,
        seq=seq,
        url=stored.config.url,
        reason=reason[:1000],
        attempts=attempts,
        at=iso_now(),
    )
    signals.emit(Signal("webhook.dead-lettered", record.task_id))
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
        return Change(push={config_id: moved(cursor, seq)}, dead_letters=letters)

    with contextlib.suppress(TaskGone):
        await journal.write(record.task_id, decide)


async def record_redrive(
    journal: Journal, task_id: str, notification_id: str, *, delivered: bool, error: str
) -> TaskRecord | None:
    """Note a redrive's outcome on its (still pending) letter; the record as written, or None
    if the task is gone."""
    at = iso_now()

    def decide(fresh: TaskRecord) -> Change | None:
        letters = fresh.dead_letters
        for index, current in enumerate(letters):
            if current.notification_id != notification_id or current.redriven_at:
                continue
            letters[index] = msgspec.structs.replace(
                current,
                redriven_at=at if delivered else None,
                redrive_attempts=current.redrive_attempts + 1,
                redrive_error=None if delivered else error[:500],
            )
            return Change(dead_letters=letters)
        return None

    try:
        return await journal.write(task_id, decide)
    except TaskGone:
        return None


def find_letter(record: TaskRecord, notification_id: str) -> DeadLetteredNotification | None:
    for letter in record.dead_letters:
        if letter.notification_id == notification_id:
            return letter
    return None


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
