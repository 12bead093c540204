"""Large content out of the store's items: parts above a size live in object storage.

A DynamoDB item holds 400 KB and a Firestore document 1 MiB, while a protocol message may carry
a 4 MiB inline file and an agent may produce larger artifacts. A store given a `ContentStore`
(S3 in the AWS adapter, Cloud Storage in the GCP adapter) hands every write through an
`Offloader`: each part of the task (status message, history, artifacts), of its events and of a
direct reply whose JSON is larger than `threshold` is written to the content store first, as its
JSON, and the item keeps a reference part in its place. Reads put the parts back, so every
reader (GetTask, ListTasks, stream replay, webhook bodies) gets the same content, byte for byte.

The reference is a data part whose data holds one key, `REFERENCE_KEY`, with the object's key,
the SHA-256 of the part's JSON and its size. A client part that happens to look like one is
offloaded whatever its size, so a reference read back is always one this module wrote. A
record written before offloading existed has no references and reads as it always did.

Order and tidiness:
- content is written before the task write that references it; objects are never overwritten
  (each upload has a fresh key), so a failed writer never touches what another writer's
  committed record references;
- a write that is known not to have happened (a version conflict, a taken key, a limit) deletes
  the objects it uploaded; one whose outcome is unknown (`StoreUnavailable`) leaves them: its
  record may reference them. They live under the task's prefix and go with the task;
- a part already stored for the task (same SHA-256, learnt from a read or a write by this
  process) is referenced again, not uploaded again, so a task's status changes cost no uploads;
- the write that finishes a task with an expiry (`finished_task_ttl_s`) marks every object under
  the task's prefix to expire with it (`ContentStore.expire`): the bucket's lifecycle rule then
  removes them, orphans of unknown writes included;
- content of a task that never came to exist (a process that died between the upload and the
  task's first write) is found by a sweep (`Offloader.sweep`: the stores' `sweep_content`, the
  `a2a-serverless content sweep` command), which deletes the objects of task prefixes whose task
  does not exist, once they are an hour old.

Objects hold the part's JSON as msgspec writes it, so decoding and writing it again gives the
same bytes; a read checks the SHA-256 (`ContentCorrupt` on a mismatch, `ContentMissing` when the
object is gone). An object an earlier version wrote holds the part in that version's form, read
through `legacy.py`.

File objects, for signed URLs (`file_objects`, set by a2a_serverless.filelinks when
`content_signed_urls` is on): a file part with inline bytes that is offloaded also has its
decoded bytes written as an object of their own (`<key>.file`, Content-Type the part's
media type), named in its reference (`file`), so the answer edge can hand clients a signed URL to
exactly those bytes (`file_key`). Such an object lives under the task's prefix like the part's
JSON, and goes with it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import logging
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote, unquote, urlsplit

import msgspec

from .. import codec
from ..models import (
    Artifact,
    Message,
    Part,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from . import legacy
from .base import StoredReply, StoreError, StoreUnavailable, TaskEvent, TaskRecord

REFERENCE_KEY = "a2a-serverless/content"
# A file part's decoded bytes are kept beside its JSON under this suffix (file objects).
FILE_SUFFIX = ".file"
# Parts whose JSON is larger than this leave the item. Small enough that a task item with a few
# references stays at a handful of KB (DynamoDB bills writes per KB), large enough that ordinary
# messages never cost an object-storage request.
DEFAULT_THRESHOLD = 16 * 1024
# Content read or written by this process, kept for the next read of the same task.
DEFAULT_CACHE_BYTES = 32 * 1024 * 1024
# How many (task, digest) -> object mappings this process remembers.
_MAX_KNOWN = 8192

log = logging.getLogger("a2a_serverless.store.content")

_PART = codec.decoder(Part)


def _decode_part(data: bytes) -> Part:
    """A stored part's JSON (one kept by an earlier version in its form, `legacy.py`)."""
    if legacy.is_old_part(data):
        return codec.convert(legacy.part(json.loads(data)), Part)
    return _PART.decode(data)


class ContentMissing(StoreError):
    """A stored record references content the content store does not have."""

    def __init__(self, key: str) -> None:
        super().__init__(f"stored content {key!r} is missing")
        self.key = key


