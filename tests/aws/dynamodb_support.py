"""Helpers for the DynamoDB store tests: counting the requests a store sends."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from a2a_serverless_aws.dynamodb import DynamoDBStore


def label(operation: str, params: dict[str, Any]) -> str:
    """An operation as the README's tables name it: `Query by_owner COUNT`, `GetItem`, ..."""
    parts = [operation]
    if params.get("IndexName"):
        parts.append(str(params["IndexName"]))
    if params.get("Select") == "COUNT":
        parts.append("COUNT")
    return " ".join(parts)


@contextmanager
def counting(store: DynamoDBStore) -> Iterator[list[str]]:
    """Every DynamoDB API call the store's client makes inside the block, labelled, in order.

    Hooks botocore's `before-parameter-build` event, which sees the API parameters: one entry
    per API call (retries of a call are not counted).
    """
    calls: list[str] = []
    unique_id = f"count-{uuid.uuid4().hex}"

    def hook(model: Any, params: dict[str, Any], **_: Any) -> None:
        calls.append(label(model.name, params))

    events = store.client.meta.events
    events.register("before-parameter-build.dynamodb", hook, unique_id=unique_id)
    try:
        yield calls
    finally:
        events.unregister("before-parameter-build.dynamodb", unique_id=unique_id)
