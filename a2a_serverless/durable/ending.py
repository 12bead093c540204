"""Our task ended with durable calls pending: queue the check that cancels their remote tasks.

The journal's commit hook of durable calls. It needs only the queue and the settings, so the
Runtime builds it before the journal and hands it over with the other hooks (no hook is added
to a journal already made). It looks at every commit but costs nothing for a task that never
made a durable call: the session's module (whose `check_job` it uses) is imported only for a
task that ended with calls pending. The check (resume.py) asks each remote agent to cancel its
task and marks the calls canceled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from ..journal import now_ms
from ..models import TaskStatusUpdateEvent
from ..queue.base import DurableCheckJob
from ..store.bookkeeping import durable_of

if TYPE_CHECKING:
    from ..config import Settings
    from ..queue.base import Queue
    from ..store.base import TaskEvent, TaskRecord


class RemoteCancels:
    def __init__(self, queue: Queue, settings: Settings) -> None:
        self.queue = queue
        self.settings = settings

    async def on_commit(self, record: TaskRecord, events: Sequence[TaskEvent]) -> None:
        """The journal's commit hook: our task just ended with calls pending: queue a check
        due now (which cancels their remote tasks)."""
        if not record.task.status.state.is_terminal:
            return
        if not any(
            isinstance(e.payload, TaskStatusUpdateEvent) and e.payload.status.state.is_terminal
            for e in events
        ):
            return
        turn = durable_of(record.internal)
        if turn is None or not turn.pending_calls():
            return
        from .session import check_job

        job = check_job(record.task_id, turn, self.settings, self.settings.durable_poll_initial_s)
        now_job = DurableCheckJob(
            task_id=record.task_id,
            payload=msgspec.structs.replace(job.payload, due_at_ms=now_ms()),
        )
        await self.queue.enqueue(now_job)
