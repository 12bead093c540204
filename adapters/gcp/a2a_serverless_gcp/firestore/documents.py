"""How the Firestore store lays out its documents: collection names, document ids, fields, limits.

Pure functions and constants, no Google SDK, so the layout can be read, tested and documented
without importing google-cloud-firestore. The README's "Firestore store" section describes the
same layout for operators.

Collections, for a prefix ``p`` (default ``a2a``)::

    {p}_tasks/{taskId}                            one document per task
    {p}_tasks/{taskId}/{p}_events/{seq:012d}      the task's event log
    {p}_tasks/{taskId}/{p}_pushConfigs/{configId} the task's push notification configs
    {p}_idempotencyKeys/{sha256(key)}             idempotency key -> task id

Subcollections carry the prefix too, so every collection group (what TTL policies and indexes
are defined on) belongs to one prefix and several agents can share a database.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from a2a_serverless.store import StoreLimitExceeded

# --- collections -----------------------------------------------------------------------------

_PREFIX = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class Collections(msgspec.Struct, frozen=True):
    """The collection ids (and so the collection groups) a store with this prefix uses."""

    prefix: str

    def __post_init__(self) -> None:
        if self.prefix and not _PREFIX.fullmatch(self.prefix):
            raise ValueError(
                f"Firestore collection prefix must be letters, digits, '_' or '-' (at most 64, "
                f"not starting with '_' or '-'), got {self.prefix!r}"
            )

    def _name(self, base: str) -> str:
        return f"{self.prefix}_{base}" if self.prefix else base

    @property
    def tasks(self) -> str:
        return self._name("tasks")

    @property
    def events(self) -> str:
        return self._name("events")

    @property
    def push_configs(self) -> str:
        return self._name("pushConfigs")

    @property
    def idempotency_keys(self) -> str:
        return self._name("idempotencyKeys")

    @property
    def all(self) -> tuple[str, ...]:
        return (self.tasks, self.events, self.push_configs, self.idempotency_keys)


# --- document ids ----------------------------------------------------------------------------

_ESCAPE = "~"
_RESERVED_ID = re.compile(r"__.*__", re.DOTALL)
MAX_ID_BYTES = 1500


def document_id(raw: str) -> str:
    """A Firestore document id for a client-chosen id (task id, push config id).

    Ids Firestore accepts are used as they are, so documents stay readable in the console. An
    id Firestore refuses (a '/', '.' or '..', ``__x__``, empty or too long) becomes '~' and the
    SHA-256 of the id; ids starting with '~' are hashed too, so two ids never share a document.
    The real id is always kept in a field as well.
    """
    if (
        raw
        and "/" not in raw
        and raw not in (".", "..")
        and not raw.startswith(_ESCAPE)
        and not _RESERVED_ID.fullmatch(raw)
        and len(raw.encode()) <= MAX_ID_BYTES
    ):
        return raw
    return _ESCAPE + hashlib.sha256(raw.encode()).hexdigest()


def key_document_id(key: str) -> str:
    """Idempotency keys are always hashed: they are long, free-form, and never listed."""
    return hashlib.sha256(key.encode()).hexdigest()


def event_document_id(seq: int) -> str:
    # Zero-padded, so the console lists a log in order; reads order by the `seq` field.
    return f"{seq:012d}"


# --- fields ----------------------------------------------------------------------------------

# Query fields of a task document (owner, contextId, state, updatedAt, taskId) duplicate what
# the body holds, so list queries can filter and order on them.
# `visibleUntil`: the task's expiry in ms since the epoch, NEVER_EXPIRES when it has none; list
# queries filter on it because TTL deletion runs up to a day late.
# `expireAt`: the same instant as a Timestamp, only when the task expires; the TTL policy's field.
# `writeId`: a fresh token per write, to recognise our own write after an ambiguous failure.
NEVER_EXPIRES = 2**63 - 1


def expire_at(expires_at_ms: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=expires_at_ms)


def visible_until(expires_at_ms: int | None) -> int:
    return NEVER_EXPIRES if expires_at_ms is None else expires_at_ms


# --- bodies ----------------------------------------------------------------------------------

# A body is the record's shared JSON shape (a2a_serverless.store.base): a string while small
# (readable in the console), zlib-compressed bytes from COMPRESS_FROM_BYTES on. Task JSON is
# repetitive (history, artifact chunks) and compresses several times over.
COMPRESS_FROM_BYTES = 32 * 1024


def encode_body(text: str) -> str | bytes:
    data = text.encode()
    if len(data) < COMPRESS_FROM_BYTES:
        return text
    return zlib.compress(data, 6)


def decode_body(value: str | bytes) -> str:
    if isinstance(value, bytes):
        return zlib.decompress(value).decode()
    return value


# --- limits ----------------------------------------------------------------------------------

# Firestore's hard limits: a document is at most 1 MiB (1,048,576 bytes, counted as below),
# a commit at most 500 writes and a request at most 10 MiB. The store checks its writes
# against them before sending, so a caller gets a clear error rather than a gRPC one.
MAX_DOCUMENT_BYTES = 1_048_576
# One field's value (a body) is limited a little further: 1 MiB less 89 bytes.
MAX_VALUE_BYTES = 1_048_487
MAX_WRITES_PER_COMMIT = 500
# What the documents of one commit may add up to: the 10 MiB request limit less room for the
# request's own framing (document names are counted in each document's size already).
MAX_COMMIT_BYTES = 10 * 1024 * 1024 - 64 * 1024


class FirestoreLimitExceeded(StoreLimitExceeded):
    """A write would break one of Firestore's hard limits; nothing was written.

    `what` names the limit ("task document size", "event document size", "task document
    body", ..., "writes per commit", "commit size"), `size` is what the write needed and
    `limit` what Firestore allows.
    """

    def __init__(self, task_id: str, what: str, size: int, limit: int) -> None:
        super().__init__(
            f"task {task_id!r}: {what} would be {size:,}, over Firestore's limit of {limit:,} "
            f"(task and event bodies are stored zlib-compressed from "
            f"{COMPRESS_FROM_BYTES:,} bytes on)",
            store_limit=f"Firestore's {what}",
            size=size,
            maximum=limit,
        )
        self.task_id = task_id
        self.what = what
        self.size = size
        self.limit = limit


def document_size(path: str, fields: Mapping[str, Any]) -> int:
    """A document's size as Firestore counts it against the 1 MiB limit.

    Per Firestore's storage-size rules: the document name (each path segment's bytes + 1,
    plus 16), each field name (bytes + 1) and value (string bytes + 1, bytes as is, 8 for
    numbers and timestamps, 1 for booleans and null, maps summed), plus 32.
    """
    name = sum(len(segment.encode()) + 1 for segment in path.split("/")) + 16
    return name + _map_size(fields) + 32


def _map_size(fields: Mapping[str, Any]) -> int:
    return sum(len(key.encode()) + 1 + _value_size(value) for key, value in fields.items())


def _value_size(value: Any) -> int:
    if isinstance(value, str):
        return len(value.encode()) + 1
    if isinstance(value, bytes):
        return len(value)
    if value is None or isinstance(value, bool):
        return 1
    if isinstance(value, int | float | datetime):
        return 8
    if isinstance(value, Mapping):
        return _map_size(value)
    if isinstance(value, list | tuple):
        return sum(_value_size(item) for item in value)
    # A sentinel such as DELETE_FIELD: it deletes, it stores nothing.
    return 0
