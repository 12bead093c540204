"""`DeadLetterScan` on the DynamoDB table: every owner's tasks holding dead letters, by task id.

For the operator's `dead-letters list|redrive --all-owners` (a2a_serverless/ops.py), run
rarely; the running store never calls it, and the table has no index for it. Two steps:

1. One paginated **Scan** of the table that returns only the keys of the task items that may
   hold dead letters: the FilterExpression keeps task items whose `letters` (the count every
   task write stores, writes.py) is above 0, or that have no `letters` at all (written before
   the attribute existed: their body decides), and that have not expired. DynamoDB bills a
   Scan for every item it reads, filtered out or not: the whole table (task, event, push and
   key items), 0.5 read units per 4 KB read (eventually consistent). What crosses the network
   is one key per candidate.
2. The candidates after `after`, sorted by task id (a Scan is unordered, so the whole table is
   scanned for each page), are read in that order with consistent BatchGetItems of 100 keys,
   their bodies decoded and kept if they hold dead letters, until `limit` are found: a page
   reads the bodies of its own records, of the older items (no `letters`) without dead letters
   among them, and at most 99 more (the rest of its last batch).

So a page costs one full Scan plus the reads of about `limit` + (older items in its range)
task items; the operator command's pages are 100 records. A sparse index (`letters` only when
above 0) would spare the Scan, at the price of a table change (and of the older items, which it
would miss).
"""

from __future__ import annotations

from typing import Any

from a2a_serverless.store.base import TaskRecord, record_from_json
from a2a_serverless.store.bookkeeping import DEAD_LETTERS_KEY

from . import codec
from .models import TableItem

# Items per Scan request before filtering (DynamoDB stops at 1 MB read anyway).
SCAN_PAGE_ITEMS = 1000
# Keys per BatchGetItem request: DynamoDB's limit.
BATCH_GET_KEYS = 100


def scan_dead_letters(
    items: type[TableItem], after: str | None, limit: int, now_ms: int
) -> list[TaskRecord]:
    """Up to `limit` visible records with at least one dead letter, in task id order after
    `after` (synchronous: the store runs it in a thread)."""
    if limit <= 0:
        return []
    candidates = sorted(
        task_id for task_id in _candidates(items, now_ms) if after is None or task_id > after
    )
    found: list[TaskRecord] = []
    start = 0
    while start < len(candidates) and len(found) < limit:
        chunk = candidates[start : start + BATCH_GET_KEYS]
        start += len(chunk)
        records = _records(items, chunk, now_ms)
        found += [records[task_id] for task_id in chunk if task_id in records]
    return found[:limit]


def _candidates(items: type[TableItem], now_ms: int) -> list[str]:
    """The task ids of the task items that may hold dead letters (step 1)."""
    may_hold = (items.letters > 0) | items.letters.does_not_exist()
    visible = items.expires_ms.does_not_exist() | (items.expires_ms > now_ms)
    condition = (items.kind == "task") & (items.sk == codec.TASK_SK) & may_hold & visible
    scanned = items.scan(
        filter_condition=condition,
        attributes_to_get=[items.pk.attr_name],
        page_size=SCAN_PAGE_ITEMS,
    )
    return [item.pk[len(codec.TASK_PREFIX) :] for item in scanned]


def _records(items: type[TableItem], task_ids: list[str], now_ms: int) -> dict[str, TaskRecord]:
    """Those of the tasks that are visible and hold dead letters, by task id (consistent
    reads: the Scan may be a little behind, and a redrive acts on what this returns)."""
    keys = [(codec.task_pk(task_id), codec.TASK_SK) for task_id in task_ids]
    found: dict[str, TaskRecord] = {}
    for item in items.batch_get(keys, consistent_read=True):
        if item.body is None:
            continue
        record = record_from_json(codec.unpack(item.body))
        if record.expires_at_ms is not None and record.expires_at_ms <= now_ms:
            continue
        if _holds_letters(record.internal):
            found[record.task_id] = record
    return found


def _holds_letters(internal: dict[str, Any]) -> bool:
    return bool(internal.get(DEAD_LETTERS_KEY))
