"""The errors the DynamoDB store raises besides the Store protocol's own."""

from __future__ import annotations

from a2a_serverless.store.base import StoreError

# DynamoDB's limits (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
MAX_ITEM_BYTES = 400 * 1024
MAX_TRANSACTION_ITEMS = 100
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024


class DynamoDBStoreError(StoreError):
    """Base class of the DynamoDB store's own errors."""


class ItemTooLarge(DynamoDBStoreError):
    """One item would exceed DynamoDB's 400 KB, even with its JSON compressed.

    A task record grows with its history and artifacts; put large content behind URIs
    (FilePart with `uri`) rather than inline bytes.
    """

    def __init__(self, task_id: str, what: str, size: int) -> None:
        super().__init__(
            f"task {task_id!r}: the {what} item would be {size} bytes after compression; "
            f"DynamoDB items are limited to {MAX_ITEM_BYTES} bytes"
        )
        self.task_id = task_id
        self.what = what
        self.size = size


class TransactionTooLarge(DynamoDBStoreError):
    """One write would exceed DynamoDB's transaction limits (100 items, 4 MB)."""

    def __init__(self, task_id: str, items: int, size: int) -> None:
        super().__init__(
            f"task {task_id!r}: one write of {items} items ({size} bytes) exceeds DynamoDB's "
            f"transaction limits of {MAX_TRANSACTION_ITEMS} items and {MAX_TRANSACTION_BYTES} "
            "bytes; write fewer events at a time"
        )
        self.task_id = task_id
        self.items = items
        self.size = size


class StoreUnavailable(DynamoDBStoreError):
    """DynamoDB refused or failed a request for a reason other than a condition (throttling
    past retries, a missing table, bad credentials...); the message carries its error."""