class ContentCorrupt(StoreError):
    """Stored content does not match the digest its reference carries."""

    def __init__(self, key: str) -> None:
        super().__init__(f"stored content {key!r} does not match its digest")
        self.key = key


@runtime_checkable
class ContentStore(Protocol):
    """Object storage for the parts too large for a store's items.

    Errors: `ContentMissing` for a key with no object; `StoreUnavailable` when the service could
    not be reached or refused (the request may succeed later)."""

    async def put(self, key: str, data: bytes) -> None:
        """Write a new object (keys are never reused)."""
        ...

    async def get(self, key: str) -> bytes: ...

    async def delete(self, keys: Sequence[str]) -> None:
        """Remove these objects; a key with no object is no error."""
        ...

    async def expire(self, prefix: str, expires_at_ms: int) -> None:
        """Have every object under `prefix` removed once `expires_at_ms` has passed (by the
        bucket's lifecycle rule; no sooner)."""
        ...

    async def listed(self, prefix: str) -> list[tuple[str, int]]:
        """Every object under `prefix`: its key and when it was written (ms since the epoch)."""
        ...


@runtime_checkable
class SigningContentStore(ContentStore, Protocol):
    """A content store that can hand out signed GET URLs of its objects (S3, Cloud Storage)."""

    # The longest a signed URL may be valid, in seconds.
    max_url_ttl_s: float

    async def put_file(self, key: str, data: bytes, content_type: str) -> None:
        """Write a new object of raw bytes served with `content_type`."""
        ...

    async def signed_url(self, key: str, ttl_s: int) -> str:
        """A URL that GETs the object `key` for `ttl_s` seconds. `StoreUnavailable` when it
        cannot be signed now."""
        ...


class Offloaded(msgspec.Struct, frozen=True):
    """A write as it goes to the store: references instead of large parts."""

    record: TaskRecord
    events: list[TaskEvent]
    # Objects this write uploaded (none when every large part was already stored).
    uploaded: list[str]
    # (digest, key, size, file key or None) of every reference the write carries.
    references: list[tuple[str, str, int, str | None]]


# Bucket names as S3 and Cloud Storage both accept them (Cloud Storage also allows '_').
_BUCKET = re.compile(r"[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]")


def parse_bucket_url(url: str, scheme: str) -> tuple[str, str]:
    """The bucket and key prefix of ``<scheme>://<bucket>[/<prefix>]`` (s3, gs): what a store
    URL's `content` option names. ValueError, saying what is wrong, for anything else."""
    parts = urlsplit(url)
    if parts.scheme.lower() != scheme:
        raise ValueError(f"content must be a {scheme}://<bucket>[/<prefix>] URL, got {url!r}")
    if parts.query or parts.fragment or "@" in parts.netloc:
        raise ValueError(f"a {scheme}:// content URL is {scheme}://<bucket>/<prefix>: {url!r}")
    bucket = parts.netloc
    if not _BUCKET.fullmatch(bucket):
        raise ValueError(f"invalid bucket name {bucket!r} in {url!r}")
    prefix = parts.path.lstrip("/")
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    return bucket, prefix


_TASKS = "tasks/"
# How old a task's content must be before a sweep may remove it: a write under way is seconds.
DEFAULT_SWEEP_AGE_S = 3600.0


def task_prefix(task_id: str) -> str:
    """Where a task's content lives, relative to the content store's own prefix."""
    return f"{_TASKS}{quote(task_id, safe='')}/"


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def reply_prefix(key: str) -> str:
    return f"replies/{quote(key, safe='')}/"


def is_reference(part: Part) -> bool:
    data = part.data
    return (
        isinstance(data, dict)
        and part.metadata is None
        and len(data) == 1
        and REFERENCE_KEY in data
    )


def written_not(error: BaseException) -> bool:
    """Whether a store write that raised `error` is known to have written nothing."""
    return isinstance(error, StoreError | ValueError) and not isinstance(error, StoreUnavailable)


