"""A turn ended leaving remote tasks behind: queue the check that cancels them.

The journal's commit hook of durable calls, and the one rule of what an ended turn leaves
behind (`left_behind`, which the check in resume.py applies again to a turn it finds over). A
turn ends when our task becomes terminal (completed, failed, canceled, rejected) or interrupted
(input-required, auth-required: the next turn is a new message). A call still pending is left
behind by every end (no later turn can learn its task: the call never returned). A remote task
that asked a question is not: the agent had its answer, and the next turn can answer it
(`task_id=`); only our task's own end leaves it behind.

The hook needs only the queue and the settings, so the Runtime builds it before the journal and
hands it over with the other hooks (no hook is added to a journal already made). It looks at
every commit but costs nothing for a task that never made a durable call. The check it queues
(resume.py) asks each remote agent to cancel its task and marks the calls canceled.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any

from ..journal import now_ms
from ..models import Task, TaskStatusUpdateEvent
from ..queue.base import DurableCheck, DurableCheckJob, RemoteTaskRef
from ..store import legacy
from ..store.bookkeeping import DurableOp, DurableTurn, durable_of

if TYPE_CHECKING:
    from ..config import Settings
    from ..queue.base import Queue
    from ..store.base import TaskEvent, TaskRecord


class RemoteCancels:
    def __init__(self, queue: Queue, settings: Settings) -> None:
        self.queue = queue
        self.settings = settings

    def on_commit(self, record: TaskRecord, events: Sequence[TaskEvent]) -> Awaitable[None] | None:
        """The journal's commit hook: a turn just ended (a terminal or interrupted status was
        committed and the durable turn is over) leaving remote tasks behind: queue a check, due
        now, naming them, which cancels them (the queuing returned, for the journal to await).
        None for every other commit, nearly all of them: no coroutine made for those."""
        for event in events:  # a loop here, not a call: asked on every commit
            payload = event.payload
            if isinstance(payload, TaskStatusUpdateEvent) and payload.status.state.ends_stream:
                break
        else:
            return None  # no turn ended
        turn = durable_of(record.internal)
        if turn is None or not turn_over(record, turn):
            return None
        targets = left_behind(record, turn)
        if not targets:
            return None
        check = DurableCheck(
            turn=turn.step,
            generation=turn.generation,
            due_at_ms=now_ms(),
            poll_s=self.settings.durable_poll_initial_s,
            cancel=tuple(targets),
        )
        return self.queue.enqueue(DurableCheckJob(task_id=record.task_id, payload=check))


def turn_over(record: TaskRecord, turn: DurableTurn) -> bool:
    """Whether `turn` has ended: our task is terminal, the turn's end is written, or a newer
    turn has begun."""
    return (
        record.task.status.state.is_terminal
        or record.turn_done == turn.step
        or record.step != turn.step
    )


def left_behind(record: TaskRecord, turn: DurableTurn) -> list[RemoteTaskRef]:
    """The remote tasks of `turn`, which is over, that nobody will come back for: every call
    still pending (the agent never had its task id, so no later turn can reach it) and, once
    our task itself has ended, every remote task whose last answer in the turn asked a question
    (a later turn could have answered it; none will come)."""
    found = turn.pending_calls()
    if record.task.status.state.is_terminal:
        last: dict[str, tuple[int, DurableOp]] = {}
        for position, op in sorted((int(p), op) for p, op in turn.ops.items()):
            if op.kind == "call" and op.remote_task_id:
                last[op.remote_task_id] = (position, op)
        found += [(p, op) for p, op in last.values() if op.state == "done" and _asked(op)]
    return [
        RemoteTaskRef(position=p, remote=op.remote or "", task_id=op.remote_task_id or "")
        for p, op in sorted(found)
        if op.remote and op.remote_task_id
    ]


def _asked(op: DurableOp) -> bool:
    """Whether a finished call's recorded outcome is a remote task asking for input."""
    if op.result is None:
        return False
    data: Any = json.loads(op.result)
    if not isinstance(data, dict) or "messageId" in data:  # a direct reply (a Message)
        return False
    return Task.model_validate(legacy.task(data)).status.state.is_interrupted
