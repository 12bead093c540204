"""The errors the DynamoDB store raises besides the Store protocol's own."""

from __future__ import annotations

from typing import Any

from a2a_serverless.store import base
from a2a_serverless.store.base import StoreError, StoreLimitExceeded

# DynamoDB's limits (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
MAX_ITEM_BYTES = 400 * 1024
MAX_TRANSACTION_ITEMS = 100
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024


class DynamoDBStoreError(StoreError):
    """Base class of the DynamoDB store's own errors."""


class ItemTooLarge(DynamoDBStoreError, StoreLimitExceeded):
    """One item would exceed DynamoDB's 400 KB, even with its JSON compressed.

    A task record grows with its history and artifacts; give the store a content bucket
    (parts over 16 KB then live in S3), or put large content behind URIs (FilePart with `uri`).
    """

    def __init__(self, task_id: str, what: str, size: int) -> None:
        StoreLimitExceeded.__init__(
            self,
            f"task {task_id!r}: the {what} item would be {size} bytes after compression; "
            f"DynamoDB items are limited to {MAX_ITEM_BYTES} bytes",
            store_limit="DynamoDB's item",
            size=size,
            maximum=MAX_ITEM_BYTES,
        )
        self.task_id = task_id
        self.what = what
        self.size = size


class TransactionTooLarge(DynamoDBStoreError, StoreLimitExceeded):
    """One write would exceed DynamoDB's transaction limits (100 items, 4 MB)."""

    def __init__(self, task_id: str, items: int, size: int) -> None:
        StoreLimitExceeded.__init__(
            self,
            f"task {task_id!r}: one write of {items} items ({size} bytes) exceeds DynamoDB's "
            f"transaction limits of {MAX_TRANSACTION_ITEMS} items and {MAX_TRANSACTION_BYTES} "
            "bytes; write fewer events at a time",
            store_limit="DynamoDB's transaction",
            size=size,
            maximum=MAX_TRANSACTION_BYTES,
        )
        self.task_id = task_id
        self.items = items
        self.size = size


class DynamoDBUnavailable(DynamoDBStoreError, base.StoreUnavailable):
    """DynamoDB refused or failed a request for a reason other than a condition (throttling
    past retries, a missing table, bad credentials, no connection...); the message carries its
    error. The core's `StoreUnavailable`: HTTP 503 to clients, a retried job in the worker.

    Formerly this module's `StoreUnavailable` (the core's name for a different class), still
    importable under that name (deprecated)."""


# Deprecated alias of DynamoDBUnavailable.
StoreUnavailable = DynamoDBUnavailable


def cause_code(error: Exception) -> str | None:
    """The DynamoDB error code behind a pynamodb error (``ConditionalCheckFailedException``...),
    None when DynamoDB gave none.

    pynamodb's own `cause_response_code` raises AttributeError when the cause is an HTTP-level
    failure (a read timeout, a connection closed mid-request): those carry ``response=None``.
    """
    return _cause_error(error).get("Code")


def cause_message(error: Exception) -> str | None:
    """DynamoDB's description of the error behind a pynamodb error, if it gave one."""
    return _cause_error(error).get("Message")


def _cause_error(error: Exception) -> dict[str, Any]:
    response = getattr(getattr(error, "cause", None), "response", None)
    details = response.get("Error") if isinstance(response, dict) else None
    return details if isinstance(details, dict) else {}
