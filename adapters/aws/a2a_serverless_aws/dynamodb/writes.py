"""Task writes: a task, its new events and an idempotency key in one conditional step.

Inline events: a write's events go into the task item itself (`events`, a list of compressed
events: the newest of the log), so a write with events and no key is one conditional
UpdateItem (PutItem on create), which costs half as much as a transaction and writes one item
instead of two. A write that carries a key is one TransactWriteItems call (all or nothing): the
key item and the task item (and event items when the events do not go inline). The task item
is kept small: events join it only while it stays within `INLINE_ITEM_BYTES` and
`MAX_INLINE_EVENTS` (the write's condition checks the stored `events_bytes` and the list's
length). When they would not fit, the stored inline events are first moved out to event items
of their own (`spill`: one transaction, which changes nothing a reader sees), and the write
tries again; events that do not fit even in an empty list are written as event items, in a
transaction with the task, as they all were before inline events existed. Event items always
hold the log's beginning and the task item its end, so the task item says where each event is
(`last_seq`, and how many events it holds). Task items written before inline events existed
have no `events`: all their events are items, and their next write with events starts the list.

Conditions:

- create: the task item must not exist (`TaskAlreadyExists`);
- update: the stored `version` is `record.version - 1` and its `last_seq` is where the new events
  start (`VersionConflict`, or ValueError when only the log does not line up);
- key: the key item must not exist, unless it expired with its task (`IdempotencyKeyTaken`);
- a create's `free_key`: the same condition on that key's item, as a ConditionCheck in the
  create's transaction, which writes nothing to it (`KeyHeld`).

A direct reply (`put_reply`) is a key item of kind "reply" carrying the reply's body instead of
a task id: one conditional PutItem, under the same condition as any claim of the key.

Which condition failed comes from the transaction's cancellation reasons (one per item, in order)
and the item DynamoDB returns with them, so no extra read is needed to tell the cases apart; a
refused single-item write is followed by one consistent read of the task item instead.
When DynamoDB cancels because another transaction held one of the items (TransactionConflict),
the write is retried a few times: the retry then fails or succeeds on its conditions.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec
from pynamodb.attributes import Attribute
from pynamodb.connection import Connection
from pynamodb.exceptions import (
    CancellationReason,
    PutError,
    PynamoDBException,
    TransactWriteError,
    UpdateError,
)
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.condition import size as length
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from a2a_serverless.store.base import (
    IdempotencyKeyTaken,
    KeyHeld,
    StoredReply,
    TaskAlreadyExists,
    TaskEvent,
    TaskRecord,
    VersionConflict,
    check_event_sequence,
    event_to_json,
    record_to_json,
    reply_to_json,
)
from a2a_serverless.store.bookkeeping import DEAD_LETTERS_KEY

from . import codec
from .errors import (
    MAX_ITEM_BYTES,
    MAX_TRANSACTION_BYTES,
    MAX_TRANSACTION_ITEMS,
    DynamoDBUnavailable,
    ItemTooLarge,
    TransactionTooLarge,
    cause_code,
)
from .models import TableItem
from .sweep import sweep_task

CONDITION_FAILED = "ConditionalCheckFailed"
TRANSACTION_CONFLICT = "TransactionConflict"
CONFLICT_ATTEMPTS = 8
# How large a task item may grow with inline events (DynamoDB's size rules, attributes and
# all): up to 4 KB a consistent read of it is one read unit, and an UpdateItem of it costs no
# more write units than a transaction of a smaller task item and one event item.
INLINE_ITEM_BYTES = 4096
# At most this many inline events, so that moving them out takes one transaction.
MAX_INLINE_EVENTS = 25
# A write whose events found no room runs at most this many times (a spill between two).
SPILL_ATTEMPTS = 3
# What the list and its size attribute add to the item beyond the events themselves.
INLINE_OVERHEAD = len("events") + 3 + len("events_bytes") + 10
# Room for the attributes an update keeps on the stored item but does not send (keys, swept,
# inline events).
UPDATE_ALLOWANCE = 2048 + INLINE_ITEM_BYTES

_T = TypeVar("_T")


class _Conflicted(Exception):
    """DynamoDB cancelled a write because a concurrent transaction held one of its items."""


class _NoRoom(Exception):
    """The stored task item has no room for the write's events: spill `stored`, then retry."""

    def __init__(self, stored: TableItem) -> None:
        super().__init__("no room for inline events")
        self.stored = stored


