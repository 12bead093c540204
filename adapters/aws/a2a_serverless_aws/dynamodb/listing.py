"""`tasks/list` on the table: a Query of a listing index, then the page's records by key.

Without a contextId, the `by_owner` index (partition: owner) holds one small entry per task,
sorted by `order_key` = zero-padded updated_at_ms + "#" + task id, so a descending Query walks
tasks newest update first with ties broken by task id, as the Store protocol orders them. The
page cursor and `updated_after_ms` are bounds on that sort key; the state and expiry filters are
FilterExpressions on the entries (DynamoDB reads, and bills, the entries they drop: a rare state
among many tasks costs reads). A page costs one Query (limit + 1 entries: the extra one says
whether there is a next page) and one BatchGetItem of the page's records (consistent reads).
`total_size` is free on a last page reached without a cursor (it is the page's length);
otherwise it is a Select=COUNT Query over the same entries, one request per 1 MB of entries
(about 10,000 tasks, as entries are small). Entries are eventually consistent; a record whose
entry is stale (it changed after the entry was read) is left out of the page and shows up at its
new position.

With a contextId, the `by_context_tasks` index (partition: owner and context, keys only) names
every task of the context in no particular order: its entries never move, which is what makes
task writes cheap (models.ByContextIndex). The listing reads them all (one Query per 1 MB of
entries), fetches the records (one BatchGetItem per 100), then filters, sorts and pages them
here: a context's listing costs a read per task of the context, whatever the page size. A2A
contexts are conversations, with a handful of tasks each; a context of thousands of tasks would
make every listing of it read them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pynamodb.expressions.condition import Condition

from a2a_serverless.store.base import TaskPage, TaskQuery, TaskRecord, record_from_json

from . import codec
from .models import TableItem

# BatchGetItem takes at most 100 keys.
BATCH_GET_KEYS = 100


def list_tasks(items: type[TableItem], query: TaskQuery, now_ms: int) -> TaskPage:
    after_ms = query.updated_after_ms
    if not query.owner or (after_ms is not None and after_ms > codec.MAX_TIME_MS):
        # No task has an empty owner (DynamoDB keys cannot be empty) or such an update time.
        return TaskPage(records=[], total_size=0, has_more=False)
    limit = max(query.limit, 0)
    if query.context_id is not None:
        return _list_context(items, query, query.context_id, limit, now_ms)
    index: Any = items.by_owner
    partition = query.owner
    lower = codec.time_prefix(after_ms) if after_ms is not None and after_ms > 0 else None
    filters = _filters(items, query, now_ms)

    records: list[TaskRecord] = []
    has_more = False
    cursor = _cursor(query.after)
    if cursor != _BEFORE_EVERYTHING and (cursor is None or lower is None or cursor > lower):
        entries: Iterator[TableItem] = iter(
            index.query(
                partition,
                range_key_condition=_range(items, lower, cursor),
                filter_condition=filters,
                scan_index_forward=False,
                page_size=limit + 1,
            )
        )
        records, has_more = _fill(items, entries, query, limit, cursor, now_ms)

    if query.after is None and not has_more:
        total = len(records)
    else:
        total = index.count(
            partition,
            range_key_condition=None if lower is None else items.order_key >= lower,
            filter_condition=filters,
        )
    return TaskPage(records=records, total_size=total, has_more=has_more)


def _list_context(
    items: type[TableItem], query: TaskQuery, context_id: str, limit: int, now_ms: int
) -> TaskPage:
    """One page of a context's tasks: all its entries and records, sorted and paged here."""
    partition = codec.owner_context(query.owner, context_id)
    keys = [entry.pk for entry in items.by_context.query(partition)]
    after_ms = query.updated_after_ms
    matching = []
    for item in _batch_get(items, keys).values():
        if item.body is None:
            continue
        record = record_from_json(codec.unpack(item.body))
        if _matches(record, query, now_ms) and (
            after_ms is None or record.updated_at_ms >= after_ms
        ):
            matching.append(record)
    matching.sort(key=lambda r: (r.updated_at_ms, r.task_id), reverse=True)
    after = query.after
    rest = (
        matching if after is None else [r for r in matching if (r.updated_at_ms, r.task_id) < after]
    )
    return TaskPage(records=rest[:limit], total_size=len(matching), has_more=len(rest) > limit)


# A cursor no entry lies after (its time is negative): the page is empty.
_BEFORE_EVERYTHING = ""


def _cursor(after: tuple[int, str] | None) -> str | None:
    """The cursor as a sort key bound; None when it bounds nothing (no cursor, or later than
    every entry can be). Cursors come from clients' page tokens, so any int must do."""
    if after is None or after[0] > codec.MAX_TIME_MS:
        return None
    if after[0] < 0:
        return _BEFORE_EVERYTHING
    return codec.order_key(*after)


def _range(items: type[TableItem], lower: str | None, cursor: str | None) -> Condition | None:
    if lower is not None and cursor is not None:
        # BETWEEN includes the cursor's own entry; _fill skips it.
        return items.order_key.between(lower, cursor)
    if cursor is not None:
        return items.order_key < cursor
    if lower is not None:
        return items.order_key >= lower
    return None


def _filters(items: type[TableItem], query: TaskQuery, now_ms: int) -> Condition:
    condition: Condition = items.expires_ms.does_not_exist() | (items.expires_ms > now_ms)
    if query.state is not None:
        condition &= items.state == query.state
    return condition


def _fill(
    items: type[TableItem],
    entries: Iterator[TableItem],
    query: TaskQuery,
    limit: int,
    cursor: str | None,
    now_ms: int,
) -> tuple[list[TaskRecord], bool]:
    """Up to `limit` current records from the entries, and whether any entry is left after."""
    records: list[TaskRecord] = []
    candidates: list[TableItem] = []
    for entry in entries:
        if entry.order_key == cursor:
            continue
        if len(records) + len(candidates) < limit:
            candidates.append(entry)
            continue
        # `entry` lies past a full page of candidates: if they all still hold, it proves a
        # next page; if some changed since their entries were read, it is a candidate too.
        records += _fetch(items, candidates, query, now_ms)
        if len(records) == limit:
            return records, True
        candidates = [entry]
    records += _fetch(items, candidates, query, now_ms)
    return records, False


def _fetch(
    items: type[TableItem], entries: list[TableItem], query: TaskQuery, now_ms: int
) -> list[TaskRecord]:
    """The records of `entries`, in their order, leaving out those that changed since."""
    if not entries:
        return []
    found = _batch_get(items, [entry.pk for entry in entries])
    records = []
    for entry in entries:
        item = found.get(entry.pk)
        if item is None or item.order_key != entry.order_key or item.body is None:
            continue
        record = record_from_json(codec.unpack(item.body))
        if _matches(record, query, now_ms):
            records.append(record)
    return records


def _batch_get(items: type[TableItem], pks: list[str]) -> dict[str, TableItem]:
    """The task items of these partition keys (consistent reads), by partition key."""
    found: dict[str, TableItem] = {}
    for start in range(0, len(pks), BATCH_GET_KEYS):
        keys = [(pk, codec.TASK_SK) for pk in pks[start : start + BATCH_GET_KEYS]]
        for got in items.batch_get(keys, consistent_read=True):
            found[got.pk] = got
    return found


def _matches(record: TaskRecord, query: TaskQuery, now_ms: int) -> bool:
    return (
        record.owner == query.owner
        and (query.context_id is None or record.context_id == query.context_id)
        and (query.state is None or record.state == query.state)
        and (record.expires_at_ms is None or record.expires_at_ms > now_ms)
    )