class Offloader:
    """Moves a store's large parts to a `ContentStore` and back (see the module docstring).

    One per store; safe to share between tasks of one event loop."""

    def __init__(
        self,
        content: ContentStore,
        *,
        threshold: int = DEFAULT_THRESHOLD,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        if threshold < 1:
            raise ValueError("the offload threshold must be at least one byte")
        self.content = content
        self.threshold = threshold
        self._cache_bytes = cache_bytes
        self._cached: OrderedDict[str, bytes] = OrderedDict()
        self._cached_size = 0
        self._known: OrderedDict[tuple[str, str], tuple[str, int, str | None]] = OrderedDict()
        # Write file parts' decoded bytes as objects of their own (see the module docstring);
        # only a SigningContentStore takes them.
        self.file_objects = False
        # The store may be driven from several threads (each with its own event loop).
        self._lock = threading.Lock()

    # --- writes ---------------------------------------------------------------------------------

    async def write(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent],
        write: Callable[[TaskRecord, list[TaskEvent]], Awaitable[None]],
    ) -> None:
        """Upload the write's large parts, then `write` it with references in their place."""
        offloaded = await self.offload(record, events)
        try:
            await write(offloaded.record, offloaded.events)
        except BaseException as error:
            if offloaded.uploaded and written_not(error):
                await self._discard(offloaded.uploaded)
            raise
        prefix = task_prefix(record.task_id)
        for digest, key, size, file_key in offloaded.references:
            self._remember(prefix, digest, key, size, file_key)
        if (
            record.expires_at_ms is not None
            and any(event.is_final for event in events)
            and (offloaded.references or self._has_known(prefix))
        ):
            await self._expire(prefix, record.expires_at_ms)

    async def offload(self, record: TaskRecord, events: Sequence[TaskEvent]) -> Offloaded:
        prefix = task_prefix(record.task_id)
        pending: dict[str, tuple[bytes, str, int]] = {}
        files: dict[str, tuple[bytes, str]] = {}
        large: dict[int, tuple[str, bytes, Part]] = {}
        self._collect_task(record.task, large)
        for event in events:
            self._collect_event(event, large)
        if not large:
            return Offloaded(record, list(events), [], [])
        references: dict[str, Part] = {}
        found: list[tuple[str, str, int, str | None]] = []
        for digest, data, part in large.values():
            if digest in references:
                continue
            with self._lock:
                known = self._known.get((prefix, digest))
            if known is None:
                key = f"{prefix}{uuid.uuid4().hex}"
                pending[digest] = (data, key, len(data))
                file = self._file_object(part)
                if file is not None:
                    files[key + FILE_SUFFIX] = file
                known = (key, len(data), None if file is None else key + FILE_SUFFIX)
            references[digest] = reference_part(known[0], digest, known[1], known[2])
            found.append((digest, *known))
        uploaded = [key for _, key, _ in pending.values()] + list(files)
        await self._put_all({key: data for data, key, _ in pending.values()}, files)
        for data, key, _ in pending.values():
            self._cache(key, data)

        def swap(part: Part) -> Part:
            entry = large.get(id(part))
            return part if entry is None else references[entry[0]]

        task = map_task(record.task, swap)
        new_record = record if task is record.task else _with_task(record, task)
        new_events = [map_event(event, swap) for event in events]
        return Offloaded(new_record, new_events, uploaded, found)

    def _file_object(self, part: Part) -> tuple[bytes, str] | None:
        """The decoded bytes and Content-Type of a file part's own object, when kept."""
        if not (self.file_objects and isinstance(self.content, SigningContentStore)):
            return None
        if part.raw is None:
            return None
        data = base64.b64decode(part.raw)
        return data, part.media_type or "application/octet-stream"

    async def _put_all(
        self, objects: dict[str, bytes], files: dict[str, tuple[bytes, str]] | None = None
    ) -> None:
        """Upload every object (and file object); if any fails, delete them all (once every
        upload has ended, so none lands after the delete) and raise the first failure."""
        uploads = [self.content.put(key, data) for key, data in objects.items()]
        if files:
            assert isinstance(self.content, SigningContentStore)
            uploads += [
                self.content.put_file(key, data, content_type)
                for key, (data, content_type) in files.items()
            ]
        results = await asyncio.gather(*uploads, return_exceptions=True)
        failures = [result for result in results if isinstance(result, BaseException)]
        if failures:
            await self._discard([*objects, *(files or ())])
            raise failures[0]

    async def write_reply(
        self, reply: StoredReply, write: Callable[[StoredReply], Awaitable[None]]
    ) -> None:
        """`write` a direct reply with its large parts uploaded first (under the key's prefix)."""
        large: dict[int, tuple[str, bytes, Part]] = {}
        self._collect_parts(reply.reply.parts, large)
        if not large:
            await write(reply)
            return
        prefix = reply_prefix(reply.key)
        keys = {digest: f"{prefix}{uuid.uuid4().hex}" for digest, _, _ in large.values()}
        blobs = {digest: data for digest, data, _ in large.values()}
        uploaded = list(keys.values())
        await self._put_all({keys[digest]: blobs[digest] for digest in keys})

        def swap(part: Part) -> Part:
            entry = large.get(id(part))
            if entry is None:
                return part
            digest = entry[0]
            return reference_part(keys[digest], digest, len(blobs[digest]))

        message = _map_message(reply.reply, swap)
        stored = StoredReply(
            key=reply.key,
            owner=reply.owner,
            request_digest=reply.request_digest,
            reply=message,
            created_at_ms=reply.created_at_ms,
            expires_at_ms=reply.expires_at_ms,
        )
        try:
            await write(stored)
        except BaseException as error:
            if written_not(error):
                await self._discard(uploaded)
            raise
        if reply.expires_at_ms is not None:
            await self._expire(prefix, reply.expires_at_ms)

    async def sweep(
        self,
        exists: Callable[[str], Awaitable[bool]],
        *,
        older_than_s: float = DEFAULT_SWEEP_AGE_S,
        now_ms: int | None = None,
    ) -> list[str]:
        """Delete the content of tasks that do not exist (`exists(task_id)` is False: never
        written, or expired): what a task write that never committed left behind (a process
        that died between the upload and the write, an unknown first write never retried).
        A task prefix holding an object younger than `older_than_s` is left alone, as its
        write may be under way. The keys deleted."""
        cutoff = (now_ms if now_ms is not None else _now_ms()) - int(older_than_s * 1000)
        by_task: dict[str, list[tuple[str, int]]] = {}
        for key, written_ms in await self.content.listed(_TASKS):
            task_id = unquote(key[len(_TASKS) :].split("/", 1)[0])
            by_task.setdefault(task_id, []).append((key, written_ms))
        swept: list[str] = []
        for task_id, objects in by_task.items():
            if any(written_ms > cutoff for _, written_ms in objects):
                continue
            if await exists(task_id):
                continue
            keys = [key for key, _ in objects]
            await self.content.delete(keys)
            with self._lock:
                for key in keys:
                    dropped = self._cached.pop(key, None)
                    if dropped is not None:
                        self._cached_size -= len(dropped)
            log.info("swept %d object(s) of task %r, which does not exist", len(keys), task_id)
            swept += keys
        return swept

    # --- reads ----------------------------------------------------------------------------------

    async def restore_record(self, record: TaskRecord) -> TaskRecord:
        parts = self._references_in_task(record.task)
        if not parts:
            return record
        contents = await self._fetch(parts, task_prefix(record.task_id))
        task = map_task(record.task, lambda part: contents.get(id(part), part))
        return _with_task(record, task)

    async def restore_records(self, records: Sequence[TaskRecord]) -> list[TaskRecord]:
        return list(await asyncio.gather(*(self.restore_record(r) for r in records)))

    async def restore_events(self, task_id: str, events: Sequence[TaskEvent]) -> list[TaskEvent]:
        parts: list[Part] = []
        for event in events:
            for part in _event_parts(event):
                if is_reference(part):
                    parts.append(part)
        if not parts:
            return list(events)
        contents = await self._fetch(parts, task_prefix(task_id))
        return [map_event(event, lambda p: contents.get(id(p), p)) for event in events]

    async def restore_reply(self, reply: StoredReply) -> StoredReply:
        parts = [part for part in reply.reply.parts if is_reference(part)]
        if not parts:
            return reply
        contents = await self._fetch(parts, None)
        message = _map_message(reply.reply, lambda p: contents.get(id(p), p))
        return StoredReply(
            key=reply.key,
            owner=reply.owner,
            request_digest=reply.request_digest,
            reply=message,
            created_at_ms=reply.created_at_ms,
            expires_at_ms=reply.expires_at_ms,
        )

    async def _fetch(self, parts: Sequence[Part], prefix: str | None) -> dict[int, Part]:
        """The parts the references stand for, by the reference's id()."""
        wanted: dict[str, tuple[str, int, str | None]] = {}
        for part in parts:
            key, digest, size = _reference_of(part)
            wanted[key] = (digest, size, _file_key_of(part))
        keys = list(wanted)
        blobs = await asyncio.gather(*(self._get(key) for key in keys))
        decoded: dict[str, Part] = {}
        for key, data in zip(keys, blobs, strict=True):
            digest, size, file_key = wanted[key]
            if hashlib.sha256(data).hexdigest() != digest:
                raise ContentCorrupt(key)
            decoded[key] = _decode_part(data)
            if prefix is not None:
                self._remember(prefix, digest, key, size, file_key)
        return {id(part): decoded[_reference_of(part)[0]] for part in parts}

    async def _get(self, key: str) -> bytes:
        with self._lock:
            cached = self._cached.get(key)
            if cached is not None:
                self._cached.move_to_end(key)
        if cached is not None:
            return cached
        data = await self.content.get(key)
        self._cache(key, data)
        return data

    # --- bookkeeping ----------------------------------------------------------------------------

    def file_key(self, task_id: str, part: Part) -> str | None:
        """The key of the file object holding this part's bytes, if the task's stored content
        has one and this process has read or written it (every answer is read first)."""
        if part.raw is None:
            return None
        data = codec.encode(part)
        if len(data) <= self.threshold:
            return None
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            known = self._known.get((task_prefix(task_id), digest))
        return None if known is None else known[2]

    def _collect_task(self, task: Task, large: dict[int, tuple[str, bytes, Part]]) -> None:
        if task.status.message is not None:
            self._collect_parts(task.status.message.parts, large)
        for message in task.history or ():
            self._collect_parts(message.parts, large)
        for artifact in task.artifacts or ():
            self._collect_parts(artifact.parts, large)

    def _collect_event(self, event: TaskEvent, large: dict[int, tuple[str, bytes, Part]]) -> None:
        self._collect_parts(_event_parts(event), large)

    def _collect_parts(
        self, parts: Sequence[Part], large: dict[int, tuple[str, bytes, Part]]
    ) -> None:
        for part in parts:
            if id(part) in large:
                continue
            data = codec.encode(part)
            if len(data) > self.threshold or is_reference(part):
                large[id(part)] = (hashlib.sha256(data).hexdigest(), data, part)

    def _references_in_task(self, task: Task) -> list[Part]:
        found: list[Any] = []
        if task.status.message is not None:
            found += [p for p in task.status.message.parts if is_reference(p)]
        for message in task.history or ():
            found += [p for p in message.parts if is_reference(p)]
        for artifact in task.artifacts or ():
            found += [p for p in artifact.parts if is_reference(p)]
        return found

    def _remember(
        self, prefix: str, digest: str, key: str, size: int, file_key: str | None
    ) -> None:
        with self._lock:
            self._known[(prefix, digest)] = (key, size, file_key)
            self._known.move_to_end((prefix, digest))
            while len(self._known) > _MAX_KNOWN:
                self._known.popitem(last=False)

    def _has_known(self, prefix: str) -> bool:
        with self._lock:
            return any(known_prefix == prefix for known_prefix, _ in self._known)

    def _cache(self, key: str, data: bytes) -> None:
        if len(data) > self._cache_bytes:
            return
        with self._lock:
            if key in self._cached:
                return
            self._cached[key] = data
            self._cached_size += len(data)
            while self._cached_size > self._cache_bytes:
                _, dropped = self._cached.popitem(last=False)
                self._cached_size -= len(dropped)

    async def _expire(self, prefix: str, expires_at_ms: int) -> None:
        # After the write committed: failing here must not make its writer think it did not
        # (a retry would decide again on a finished task). The content then outlives the task.
        try:
            await self.content.expire(prefix, expires_at_ms)
        except StoreError as error:
            log.warning("content under %r will not expire with its task: %s", prefix, error)

    async def _discard(self, keys: list[str]) -> None:
        # Best effort: what is left lives under the task's prefix and expires with the task.
        with self._lock:
            for key in keys:
                dropped = self._cached.pop(key, None)
                if dropped is not None:
                    self._cached_size -= len(dropped)
        with contextlib.suppress(StoreError):
            await self.content.delete(keys)


