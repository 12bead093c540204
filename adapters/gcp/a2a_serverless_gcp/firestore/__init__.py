"""A Store on Google Cloud Firestore: `FirestoreStore`, and `open_firestore_store(url)` for
``A2A_STORE_URL=firestore://<project>/<database>?prefix=<prefix>`` (see `url`).

Importing this package is cheap: google-cloud-firestore (about a quarter of a second to import)
loads when `FirestoreStore` is first touched -- `open_firestore_store`, or
``from a2a_serverless_gcp.firestore import FirestoreStore``.

Modules: `store` (the Store), `documents` (collections, ids, fields, limits), `clients` (one
AsyncClient per event loop), `url` (the store URL).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .documents import Collections, FirestoreLimitExceeded
from .url import FirestoreLocation, parse_firestore_url

if TYPE_CHECKING:
    from .store import FirestoreStore

__all__ = [
    "Collections",
    "FirestoreLimitExceeded",
    "FirestoreLocation",
    "FirestoreStore",
    "open_firestore_store",
    "parse_firestore_url",
]


def __getattr__(name: str) -> Any:
    if name == "FirestoreStore":
        from .store import FirestoreStore

        return FirestoreStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_firestore_store(url: str) -> FirestoreStore:
    """The store a ``firestore://`` URL names; the `a2a_serverless.stores` entry point."""
    location = parse_firestore_url(url)
    from .store import FirestoreStore

    content = None
    if location.content is not None:
        from a2a_serverless.store.content import parse_bucket_url

        from ..cloud_storage import CloudStorageContentStore

        bucket, prefix = parse_bucket_url(location.content, "gs")
        content = CloudStorageContentStore(bucket, prefix=prefix, project=location.project)
    return FirestoreStore(
        project=location.project,
        database=location.database,
        prefix=location.prefix,
        content=content,
    )
