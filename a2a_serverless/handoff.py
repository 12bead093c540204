"""The record a turn begins with, handed from the write that began it to the worker that claims
it, within one process: the worker then claims the turn without reading the task first.

Used with a queue that runs each job in the process that queued it, at once (the in-process
queue: `queue.base.RunsJobsWhereQueued`; the Runtime wires it then, and only then): the service
creates the task (or adds the message that begins a turn) and queues the turn, and the worker
claims it a moment later in the same process. The journal puts the record of each commit that
begins a turn here (`Journal(handoff=...)`); the worker takes it for its claim
(`Journal.write(record=...)`). Nothing of it leaves the process: the job's JSON is the same.

A handed-off record may be stale (another process wrote the task since): the claim's write is
conditional on its version, so a stale one is a `VersionConflict`, which the journal answers by
reading the task and deciding again. Only a record of the job's own turn is handed over, and a
claim that decides not to write on it decides again on a read (worker.py): a refusal is never
made on a record that may be stale.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .store.base import TaskRecord

# Records kept at most: turns begun and not yet claimed in this process (the in-process queue
# runs 32 at once by default; one waiting longer than this many new turns is read, as before).
HANDOFF_CAPACITY = 32


class TurnHandoff:
    def __init__(self, capacity: int = HANDOFF_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("a turn handoff keeps at least one record (capacity >= 1)")
        self._capacity = capacity
        self._records: OrderedDict[str, TaskRecord] = OrderedDict()

    def put(self, record: TaskRecord) -> None:
        """`record` was committed and begins a turn (the journal, after the commit)."""
        self._records[record.task_id] = record
        self._records.move_to_end(record.task_id)
        if len(self._records) > self._capacity:
            self._records.popitem(last=False)

    def take(self, task_id: str, step: str) -> TaskRecord | None:
        """The record that began turn `step` of `task_id`, once; None if there is none (begun
        elsewhere, taken already, dropped for room, or a record of another turn)."""
        record = self._records.get(task_id)
        if record is None or record.step != step:
            return None
        del self._records[task_id]
        return record