def reference_part(key: str, digest: str, size: int, file_key: str | None = None) -> Part:
    reference: dict[str, Any] = {"key": key, "sha256": digest, "size": size}
    if file_key is not None:
        reference["file"] = file_key
    return Part(data={REFERENCE_KEY: reference})


def _reference_of(part: Part) -> tuple[str, str, int]:
    reference = part.data[REFERENCE_KEY]
    return reference["key"], reference["sha256"], reference["size"]


def _file_key_of(part: Part) -> str | None:
    file_key = part.data[REFERENCE_KEY].get("file")
    return file_key if isinstance(file_key, str) else None


def _event_parts(event: TaskEvent) -> list[Part]:
    return event_parts(event.payload)


def event_parts(payload: TaskStatusUpdateEvent | TaskArtifactUpdateEvent) -> list[Part]:
    if isinstance(payload, TaskArtifactUpdateEvent):
        return payload.artifact.parts
    if payload.status.message is not None:
        return payload.status.message.parts
    return []


def _map_parts(parts: list[Part], swap: Callable[[Part], Part]) -> list[Part]:
    mapped = [swap(part) for part in parts]
    return parts if all(a is b for a, b in zip(mapped, parts, strict=True)) else mapped


def _map_message(message: Message, swap: Callable[[Part], Part]) -> Message:
    parts = _map_parts(message.parts, swap)
    return message if parts is message.parts else msgspec.structs.replace(message, parts=parts)


