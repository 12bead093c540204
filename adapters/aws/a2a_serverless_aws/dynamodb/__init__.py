"""A Store on Amazon DynamoDB: one table holds tasks, their event logs, push configs and
idempotency keys (design, costs and the table's schema: adapters/aws/README.md).

    store = DynamoDBStore("a2a-tasks", region="eu-west-1")
    store = open_dynamodb_store("dynamodb://a2a-tasks?region=eu-west-1")
    A2A_STORE_URL=dynamodb://a2a-tasks?region=eu-west-1   # through a2a_serverless.store.open_store
    A2A_STORE_URL=dynamodb://a2a-tasks?content=s3://a2a-content   # large parts in S3

pynamodb (and botocore) load when the first store or table is made, not when this package is
imported, so the `a2a_serverless.stores` entry point is cheap to resolve.

Modules: url (store URLs), models (the pynamodb model), codec (item formats), writes (the
conditional, transactional task writes), listing (tasks/list), sweep (TTL of finished tasks),
store (the Store), table (create_table), errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    DynamoDBStoreError,
    DynamoDBUnavailable,
    ItemTooLarge,
    StoreUnavailable,
    TransactionTooLarge,
)
from .url import DynamoDBUrl, parse_dynamodb_url

if TYPE_CHECKING:
    from .store import DynamoDBStore
    from .table import create_table

__all__ = [
    "DynamoDBStore",
    "DynamoDBStoreError",
    "DynamoDBUnavailable",
    "DynamoDBUrl",
    "ItemTooLarge",
    "StoreUnavailable",
    "TransactionTooLarge",
    "create_table",
    "open_dynamodb_store",
    "parse_dynamodb_url",
]


def __getattr__(name: str) -> Any:
    if name == "DynamoDBStore":
        from .store import DynamoDBStore

        return DynamoDBStore
    if name == "create_table":
        from .table import create_table

        return create_table
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_dynamodb_store(url: str) -> DynamoDBStore:
    """The store a ``dynamodb://<table>?region=...&endpoint=...&content=s3://...`` URL names
    (see url.py).

    The entry point behind ``A2A_STORE_URL=dynamodb://...``. The table (and bucket) must exist.
    """
    from botocore.exceptions import NoRegionError  # type: ignore[import-untyped]

    from a2a_serverless.store import StoreOpenError

    from .store import DynamoDBStore

    parsed = parse_dynamodb_url(url)
    content = None
    if parsed.content_url is not None:
        from a2a_serverless.store.content import parse_bucket_url

        from ..s3content import S3ContentStore

        bucket, prefix = parse_bucket_url(parsed.content_url, "s3")
        content = S3ContentStore(bucket, prefix=prefix, region=parsed.region)
    try:
        return DynamoDBStore(
            parsed.table_name,
            region=parsed.region,
            endpoint_url=parsed.endpoint_url,
            content=content,
        )
    except NoRegionError:
        raise StoreOpenError(
            f"the DynamoDB store {url!r} has no region: add ?region=... to the URL or set "
            "AWS_REGION"
        ) from None