class _Plan(msgspec.Struct, frozen=True):
    """The items of one transactional write, with where each kind sits in the request."""

    puts: list[tuple[TableItem, Condition | None]]
    task_index: int
    key_index: int | None
    # Items only checked (a key's pk, its condition); DynamoDB gets them before the puts.
    checks: list[tuple[str, Condition]] = []


class Writer:
    """Creates and updates tasks in one bound table. Synchronous: the store runs it in a thread."""

    def __init__(self, items: type[TableItem], clock: Callable[[], int]) -> None:
        self._items = items
        self._clock = clock

    @property
    def _connection(self) -> Connection:
        return self._items._get_connection().connection

    # --- create ---------------------------------------------------------------------------------

    def create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent],
        key: str | None,
        free_key: str | None = None,
    ) -> None:
        check_event_sequence(record, 0, events)
        items = self._items
        ttl = codec.ttl_seconds(record.expires_at_ms)
        # Everything a new task has is written here, already carrying its ttl: nothing to sweep.
        task = self._task_item(record, keys={key} if key else None, swept=ttl)
        blobs = _inline(record, events)
        event_items: list[TableItem] = []
        if blobs and self._room(task, blobs) >= 0:
            task.events = blobs
            task.events_bytes = codec.inline_size(blobs)
        else:
            event_items = [self._event_item(record, event, ttl) for event in events]
        not_there = items.pk.does_not_exist()
        if not event_items and key is None and free_key is None:
            self._check_sizes(record, [task], [])
            try:
                _retry_conflicts(lambda: task.save(condition=not_there))
            except PutError as error:
                if cause_code(error) == CONDITION_FAILED + "Exception":
                    raise TaskAlreadyExists(record.task_id) from None
                raise
            return

        puts: list[tuple[TableItem, Condition | None]] = [(task, not_there)]
        puts += [(event, None) for event in event_items]
        key_index = None
        if key is not None:
            key_index = len(puts)
            puts.append((self._key_item(record, key, ttl), self._key_free(key)))
        checks = [] if free_key is None else [(codec.key_pk(free_key), self._key_free(free_key))]
        plan = _Plan(puts=puts, task_index=0, key_index=key_index, checks=checks)
        self._check_sizes(record, [item for item, _ in puts], [], checked=len(checks))
        reasons = _retry_conflicts(lambda: self._transact(plan, None))
        if reasons is None:
            return
        # The reasons come in the request's order: the checks, then the puts. The key is
        # looked at first, as the other stores do.
        checked, reasons = reasons[: len(checks)], reasons[len(checks) :]
        self._raise_key_taken(plan, reasons, key)
        if any(_failed(reason) for reason in checked):
            assert free_key is not None
            raise KeyHeld(free_key)
        if _failed(reasons[plan.task_index]):
            raise TaskAlreadyExists(record.task_id)
        raise _unexplained(record, reasons)

    # --- direct replies -------------------------------------------------------------------------

    def put_reply(self, reply: StoredReply) -> None:
        items = self._items
        item = items(
            codec.key_pk(reply.key),
            codec.KEY_SK,
            kind="reply",
            body=codec.pack(reply_to_json(reply)),
            created_ms=reply.created_at_ms,
            expires_ms=reply.expires_at_ms,
            ttl=codec.ttl_seconds(reply.expires_at_ms),
        )
        size = codec.item_size(item.serialize())
        if size > MAX_ITEM_BYTES:
            raise ItemTooLarge(reply.key, "reply", size)
        condition = self._key_free(reply.key)
        try:
            _retry_conflicts(lambda: item.save(condition=condition))
        except PutError as error:
            if cause_code(error) != CONDITION_FAILED + "Exception":
                raise
            try:
                holder = items.get(codec.key_pk(reply.key), codec.KEY_SK, consistent_read=True)
            except items.DoesNotExist:
                holder = None
            raise IdempotencyKeyTaken(
                reply.key, "" if holder is None else holder.task_id or ""
            ) from None

    # --- update ---------------------------------------------------------------------------------

    def update_task(self, record: TaskRecord, events: Sequence[TaskEvent], key: str | None) -> None:
        # The events must continue the stored log; where it ends is checked by the condition.
        stored_seq = record.last_seq - len(events)
        check_event_sequence(record, stored_seq, events)
        blobs = _inline(record, events)
        for _ in range(SPILL_ATTEMPTS):
            try:
                self._update(record, events, blobs, key, stored_seq)
            except _NoRoom as full:
                self.spill(full.stored)
                continue
            return
        # Each attempt found new inline events after a spill: other writers keep writing.
        raise VersionConflict(record.task_id, record.version - 1)

    def _update(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent],
        blobs: list[bytes],
        key: str | None,
        stored_seq: int,
    ) -> None:
        """One attempt at `update_task`; `_NoRoom` when the stored inline events are in the way."""
        items = self._items
        ttl = codec.ttl_seconds(record.expires_at_ms)
        task = self._task_item(record, keys=None, swept=None)
        actions = self._task_actions(task)
        if key is not None:
            actions.append(items.idempotency_keys.add({key}))
        condition = (items.version == record.version - 1) & (items.last_seq == stored_seq)
        event_items: list[TableItem] = []
        room = self._room(task, blobs) if blobs else -1
        if room >= 0:
            # Append to the stored list (started here on an item without one) if it leaves room.
            actions.append(items.events.set((items.events | []).append(blobs)))
            actions.append(items.events_bytes.add(codec.inline_size(blobs)))
            fits: Condition = items.events.does_not_exist() | (
                (items.events_bytes <= room)
                & (length(items.events) <= MAX_INLINE_EVENTS - len(blobs))  # type: ignore[no-untyped-call]
            )
            condition &= fits
        elif blobs:
            # Too large to go inline even alone: event items, after any inline ones (spilled).
            event_items = [self._event_item(record, event, ttl) for event in events]
            condition &= items.events.does_not_exist()

        if not event_items and key is None:
            self._check_sizes(record, [task], [], allowance=UPDATE_ALLOWANCE)
            target = items(codec.task_pk(record.task_id), codec.TASK_SK)
            try:
                _retry_conflicts(lambda: target.update(actions=actions, condition=condition))
            except UpdateError as error:
                if cause_code(error) == CONDITION_FAILED + "Exception":
                    raise self._update_refused(record, events, self._read_task(record)) from None
                raise
            # The write that finished the task, or a later one if that one's sweep never ran or
            # failed half way: the task's earlier items get its ttl too.
            if target.ttl is not None and target.swept != target.ttl:
                sweep_task(items, record.task_id, target.ttl, record.expires_at_ms)
            return

        puts: list[tuple[TableItem, Condition | None]] = [(event, None) for event in event_items]
        key_index = None
        if key is not None:
            key_index = len(puts)
            puts.append((self._key_item(record, key, ttl), self._key_free(key)))
        # pynamodb sends puts before updates, so the task's update comes last.
        plan = _Plan(puts=puts, task_index=len(puts), key_index=key_index)
        self._check_sizes(record, [item for item, _ in puts], [task], allowance=UPDATE_ALLOWANCE)
        reasons = _retry_conflicts(lambda: self._transact(plan, (task, actions, condition)))
        if reasons is None:
            if blobs and ttl is not None and record.task.status.state.is_terminal:
                # The write that finished the task (a final state comes with events, once): its
                # earlier items get the ttl too.
                sweep_task(items, record.task_id, ttl, record.expires_at_ms)
            return
        self._raise_key_taken(plan, reasons, key)
        task_reason = reasons[plan.task_index]
        if _failed(task_reason):
            assert task_reason is not None
            stored = None if not task_reason.raw_item else items.from_raw_data(task_reason.raw_item)
            raise self._update_refused(record, events, stored)
        raise _unexplained(record, reasons)

    def _update_refused(
        self, record: TaskRecord, events: Sequence[TaskEvent], stored: TableItem | None
    ) -> Exception:
        """Why an update's condition failed: a stale version, events off the stored log, or
        inline events in the way (`_NoRoom`)."""
        if stored is not None and stored.version == record.version - 1:
            assert stored.last_seq is not None
            check_event_sequence(record, stored.last_seq, events)  # raises ValueError
            if events and stored.events:
                return _NoRoom(stored)
        return VersionConflict(record.task_id, record.version - 1)

    def _room(self, task: TableItem, blobs: list[bytes]) -> int:
        """How many bytes of stored inline events leave room for `blobs` in the task item `task`
        (negative: they do not fit even alone)."""
        if len(blobs) > MAX_INLINE_EVENTS:
            return -1
        used = codec.item_size(task.serialize()) + INLINE_OVERHEAD + codec.inline_size(blobs)
        return INLINE_ITEM_BYTES - used

    # --- spill ----------------------------------------------------------------------------------

    def spill(self, stored: TableItem) -> None:
        """Move a task item's inline events out to event items, in one transaction conditional
        on the item being as read. Readers see the same log before and after; a write that
        changed the item meanwhile makes this a no-op (its writer's next attempt decides)."""
        items = self._items
        blobs = stored.events or []
        last = stored.last_seq
        if not blobs or last is None:
            return
        first = last - len(blobs) + 1
        task_id = stored.pk[len(codec.TASK_PREFIX) :]
        context_id = codec.context_of(stored.owner_ctx or "")
        # Event items hold the plain format (codec.pack), as they always have.
        puts: list[tuple[TableItem, Condition | None]] = [
            (
                self._stored_event_item(
                    stored.pk,
                    seq,
                    codec.pack(codec.unpack_event(blob, task_id, context_id)),
                    stored.ttl,
                ),
                None,
            )
            for seq, blob in enumerate(blobs, start=first)
        ]
        plan = _Plan(puts=puts, task_index=len(puts), key_index=None)
        condition = (
            (items.version == stored.version)
            & (items.last_seq == last)
            & (items.events_bytes == stored.events_bytes)
        )
        actions: list[Action] = [items.events.remove(), items.events_bytes.remove()]
        target = items(stored.pk, codec.TASK_SK)
        _retry_conflicts(lambda: self._transact(plan, (target, actions, condition)))

    def _read_task(self, record: TaskRecord) -> TableItem | None:
        try:
            return self._items.get(
                codec.task_pk(record.task_id), codec.TASK_SK, consistent_read=True
            )
        except self._items.DoesNotExist:
            return None

    # --- items ----------------------------------------------------------------------------------

    def _task_item(
        self, record: TaskRecord, *, keys: set[str] | None, swept: int | None
    ) -> TableItem:
        return self._items(
            codec.task_pk(record.task_id),
            codec.TASK_SK,
            kind="task",
            body=codec.pack(record_to_json(record)),
            owner=record.owner,
            owner_ctx=codec.owner_context(record.owner, record.context_id),
            order_key=codec.order_key(record.updated_at_ms, record.task_id),
            state=record.state,
            version=record.version,
            last_seq=record.last_seq,
            idempotency_keys=keys,
            swept=swept,
            expires_ms=record.expires_at_ms,
            ttl=codec.ttl_seconds(record.expires_at_ms),
            letters=len(record.internal.get(DEAD_LETTERS_KEY) or ()),
        )

    def _task_actions(self, task: TableItem) -> list[Action]:
        """SET every attribute a task write owns (REMOVE the absent ones); keys and swept stay."""
        items = self._items
        return [
            items.kind.set(task.kind),
            items.body.set(task.body),
            items.owner.set(task.owner),
            items.owner_ctx.set(task.owner_ctx),
            items.order_key.set(task.order_key),
            items.state.set(task.state),
            items.version.set(task.version),
            items.last_seq.set(task.last_seq),
            items.letters.set(task.letters),
            set_or_remove(items.expires_ms, task.expires_ms),
            set_or_remove(items.ttl, task.ttl),
        ]

    def _event_item(self, record: TaskRecord, event: TaskEvent, ttl: int | None) -> TableItem:
        blob = codec.pack(event_to_json(event))
        return self._stored_event_item(codec.task_pk(record.task_id), event.seq, blob, ttl)

    def _stored_event_item(self, pk: str, seq: int, blob: bytes, ttl: int | None) -> TableItem:
        return self._items(pk, codec.event_sk(seq), kind="event", body=blob, ttl=ttl)

    def _key_item(self, record: TaskRecord, key: str, ttl: int | None) -> TableItem:
        return self._items(
            codec.key_pk(key),
            codec.KEY_SK,
            kind="key",
            task_id=record.task_id,
            created_ms=self._clock(),
            expires_ms=record.expires_at_ms,
            ttl=ttl,
        )

    def _key_free(self, key: str) -> Condition:
        """A key may be claimed if no item holds it, or the task it named has expired."""
        items = self._items
        free: Condition = items.pk.does_not_exist() | (items.expires_ms <= self._clock())
        return free

    # --- the transaction ------------------------------------------------------------------------

    def _transact(
        self, plan: _Plan, update: tuple[TableItem, list[Action], Condition] | None
    ) -> list[CancellationReason | None] | None:
        """Run one transaction: None when it committed, else its cancellation reasons."""
        try:
            with TransactWrite(connection=self._connection) as transaction:
                for pk, check in plan.checks:
                    transaction.condition_check(self._items, pk, codec.KEY_SK, condition=check)
                for item, condition in plan.puts:
                    # With a failed condition, DynamoDB returns the item that failed it.
                    returns = None if condition is None else "ALL_OLD"
                    transaction.save(item, condition=condition, return_values=returns)
                if update is not None:
                    task, actions, condition = update
                    transaction.update(task, actions, condition=condition, return_values="ALL_OLD")
        except TransactWriteError as error:
            if cause_code(error) != "TransactionCanceledException":
                raise
            reasons = error.cancellation_reasons
            if any(r is not None and r.code == TRANSACTION_CONFLICT for r in reasons) and not any(
                _failed(r) for r in reasons
            ):
                raise _Conflicted() from error
            return reasons
        return None

    def _raise_key_taken(
        self, plan: _Plan, reasons: list[CancellationReason | None], key: str | None
    ) -> None:
        if plan.key_index is None or key is None:
            return
        reason = reasons[plan.key_index]
        if _failed(reason):
            assert reason is not None and reason.raw_item is not None
            holder = self._items.from_raw_data(reason.raw_item).task_id
            raise IdempotencyKeyTaken(key, holder or "")

    def _check_sizes(
        self,
        record: TaskRecord,
        puts: list[TableItem],
        updates: list[TableItem],
        *,
        allowance: int = 0,
        checked: int = 0,
    ) -> None:
        """Refuse, before sending, what DynamoDB would refuse for its size (`checked`: how
        many condition checks the transaction has besides, which count as items)."""
        sized = [(item, codec.item_size(item.serialize()) + allowance) for item in updates]
        sized += [(item, codec.item_size(item.serialize())) for item in puts]
        for item, size in sized:
            if size > MAX_ITEM_BYTES:
                raise ItemTooLarge(record.task_id, item.kind, size)
        total = sum(size for _, size in sized)
        count = len(sized) + checked
        if count > 1 and (count > MAX_TRANSACTION_ITEMS or total > MAX_TRANSACTION_BYTES):
            raise TransactionTooLarge(record.task_id, count, total)


