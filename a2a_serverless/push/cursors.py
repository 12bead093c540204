"""Cursor bookkeeping: each push config's `PushCursor` in the task record, moved by journal writes.

A config's notifications go out in seq order: its cursor holds the last seq delivered or
dead-lettered, the floor below which nothing is owed (events before the config existed) and the
`PushRetry` of the notification at the head of the line while it is retried. Every function
here is one conditional journal write that does nothing when a newer write got there first (the
cursor is past the seq already), and nothing when the task is gone.
"""

from __future__ import annotations

import contextlib

import msgspec

from ..journal import Change, Decide, Journal, TaskGone
from ..store.base import StoredPushConfig, TaskRecord
from ..store.bookkeeping import PushCursor, PushRetry


def config_id_of(stored: StoredPushConfig) -> str:
    """The id a config's cursor is kept under (A2A's default id is the task's)."""
    return stored.config.id or stored.task_id


def moved(cursor: PushCursor, seq: int) -> PushCursor:
    """`cursor` moved on to `seq`, without the retry state of a notification now done."""
    retry = cursor.retry
    if retry is not None and retry.seq <= seq:
        retry = None
    return msgspec.structs.replace(cursor, delivered=max(seq, cursor.delivered), retry=retry)


async def set_floor(journal: Journal, task_id: str, config_id: str, seen_seq: int) -> None:
    """A config was stored when the task's last seq was `seen_seq`: nothing up to it is owed."""

    def decide(record: TaskRecord) -> Change | None:
        cursor = record.push_cursor(config_id)
        floor = seen_seq if cursor.floor is None else min(cursor.floor, seen_seq)
        if cursor.floor == floor:
            return None
        return Change(push={config_id: msgspec.structs.replace(cursor, floor=floor)})

    await _write(journal, task_id, decide)


async def forget(journal: Journal, task_id: str, config_id: str) -> None:
    """A config was deleted: drop its cursor, so a new config of that id starts afresh."""

    def decide(record: TaskRecord) -> Change | None:
        if config_id not in record.push_cursors:
            return None
        return Change(push={config_id: None})

    await _write(journal, task_id, decide)


async def advance(journal: Journal, task_id: str, config_id: str, seq: int) -> None:
    """The notification of `seq` was delivered."""

    def decide(record: TaskRecord) -> Change | None:
        cursor = record.push_cursor(config_id)
        if cursor.delivered >= seq:
            return None
        return Change(push={config_id: moved(cursor, seq)})

    await _write(journal, task_id, decide)


async def record_attempt(
    journal: Journal, task_id: str, config_id: str, seq: int, next_at_ms: int, error: str
) -> None:
    """An attempt at the notification of `seq` failed; the next is due at `next_at_ms`."""

    def decide(record: TaskRecord) -> Change | None:
        cursor = record.push_cursor(config_id)
        if cursor.delivered >= seq:
            return None
        prior = cursor.retry_of(seq)
        retry = PushRetry(
            seq=seq,
            attempts=(0 if prior is None else prior.attempts) + 1,
            next_at_ms=next_at_ms,
            last_error=error[:500],
        )
        return Change(push={config_id: msgspec.structs.replace(cursor, retry=retry)})

    await _write(journal, task_id, decide)


async def mark_requeued(
    journal: Journal, task_id: str, config_id: str, head: int, now_ms: int
) -> bool:
    """The head of the line (`head`) is being queued again now: it is expected from `now_ms`.
    False if the task is gone."""

    def decide(record: TaskRecord) -> Change | None:
        cursor = record.push_cursor(config_id)
        if cursor.delivered >= head:
            return None
        retry = cursor.retry_of(head) or PushRetry(seq=head, attempts=0, next_at_ms=now_ms)
        retry = msgspec.structs.replace(retry, next_at_ms=now_ms)
        return Change(push={config_id: msgspec.structs.replace(cursor, retry=retry)})

    try:
        await journal.write(task_id, decide)
    except TaskGone:
        return False
    return True


async def _write(journal: Journal, task_id: str, decide: Decide) -> None:
    with contextlib.suppress(TaskGone):
        await journal.write(task_id, decide)
