"""The Store protocol on one DynamoDB table, through pynamodb.

pynamodb is synchronous: every method runs its DynamoDB calls in a worker thread
(`asyncio.to_thread`), so the event loop keeps serving while a request is in flight. The model
class, its connection and the botocore client behind it are made once per process and table
(models.bind) and shared by every store and thread; botocore clients are thread-safe.

Reads of one item or one task's partition are strongly consistent, so a writer always decides on
the latest version and a reader sees every event already written. `list_tasks` reads a global
secondary index, which DynamoDB keeps eventually consistent (typically well under a second).
What each method sends is in adapters/aws/README.md ("DynamoDB store").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from pynamodb.exceptions import DeleteError, PynamoDBException

from a2a_serverless.store.base import (
    StoredPushConfig,
    StoredReply,
    TaskEvent,
    TaskPage,
    TaskQuery,
    TaskRecord,
    event_from_json,
    push_config_from_json,
    push_config_to_json,
    record_from_json,
    reply_from_json,
)
from a2a_serverless.store.content import (
    DEFAULT_SWEEP_AGE_S,
    DEFAULT_THRESHOLD,
    ContentStore,
    Offloader,
)

from . import codec
from .deadletters import scan_dead_letters
from .errors import MAX_ITEM_BYTES, DynamoDBUnavailable, ItemTooLarge, cause_code, cause_message
from .listing import list_tasks
from .models import TableItem, bind
from .url import check_table_name
from .writes import Writer

_T = TypeVar("_T")


# The DynamoDB operations the store sends (their models are built on first use).
OPERATIONS = (
    "BatchGetItem",
    "BatchWriteItem",
    "DeleteItem",
    "GetItem",
    "PutItem",
    "Query",
    "TransactWriteItems",
    "UpdateItem",
)
# A key no item has (task and key items start with T# and K#): what `prime` reads.
PRIMING_KEY = "#prime"


def _wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class DynamoDBStore:
    """The Store protocol on the DynamoDB table `table_name` (see `create_table` for its schema).

    `region` and `endpoint_url` default to botocore's own configuration (AWS_REGION,
    AWS_ENDPOINT_URL_DYNAMODB, ...); credentials always come from botocore's usual chain.
    `clock` (milliseconds) decides which tasks have expired. With `content` (an
    `S3ContentStore`), parts larger than `offload_threshold` bytes of JSON are kept there and
    referenced from the items (a2a_serverless.store.content); without it every part is inline
    and a task item is bounded by DynamoDB's 400 KB.
    """

    # Its name in spans (db.system.name, a2a_serverless/tracing.py).
    db_system = "aws.dynamodb"

    def __init__(
        self,
        table_name: str,
        *,
        region: str | None = None,
        endpoint_url: str | None = None,
        clock: Callable[[], int] = _wall_clock_ms,
        content: ContentStore | None = None,
        offload_threshold: int = DEFAULT_THRESHOLD,
    ) -> None:
        check_table_name(table_name)
        self.table_name = table_name
        self.db_collection = table_name  # db.collection.name in spans
        self.region = region
        self.endpoint_url = endpoint_url
        self._clock = clock
        self._items = bind(table_name, region=region, host=endpoint_url)
        self._writer = Writer(self._items, clock)
        self.offloader = (
            None if content is None else Offloader(content, threshold=offload_threshold)
        )

    def __repr__(self) -> str:
        return f"DynamoDBStore({self.table_name!r}, region={self.region!r})"

    @property
    def item_class(self) -> type[TableItem]:
        """The pynamodb model bound to this store's table."""
        return self._items

    @property
    def client(self) -> Any:
        """The botocore client every request goes through (shared per process and table): the
        place to register botocore event hooks, e.g. for metrics or tracing."""
        return self._items._get_connection().connection.client

    def prime(self) -> None:
        """Pay now what the first request would (a2a_serverless_aws.priming): the operations'
        models, then one GetItem of a key no item has (eventually consistent: half a read unit)
        for the endpoint, the credentials, the request signer and the HTTPS connection."""
        model = self.client.meta.service_model
        for operation in OPERATIONS:
            model.operation_model(operation)
        self._get(PRIMING_KEY, PRIMING_KEY, consistent=False, attributes=["PK"])

    def drop_connections(self) -> None:
        """Close the client's pooled connections; the next request opens a new one. Before a
        SnapStart snapshot (a2a_serverless_aws.snapstart): a restored copy must not share, or
        inherit half-open, the TCP and TLS state of the one snapshotted."""
        self.client.close()

    async def _run(self, call: Callable[[], _T]) -> _T:
        try:
            return await asyncio.to_thread(call)
        except PynamoDBException as error:
            code = cause_code(error) or type(error).__name__
            detail = cause_message(error) or str(error)
            raise DynamoDBUnavailable(
                f"DynamoDB table {self.table_name!r}: {code}: {detail}"
            ) from error

    # --- tasks ----------------------------------------------------------------------------------

    async def create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
        free_key: str | None = None,
    ) -> None:
        async def write(record: TaskRecord, events: list[TaskEvent]) -> None:
            await self._run(
                partial(self._writer.create_task, record, events, idempotency_key, free_key)
            )

        if self.offloader is None:
            await write(record, list(events))
        else:
            await self.offloader.write(record, events, write)

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        async def write(record: TaskRecord, events: list[TaskEvent]) -> None:
            await self._run(partial(self._writer.update_task, record, events, idempotency_key))

        if self.offloader is None:
            await write(record, list(events))
        else:
            await self.offloader.write(record, events, write)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        record = await self._run(partial(self._get_task, task_id))
        if record is None or self.offloader is None:
            return record
        return await self.offloader.restore_record(record)

    def _get_task(self, task_id: str) -> TaskRecord | None:
        item = self._get(codec.task_pk(task_id), codec.TASK_SK)
        if item is None or item.body is None:
            return None
        record = record_from_json(codec.unpack(item.body))
        if record.expires_at_ms is not None and record.expires_at_ms <= self._clock():
            return None
        return record

    async def sweep_content(self, older_than_s: float = DEFAULT_SWEEP_AGE_S) -> list[str] | None:
        """Delete the bucket's content of tasks that do not exist, once it is `older_than_s`
        old (`Offloader.sweep`; the `a2a-serverless content sweep` command); the keys
        deleted, None for a store without a content bucket."""
        if self.offloader is None:
            return None

        async def exists(task_id: str) -> bool:
            return await self._run(partial(self._get_task, task_id)) is not None

        return await self.offloader.sweep(exists, older_than_s=older_than_s)

    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        page = await self._run(lambda: list_tasks(self._items, query, self._clock()))
        if self.offloader is None:
            return page
        records = await self.offloader.restore_records(page.records)
        return TaskPage(records=records, total_size=page.total_size, has_more=page.has_more)

    async def scan_dead_letters(self, after: str | None, limit: int) -> list[TaskRecord]:
        """`DeadLetterScan`, for the operator command: one Scan of the whole table per call,
        then reads of the records found (see deadletters.py for what it costs)."""
        records = await self._run(
            partial(scan_dead_letters, self._items, after, limit, self._clock())
        )
        if self.offloader is None:
            return records
        # Large parts live in the content bucket: a redrive's bodies carry them as sent.
        return await self.offloader.restore_records(records)

    # --- events and idempotency keys ------------------------------------------------------------

    async def read_events(
        self, task_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[TaskEvent]:
        if limit is not None and limit <= 0:
            return []
        first = max(after_seq, 0) + 1
        if first > codec.MAX_SEQ:
            return []
        events = await self._run(partial(self._read_events, task_id, first, limit))
        if self.offloader is None:
            return events
        return await self.offloader.restore_events(task_id, events)

    def _read_events(self, task_id: str, first: int, limit: int | None) -> list[TaskEvent]:
        """The log's end is in the task item (`events`), its beginning in event items
        (writes.py, "Inline events"): read the task item first, then the event items only if
        the range asked for starts before its inline events. Both reads are consistent, and
        events only ever move from the task item to event items, so nothing is missed."""
        task = self._get(codec.task_pk(task_id), codec.TASK_SK)
        if task is None or task.last_seq is None:
            # No task item (gone, or expired and deleted first): whatever event items are left.
            return self._query_events(task_id, first, codec.MAX_SEQ, limit)
        inline = task.events or []
        inline_first = task.last_seq - len(inline) + 1
        events = []
        if first < inline_first:
            events = self._query_events(task_id, first, inline_first - 1, limit)
        context_id = codec.context_of(task.owner_ctx) if inline and task.owner_ctx else ""
        for seq, blob in enumerate(inline, start=inline_first):
            if seq >= first and (limit is None or len(events) < limit):
                text = codec.unpack_event(blob, task_id, context_id)
                events.append(event_from_json(seq, text))
        return events

    def _query_events(
        self, task_id: str, first: int, last: int, limit: int | None
    ) -> list[TaskEvent]:
        items = self._items
        found = items.query(
            codec.task_pk(task_id),
            range_key_condition=items.sk.between(codec.event_sk(first), codec.event_sk(last)),
            consistent_read=True,
            limit=limit,
        )
        return [
            event_from_json(codec.seq_of(item.sk), codec.unpack(item.body))
            for item in found
            if item.body is not None
        ]

    async def find_idempotency_key(self, key: str) -> str | None:
        return await self._run(partial(self._find_key, key))

    def _find_key(self, key: str) -> str | None:
        item = self._get(codec.key_pk(key), codec.KEY_SK)
        if item is None:
            return None
        # A key lives as long as its task; past that it is free again (writes.py).
        if item.expires_ms is not None and item.expires_ms <= self._clock():
            return None
        return item.task_id

    # --- direct replies (key items of kind "reply", see writes.py) ------------------------------

    async def put_reply(self, reply: StoredReply) -> None:
        async def write(reply: StoredReply) -> None:
            await self._run(partial(self._writer.put_reply, reply))

        if self.offloader is None:
            await write(reply)
        else:
            await self.offloader.write_reply(reply, write)

    async def find_reply(self, key: str) -> StoredReply | None:
        reply = await self._run(partial(self._find_reply, key))
        if reply is None or self.offloader is None:
            return reply
        return await self.offloader.restore_reply(reply)

    def _find_reply(self, key: str) -> StoredReply | None:
        item = self._get(codec.key_pk(key), codec.KEY_SK)
        if item is None or item.kind != "reply" or item.body is None:
            return None
        if item.expires_ms is not None and item.expires_ms <= self._clock():
            return None
        return reply_from_json(codec.unpack(item.body))

    # --- push notification configs --------------------------------------------------------------

    async def put_push_config(self, config: StoredPushConfig) -> None:
        if config.config.id is None:
            # The key would be ambiguous; the caller assigns ids (A2A's default is the task id).
            raise ValueError("a stored push notification config needs an id")
        await self._run(partial(self._put_push_config, config, config.config.id))

    def _put_push_config(self, config: StoredPushConfig, config_id: str) -> None:
        items = self._items
        pk = codec.task_pk(config.task_id)
        # A config set on a task that already expires gets the task's ttl; one set earlier
        # gets it from the task's sweep (sweep.py).
        task = self._get(pk, codec.TASK_SK, consistent=False, attributes=[items.ttl.attr_name])
        item = items(
            pk,
            codec.push_sk(config_id),
            kind="push",
            body=codec.pack(push_config_to_json(config)),
            ttl=None if task is None else task.ttl,
        )
        size = codec.item_size(item.serialize())
        if size > MAX_ITEM_BYTES:
            raise ItemTooLarge(config.task_id, "push", size)
        item.save()

    async def get_push_config(self, task_id: str, config_id: str) -> StoredPushConfig | None:
        return await self._run(partial(self._get_push_config, task_id, config_id))

    def _get_push_config(self, task_id: str, config_id: str) -> StoredPushConfig | None:
        item = self._get(codec.task_pk(task_id), codec.push_sk(config_id))
        if item is None or item.body is None:
            return None
        return push_config_from_json(codec.unpack(item.body))

    async def list_push_configs(self, task_id: str) -> list[StoredPushConfig]:
        return await self._run(partial(self._list_push_configs, task_id))

    def _list_push_configs(self, task_id: str) -> list[StoredPushConfig]:
        items = self._items
        found = items.query(
            codec.task_pk(task_id),
            range_key_condition=items.sk.startswith(codec.PUSH_PREFIX),
            consistent_read=True,
        )
        # Sort keys order them by config id, as the protocol wants.
        return [push_config_from_json(codec.unpack(item.body)) for item in found if item.body]

    async def delete_push_config(self, task_id: str, config_id: str) -> bool:
        return await self._run(partial(self._delete_push_config, task_id, config_id))

    def _delete_push_config(self, task_id: str, config_id: str) -> bool:
        items = self._items
        try:
            items(codec.task_pk(task_id), codec.push_sk(config_id)).delete(
                condition=items.pk.exists()
            )
        except DeleteError as error:
            if cause_code(error) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    async def close(self) -> None:
        """Nothing to release: the connection is shared by the process (see models.bind)."""

    # --- helpers --------------------------------------------------------------------------------

    def _get(
        self,
        pk: str,
        sk: str,
        *,
        consistent: bool = True,
        attributes: list[str] | None = None,
    ) -> TableItem | None:
        try:
            return self._items.get(pk, sk, consistent_read=consistent, attributes_to_get=attributes)
        except self._items.DoesNotExist:
            return None
