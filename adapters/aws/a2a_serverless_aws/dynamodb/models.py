"""The pynamodb model of the store's one DynamoDB table, and how a store binds it to a table.

Every item of the table is a `TableItem`; its `kind` says which of five shapes it has (see
adapters/aws/README.md, "DynamoDB store", for the whole design):

=========== ======================= ================= ========================================
kind        PK                      SK                other attributes
=========== ======================= ================= ========================================
task        ``T#<task id>``         ``T``             body, events, events_bytes, owner,
                                                      owner_ctx, order_key, state, version,
                                                      last_seq, keys, expires_ms, ttl, swept,
                                                      letters
event       ``T#<task id>``         ``E#<seq:010d>``  body, ttl
push        ``T#<task id>``         ``P#<config id>`` body, ttl
key         ``K#<idempotency key>`` ``K``             task_id, created_ms, expires_ms, ttl
reply       ``K#<idempotency key>`` ``K``             body, created_ms, expires_ms, ttl
=========== ======================= ================= ========================================

pynamodb ties a model class to one table through its `Meta`, so `bind()` makes one subclass per
(table, region, endpoint) and keeps it for the life of the process: its connection, and the
botocore client inside it, are created once and shared by every store on that table (a Lambda
container reuses them across invocations).
"""

from __future__ import annotations

import threading
from typing import Any, cast

from pynamodb.attributes import (
    Attribute,
    BinaryAttribute,
    ListAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
)
from pynamodb.constants import NUMBER, PAY_PER_REQUEST_BILLING_MODE, STRING
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection, KeysOnlyProjection
from pynamodb.models import Model

BY_OWNER = "by_owner"
# Tables made by 0.1.0 have `by_context` (owner_ctx, order_key) instead, which every visible
# write moved each task in; nothing reads it any more (CHANGELOG.md says how to replace it).
BY_CONTEXT = "by_context_tasks"
TTL_ATTRIBUTE = "ttl"
# What `by_owner` carries besides its keys: what `list_tasks` filters on. The records themselves
# are fetched from the table, so the index stays small (cheap to count) and only changes when a
# task's listing position, state or expiry does.
INDEX_PROJECTION = ["state", "expires_ms"]


class IntegerAttribute(Attribute[int]):
    """A Number holding an int (pynamodb's NumberAttribute reads as float for type checkers)."""

    attr_type = NUMBER

    def serialize(self, value: int) -> str:
        return str(int(value))

    def deserialize(self, value: str) -> int:
        return int(value)


class OptionalIntegerAttribute(Attribute[int | None]):
    """An int that items of some kinds do not have."""

    attr_type = NUMBER
    null = True

    def serialize(self, value: int | None) -> str | None:
        return None if value is None else str(int(value))

    def deserialize(self, value: str) -> int:
        return int(value)


class OptionalUnicodeAttribute(Attribute[str | None]):
    """A string that items of some kinds do not have."""

    attr_type = STRING
    null = True

    def serialize(self, value: str | None) -> str | None:
        return value

    def deserialize(self, value: str) -> str:
        return value


class OptionalBinaryAttribute(BinaryAttribute):
    """Bytes that key items do not have."""

    null = True


class ByOwnerIndex(GlobalSecondaryIndex["TableItem"]):  # type: ignore[no-untyped-call]
    """Task items of one owner, ordered by (updated_at_ms, task id): `tasks/list`."""

    class Meta:
        index_name = BY_OWNER
        projection = IncludeProjection(INDEX_PROJECTION)

    owner = UnicodeAttribute(hash_key=True)
    order_key = UnicodeAttribute(range_key=True)


class ByContextIndex(GlobalSecondaryIndex["TableItem"]):  # type: ignore[no-untyped-call]
    """The task items of one owner in one context, keys only: `tasks/list` with a contextId.

    Its key never changes after a task is created (a task keeps its owner and context), so
    DynamoDB writes an entry once per task, where an index sorted by update time would move the
    entry on every visible write. The listing sorts a context's tasks itself (listing.py).
    """

    class Meta:
        index_name = BY_CONTEXT
        projection = KeysOnlyProjection()

    owner_ctx = UnicodeAttribute(hash_key=True)


class TableItem(Model):
    """One item of the store's table. Use `bind()` for a class tied to a real table."""

    class Meta:
        table_name = "a2a-serverless-unbound"
        billing_mode = PAY_PER_REQUEST_BILLING_MODE

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    sk = UnicodeAttribute(range_key=True, attr_name="SK")
    kind = UnicodeAttribute()
    # The stored JSON shape (store.base), zlib-compressed: task, event, push and reply items.
    body = OptionalBinaryAttribute(legacy_encoding=False)

    # Task items: the newest events of the log, each compressed as `body` is: the events
    # `last_seq - len(events) + 1 .. last_seq` (older ones are event items), and their size, which
    # a write's condition checks before appending more (writes.py, "Inline events").
    events = ListAttribute[bytes](of=BinaryAttribute, null=True)  # type: ignore[arg-type]
    events_bytes = OptionalIntegerAttribute()

    # Task items: the columns the listing indexes and the conditional writes need.
    owner = OptionalUnicodeAttribute()
    owner_ctx = OptionalUnicodeAttribute()
    order_key = OptionalUnicodeAttribute()
    state = OptionalUnicodeAttribute()
    version = OptionalIntegerAttribute()
    last_seq = OptionalIntegerAttribute()
    # The idempotency keys claimed with writes of this task, so they can expire with it.
    idempotency_keys = UnicodeSetAttribute(null=True, attr_name="keys")
    # The `ttl` the earlier items of the task were stamped with (see sweep.py).
    swept = OptionalIntegerAttribute()
    # How many dead letters the record holds (0 too), so the operator's dead-letter scan
    # (deadletters.py) can filter on it; task items written before it existed lack it.
    letters = OptionalIntegerAttribute()

    # Task and key items: when the item stops being visible (ms) and when DynamoDB may delete
    # it (epoch seconds, the table's TTL attribute; events and push configs carry it too).
    expires_ms = OptionalIntegerAttribute()
    ttl = OptionalIntegerAttribute(attr_name=TTL_ATTRIBUTE)

    # Key items (reply items, which hold a key for a direct reply, have no task_id).
    task_id = OptionalUnicodeAttribute()
    created_ms = OptionalIntegerAttribute()

    by_owner = ByOwnerIndex()
    by_context = ByContextIndex()


_bound: dict[tuple[str, str | None, str | None], type[TableItem]] = {}
_bind_lock = threading.Lock()


def bind(table_name: str, *, region: str | None, host: str | None) -> type[TableItem]:
    """The `TableItem` class of one table, created once per process and then reused."""
    key = (table_name, region, host)
    with _bind_lock:
        bound = _bound.get(key)
        if bound is None:
            meta: dict[str, Any] = {
                "table_name": table_name,
                "region": region,
                "host": host,
                "billing_mode": PAY_PER_REQUEST_BILLING_MODE,
            }
            namespace = {"Meta": type("Meta", (), meta), "__module__": __name__}
            bound = cast(type[TableItem], type(f"TableItem_{table_name}", (TableItem,), namespace))
            # Create the connection and its botocore client now, under the lock: one client per
            # process and table, built during a Lambda's init phase rather than its first request.
            _ = bound._get_connection().connection.client
            _bound[key] = bound
    return bound