def _map_status(status: TaskStatus, swap: Callable[[Part], Part]) -> TaskStatus:
    if status.message is None:
        return status
    message = _map_message(status.message, swap)
    return status if message is status.message else msgspec.structs.replace(status, message=message)


def _map_artifact(artifact: Artifact, swap: Callable[[Part], Part]) -> Artifact:
    parts = _map_parts(artifact.parts, swap)
    return artifact if parts is artifact.parts else msgspec.structs.replace(artifact, parts=parts)


def map_task(task: Task, swap: Callable[[Part], Part]) -> Task:
    status = _map_status(task.status, swap)
    history = None if task.history is None else [_map_message(m, swap) for m in task.history]
    artifacts = None if task.artifacts is None else [_map_artifact(a, swap) for a in task.artifacts]
    unchanged = (
        status is task.status
        and (
            history is None or all(a is b for a, b in zip(history, task.history or [], strict=True))
        )
        and (
            artifacts is None
            or all(a is b for a, b in zip(artifacts, task.artifacts or [], strict=True))
        )
    )
    if unchanged:
        return task
    return msgspec.structs.replace(
        task,
        status=status,
        history=task.history if history is None else history,
        artifacts=task.artifacts if artifacts is None else artifacts,
    )


def map_event(event: TaskEvent, swap: Callable[[Part], Part]) -> TaskEvent:
    payload = map_event_payload(event.payload, swap)
    return event if payload is event.payload else TaskEvent(seq=event.seq, payload=payload)


def map_event_payload(
    payload: TaskStatusUpdateEvent | TaskArtifactUpdateEvent, swap: Callable[[Part], Part]
) -> TaskStatusUpdateEvent | TaskArtifactUpdateEvent:
    if isinstance(payload, TaskArtifactUpdateEvent):
        artifact = _map_artifact(payload.artifact, swap)
        if artifact is payload.artifact:
            return payload
        return msgspec.structs.replace(payload, artifact=artifact)
    status = _map_status(payload.status, swap)
    if status is payload.status:
        return payload
    return msgspec.structs.replace(payload, status=status)


def _with_task(record: TaskRecord, task: Task) -> TaskRecord:
    # Not `record.next`: the version is the stored one.
    return TaskRecord(
        task=task,
        owner=record.owner,
        version=record.version,
        last_seq=record.last_seq,
        created_at_ms=record.created_at_ms,
        updated_at_ms=record.updated_at_ms,
        claim=record.claim,
        expires_at_ms=record.expires_at_ms,
        internal=record.internal,
    )
