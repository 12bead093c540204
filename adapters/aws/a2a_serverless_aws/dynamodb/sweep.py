"""Give a task's earlier items the ttl the task got when it finished, so they expire with it.

A task learns its expiry when it reaches a final state; its events and push configs from before
that, and the idempotency keys of its messages, were written without one. The write that
finishes the task (or, failing that, the task's next write without events) runs this sweep
right after it:

1. one Query of the task's partition (more pages past 1 MB): events, push configs, the task;
2. events lacking the ttl are put again with it, 25 per BatchWriteItem (events never change);
3. each push config and each idempotency key gets an UpdateItem setting the ttl, conditional on
   the item still existing (a config deleted meanwhile is not brought back);
4. the task item records `swept = ttl`, so later writes know there is nothing left to do.

The sweep is best effort: the task write has already committed, so a failure here is logged,
not raised, and the next write of the task tries again (its `swept` is still behind).
"""

from __future__ import annotations

import logging

from pynamodb.exceptions import PynamoDBException, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from . import codec
from .errors import cause_code
from .models import TableItem

log = logging.getLogger(__name__)


def sweep_task(items: type[TableItem], task_id: str, ttl: int, expires_ms: int | None) -> bool:
    """Stamp `ttl` on the task's items that lack it; True when everything was stamped."""
    try:
        _sweep(items, task_id, ttl, expires_ms)
    except PynamoDBException as error:
        log.warning(
            "could not give the items of task %r their ttl (the next write retries): %s",
            task_id,
            error,
        )
        return False
    return True


def _sweep(items: type[TableItem], task_id: str, ttl: int, expires_ms: int | None) -> None:
    pk = codec.task_pk(task_id)
    found = list(items.query(pk, consistent_read=True))
    task = next((item for item in found if item.sk == codec.TASK_SK), None)
    if task is None:
        return
    with items.batch_write() as batch:
        for item in found:
            if item.sk.startswith(codec.EVENT_PREFIX) and item.ttl != ttl:
                item.ttl = ttl
                batch.save(item)
    for item in found:
        if item.sk.startswith(codec.PUSH_PREFIX) and item.ttl != ttl:
            _stamp(items, pk, item.sk, [items.ttl.set(ttl)], items.pk.exists())
    for key in sorted(task.idempotency_keys or ()):
        _stamp(
            items,
            codec.key_pk(key),
            codec.KEY_SK,
            [items.ttl.set(ttl), items.expires_ms.set(expires_ms)],
            items.pk.exists() & (items.task_id == task_id),
        )
    _stamp(items, pk, codec.TASK_SK, [items.swept.set(ttl)], items.pk.exists())


def _stamp(
    items: type[TableItem], pk: str, sk: str, actions: list[Action], condition: Condition
) -> None:
    """One UpdateItem that returns nothing (Model.update would send the whole item back)."""
    try:
        items._get_connection().update_item(pk, sk, actions=actions, condition=condition)
    except UpdateError as error:
        # The item went away meanwhile (a deleted config): nothing to stamp.
        if cause_code(error) != "ConditionalCheckFailedException":
            raise