def _inline(record: TaskRecord, events: Sequence[TaskEvent]) -> list[bytes]:
    """The events as a task item's `events` hold them."""
    return [
        codec.pack_event(event_to_json(event), record.task_id, record.context_id)
        for event in events
    ]


def set_or_remove(attribute: Attribute[Any], value: Any) -> Action:
    """SET the attribute, or REMOVE it for None (pynamodb's `set(None)` would store a NULL)."""
    return attribute.remove() if value is None else attribute.set(value)


def _failed(reason: CancellationReason | None) -> bool:
    return reason is not None and reason.code == CONDITION_FAILED


def _unexplained(record: TaskRecord, reasons: list[CancellationReason | None]) -> Exception:
    codes = [reason.code if reason else "None" for reason in reasons]
    return PynamoDBException(f"write of task {record.task_id!r} was cancelled: {codes}")


def _retry_conflicts(write: Callable[[], _T]) -> _T:
    """Run `write`, again after a short random pause while concurrent transactions block it."""
    for attempt in range(1, CONFLICT_ATTEMPTS + 1):
        try:
            return write()
        except _Conflicted:
            pass
        except PynamoDBException as error:
            if cause_code(error) != "TransactionConflictException":
                raise
        if attempt < CONFLICT_ATTEMPTS:
            time.sleep(random.uniform(0.005, 0.02) * attempt)
    raise DynamoDBUnavailable(
        f"gave up after {CONFLICT_ATTEMPTS} attempts: concurrent transactions kept conflicting"
    )
