"""The outbox: which notifications a committed write owes, put on the Queue as delivery jobs.

For each push config of the task and each qualifying event — a final status (input-required,
auth-required, terminal) or, with `push_notify_on="all"`, every event — one `deliver-webhook`
job. The job carries the Task exactly as that write left it (unless it is too large to queue)
and a notification id derived from (task, config, seq), so a job queued twice (a redelivered
worker job, `reschedule`, a requeue of a lost one) is the same notification.

It reads the store and writes only to the queue: the journal runs `on_commit` after its writes
and `reschedule` when it catches up on a task (runtime.py wires both).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..models import TaskStatusUpdateEvent
from ..queue.base import Notification, Queue, WebhookJob
from ..store.base import Store, TaskEvent, TaskEventPayload, TaskRecord
from .cursors import config_id_of
from .payload import notification_id, snapshot


class Outbox:
    def __init__(self, store: Store, queue: Queue, *, notify_all: bool) -> None:
        self.store = store
        self.queue = queue
        self._notify_all = notify_all

    def qualifies(self, payload: TaskEventPayload) -> bool:
        """Whether an event is notified: every one with `notify_all`, else a final status."""
        if self._notify_all:
            return True
        if not isinstance(payload, TaskStatusUpdateEvent):
            return False
        return payload.status.state.ends_stream

    async def on_commit(self, record: TaskRecord, events: Sequence[TaskEvent]) -> None:
        """Queue a notification per config and qualifying event of a write."""
        wanted = [event for event in events if self.qualifies(event.payload)]
        if not wanted:
            return
        configs = await self.store.list_push_configs(record.task_id)
        if not configs:
            return
        task = snapshot(record.task)
        created = now_ms()
        for stored in configs:
            config_id = config_id_of(stored)
            for event in wanted:
                await self.enqueue(record.task_id, config_id, event.seq, task, created)

    async def reschedule(self, record: TaskRecord) -> None:
        """Queue again every qualifying notification not yet delivered or dead-lettered (the
        Task sent is the current one: the snapshot of the original write is gone)."""
        configs = await self.store.list_push_configs(record.task_id)
        if not configs:
            return
        lowers = {config_id_of(s): record.push_cursor(config_id_of(s)).lower for s in configs}
        start = min(lowers.values())
        if start >= record.last_seq:
            return
        events = await self.store.read_events(record.task_id, start)
        task = snapshot(record.task)
        created = now_ms()
        for config_id, lower in lowers.items():
            for event in events:
                if event.seq > lower and self.qualifies(event.payload):
                    await self.enqueue(record.task_id, config_id, event.seq, task, created)

    async def requeue(
        self, record: TaskRecord, config_id: str, seqs: Sequence[int], created_s: float
    ) -> None:
        """Queue again the notifications of `seqs` (the head of the line first), presumed lost
        (the notifier has marked the head requeued in its cursor)."""
        task = snapshot(record.task)
        for seq in seqs:
            await self.enqueue(record.task_id, config_id, seq, task, int(created_s * 1000))

    async def enqueue(
        self,
        task_id: str,
        config_id: str,
        seq: int,
        task: dict[str, Any] | None,
        created_ms: int,
    ) -> None:
        nid = notification_id(task_id, config_id, seq)
        payload = Notification(nid, config_id, seq, task, first_attempt_at=created_ms)
        await self.queue.enqueue(WebhookJob(task_id=task_id, payload=payload, id=nid))


def now_ms() -> int:
    return time.time_ns() // 1_000_000
