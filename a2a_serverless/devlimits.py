"""Dev mode: the cloud stores' limits met on a laptop, as a warning.

The embedded stores (SQLite, memory) keep a task of any size in one row, while DynamoDB keeps
at most 400 KB in an item and Firestore 1 MiB in a document: a task that works in dev can fail
deployed. The cloud stores keep parts whose JSON is larger than the offload threshold (16 KB,
store/content.py) in their content bucket, when they have one (`content=s3://...`,
`content=gs://...`), and the rest of the task in the item. `CloudLimitWarnings` is a commit
hook of the journal, installed by the Runtime in dev mode only: after a write it looks at the
task, and the first time the task has a part over the threshold, or is larger than DynamoDB's
item, it logs one warning for that task naming the figures and the limits, and what a
deployment needs. Never again for that task: a turn of a thousand chunks warns once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

from . import codec
from .models import Part, Task
from .store.base import TaskEvent, TaskRecord
from .store.content import DEFAULT_THRESHOLD

log = logging.getLogger("a2a_serverless.devlimits")

# The cloud stores' limits (the adapters' own constants: the core imports no adapter).
DYNAMODB_ITEM_BYTES = 400 * 1024
FIRESTORE_DOCUMENT_BYTES = 1_048_576
# What a reference to offloaded content takes in the item, about.
_REFERENCE_BYTES = 160
# Tasks already warned about, kept while there are fewer than this (a dev server's lifetime).
_MAX_WARNED = 100_000


class CloudLimitWarnings:
    """Warns once per task that outgrows what a cloud store keeps inline (module docstring)."""

    def __init__(self, threshold: int = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold
        self._warned: set[str] = set()

    async def on_commit(self, record: TaskRecord, logged: Sequence[TaskEvent]) -> None:
        if record.task_id in self._warned:
            return
        warning = self.check(record.task)
        if warning is None:
            return
        if len(self._warned) < _MAX_WARNED:
            self._warned.add(record.task_id)
        log.warning("%s", warning)

    def check(self, task: Task) -> str | None:
        """The warning `task` deserves, or None if a cloud store keeps it inline as it is."""
        sizes = [len(codec.encode(part)) for part in _parts(task)]
        large = [size for size in sizes if size > self.threshold]
        total = len(codec.encode(task))
        if not large and total <= DYNAMODB_ITEM_BYTES:
            return None
        rest = total - sum(large) + _REFERENCE_BYTES * len(large)
        said = [f"task {task.id} is {total} bytes of JSON"]
        if large:
            said.append(
                f"{len(large)} of its parts are larger than the {self.threshold} bytes a cloud "
                f"store keeps in the task's item (the largest: {max(large)} bytes): deployed, "
                "they need the store's content bucket (dynamodb://...&content=s3://<bucket>, "
                "firestore://...?content=gs://<bucket>)"
            )
        if total > DYNAMODB_ITEM_BYTES:
            over = f"DynamoDB's {DYNAMODB_ITEM_BYTES}-byte item"
            if total > FIRESTORE_DOCUMENT_BYTES:
                over += f" and Firestore's {FIRESTORE_DOCUMENT_BYTES}-byte document"
            said.append(f"without a bucket it would not fit in {over}")
        if rest > DYNAMODB_ITEM_BYTES:
            said.append(
                f"even with one, the {rest} bytes left in the item are over DynamoDB's "
                f"{DYNAMODB_ITEM_BYTES} (its JSON is stored compressed, which may still fit)"
                + (
                    f" and Firestore's {FIRESTORE_DOCUMENT_BYTES}"
                    if rest > FIRESTORE_DOCUMENT_BYTES
                    else ""
                )
                + ": keep fewer, smaller messages in one task"
            )
        return "; ".join(said) + " (dev mode: the embedded store takes it whole)"


def _parts(task: Task) -> Iterator[Part]:
    if task.status.message is not None:
        yield from task.status.message.parts
    for message in task.history or ():
        yield from message.parts
    for artifact in task.artifacts or ():
        yield from artifact.parts
