"""Durable state between stateless invocations: the Store protocol and the stores the kit ships.

`MemoryStore` and `SqliteStore` are imported on first use, so importing this package costs no
`sqlite3` import on a cold start that uses another store. `open_store(url)` picks a store from a
URL:

- ``memory://`` -- `MemoryStore`, one process's memory, keeping at most 10000 tasks (the
  oldest finished go first); ``memory://?max_tasks=N`` keeps N;
- ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` or a plain path ending in
  ``.db`` / ``.sqlite`` / ``.sqlite3`` -- `SqliteStore` on that file;
- any other scheme, such as ``dynamodb://`` or ``firestore://``, belongs to an adapter
  distribution. An adapter registers an entry point in the ``a2a_serverless.stores`` group,
  named after its scheme, pointing at a callable that takes the URL and returns a Store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import (
    IdempotencyKeyTaken,
    KeyHeld,
    Store,
    StoredPushConfig,
    StoredReply,
    StoreError,
    StoreFull,
    StoreLimitExceeded,
    StoreOpenError,
    TaskAlreadyExists,
    TaskEvent,
    TaskEventPayload,
    TaskPage,
    TaskQuery,
    TaskRecord,
    VersionConflict,
    WorkerClaim,
    check_event_sequence,
)

if TYPE_CHECKING:
    from .memory import MemoryStore
    from .sqlite import SqliteStore

__all__ = [
    "IdempotencyKeyTaken",
    "KeyHeld",
    "MemoryStore",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoreFull",
    "StoreLimitExceeded",
    "StoreOpenError",
    "StoredPushConfig",
    "StoredReply",
    "TaskAlreadyExists",
    "TaskEvent",
    "TaskEventPayload",
    "TaskPage",
    "TaskQuery",
    "TaskRecord",
    "VersionConflict",
    "WorkerClaim",
    "check_event_sequence",
    "open_store",
]

ENTRY_POINT_GROUP = "a2a_serverless.stores"

# Schemes whose adapters live in separate distributions, for a helpful error when missing.
_ADAPTER_HINTS = {
    "dynamodb": ("the DynamoDB adapter distribution", "a2a-serverless-aws", "adapters/aws"),
    "firestore": ("the Firestore adapter distribution", "a2a-serverless-gcp", "adapters/gcp"),
}
# The kit's own adapters' stores: what their distributions register in ENTRY_POINT_GROUP (a test
# checks), found without reading every installed distribution's metadata, which costs 1.5-4 ms
# of a cold start (more, the more packages a deployment ships).
_KIT_STORES = {
    "dynamodb": "a2a_serverless_aws.dynamodb:open_dynamodb_store",
    "firestore": "a2a_serverless_gcp.firestore:open_firestore_store",
}
_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def __getattr__(name: str) -> Any:
    if name == "MemoryStore":
        from .memory import MemoryStore

        return MemoryStore
    if name == "SqliteStore":
        from .sqlite import SqliteStore

        return SqliteStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sqlite_path(url: str) -> str | None:
    """The file of the SQLite store a URL names, as given (None for any other store; the URL
    is checked by `open_store`, not here)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url if url.endswith(_SQLITE_SUFFIXES) else None
    if scheme.lower() == "sqlite" and rest.startswith("/") and len(rest) > 1:
        return rest[1:]
    return None


def open_store(url: str, *, create: bool = True) -> Store:
    """The store a URL names (see the module docstring). ValueError if none matches, or
    StoreOpenError (a ValueError) if it names one that cannot be opened. Without `create`,
    a SQLite store must exist already: a command that only looks makes no empty database."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        if url.endswith(_SQLITE_SUFFIXES):
            from .sqlite import SqliteStore

            return SqliteStore(url, create=create)
        raise ValueError(
            f"unknown store {url!r}: expected memory://, sqlite:///path.db, a path ending in "
            f"{', '.join(_SQLITE_SUFFIXES)}, or a URL whose scheme an installed adapter provides"
        )
    scheme = scheme.lower()
    if scheme == "memory":
        from .memory import open_memory_store

        return open_memory_store(url)
    if scheme == "sqlite":
        # As in SQLAlchemy: the host part stays empty, the path follows the third slash,
        # so sqlite:///data/a.db is relative and sqlite:////var/data/a.db is absolute.
        if not rest.startswith("/") or len(rest) == 1:
            raise ValueError(
                f"sqlite store URL must look like sqlite:///relative/path.db or "
                f"sqlite:////absolute/path.db, got {url!r}"
            )
        from .sqlite import SqliteStore

        return SqliteStore(rest[1:], create=create)
    return _open_adapter(scheme, url)


def _adapter_entry_points(scheme: str) -> Any:
    """The store factories registered for `scheme`: the kit's own adapter's when it is
    installed, else the entry point group's (each with `.value` and `.load()`)."""
    known = _KIT_STORES.get(scheme)
    if known is not None:
        from importlib.util import find_spec

        if find_spec(known.partition(".")[0]) is not None:
            return [_KitStore(known)]
    # importlib.metadata costs ~10 ms of imports: only a cold start that opens an adapter pays.
    from importlib.metadata import entry_points

    return entry_points(group=ENTRY_POINT_GROUP, name=scheme)


class _KitStore:
    """One of `_KIT_STORES`, as `_open_adapter` uses an entry point."""

    def __init__(self, value: str) -> None:
        self.value = value

    def load(self) -> Any:
        import importlib

        module, _, name = self.value.partition(":")
        return getattr(importlib.import_module(module), name)


def _open_adapter(scheme: str, url: str) -> Store:
    found = _adapter_entry_points(scheme)
    for entry_point in found:
        factory = entry_point.load()
        store = factory(url)
        if not isinstance(store, Store):
            raise TypeError(f"store adapter {entry_point.value!r} returned {type(store).__name__}")
        return store
    hint = _ADAPTER_HINTS.get(scheme)
    if hint is not None:
        what, distribution, folder = hint
        raise ValueError(
            f"{scheme}:// stores are provided by {what}, {distribution}; install it to use "
            f"{url!r} (pip install {distribution}, or pip install -e {folder} in a checkout)"
        )
    raise ValueError(
        f"unknown store scheme {scheme!r} in {url!r}: expected memory://, sqlite:///path.db, "
        f"or a scheme provided by an installed adapter (entry point group {ENTRY_POINT_GROUP!r})"
    )
