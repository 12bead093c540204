"""The Store protocol on Google Cloud Firestore (google-cloud-firestore, AsyncClient).

Document layout: see `documents` and the adapter README ("Firestore store").

Writes are optimistic, with no locks: a write reads the task document (and the idempotency key
it claims), checks the version, then commits one atomic batch of the task, its new events and
the key, with preconditions that make the batch fail if anything it relied on changed in
between -- the task must still have the update time it was read with, and every event and key
document must not exist yet (`create`). So two writers of one task never both succeed, and a
task write, its events and its key land together or not at all. A transaction that reads the
task would hold a lock on it instead: contending writers then wait for each other (on the
emulator, 2 s for a lock timeout per conflict), where a failed precondition answers at once.

A write that follows this store's own last commit of the task (the version it committed, no key
to claim) needs no read: that commit's update time, version, last sequence number and expiry
are kept (`_KnownCommits`, per task, the most recent few hundred), and the batch is conditional
on that update time. Any write since, by anyone, changed it: the batch is refused and the write
is a `VersionConflict`, as after a read.

A commit can fail after it was applied (the response is lost and the client library retries
it): every write carries a fresh `writeId`, and a failed write whose id is found stored
counts as done.

A direct reply (a Message, no task) is an idempotency key document holding the reply's body
(`reply`) instead of a `taskId`: a key held by either is taken for both. An expired reply
(`visibleUntil` passed) frees its key at once; the next claim replaces its document.

Expired tasks (`expires_at_ms` passed) are invisible to reads and listings at once; the TTL
policy on `expireAt` deletes them (and their events, push configs and keys) later.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from google.api_core.exceptions import AlreadyExists, FailedPrecondition, NotFound
from google.cloud.firestore import (
    DELETE_FIELD,
    AsyncClient,
    AsyncCollectionReference,
    AsyncDocumentReference,
    AsyncQuery,
    AsyncWriteBatch,
    DocumentSnapshot,
    Query,
)
from google.cloud.firestore_v1.base_query import FieldFilter

from a2a_serverless.store import (
    IdempotencyKeyTaken,
    KeyHeld,
    StoredPushConfig,
    StoredReply,
    TaskAlreadyExists,
    TaskEvent,
    TaskPage,
    TaskQuery,
    TaskRecord,
    VersionConflict,
    check_event_sequence,
)
from a2a_serverless.store.base import (
    event_from_json,
    event_to_json,
    push_config_from_json,
    push_config_to_json,
    record_from_json,
    record_to_json,
    reply_from_json,
    reply_to_json,
)
from a2a_serverless.store.bookkeeping import DEAD_LETTERS_KEY
from a2a_serverless.store.content import (
    DEFAULT_SWEEP_AGE_S,
    DEFAULT_THRESHOLD,
    ContentStore,
    Offloader,
)

from .clients import LoopClients
from .documents import (
    MAX_COMMIT_BYTES,
    MAX_DOCUMENT_BYTES,
    MAX_VALUE_BYTES,
    MAX_WRITES_PER_COMMIT,
    NEVER_EXPIRES,
    Collections,
    FirestoreLimitExceeded,
    decode_body,
    document_id,
    document_size,
    encode_body,
    event_document_id,
    expire_at,
    key_document_id,
    visible_until,
)
from .outage import DEFAULT_CALL_TIMEOUT_S, unavailable_on_outage
from .url import DEFAULT_DATABASE, DEFAULT_PREFIX, FirestoreLocation

log = logging.getLogger(__name__)

Fields = dict[str, Any]
# Task documents per query of `scan_dead_letters`.
SCAN_BATCH = 300
# Tasks whose last commit by this store is kept, so that the next write of one needs no read.
KNOWN_COMMITS = 512
Snapshot = DocumentSnapshot[AsyncDocumentReference]


def _wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class FirestoreStore:
    """The Store protocol on one Firestore database, in the collections of one prefix.

    `project` None takes the project from the environment (GOOGLE_CLOUD_PROJECT or Application
    Default Credentials); `credentials` None uses Application Default Credentials, or none
    when FIRESTORE_EMULATOR_HOST points at the emulator. `clock` (milliseconds) decides expiry.
    `call_timeout_s` bounds each call, the client's retries included; an outage raises the core's
    `StoreUnavailable`.

    Safe to share between tasks, threads and event loops: each event loop gets its own
    AsyncClient (see `clients`). `close()` closes the calling loop's client and asks the other
    running loops to close theirs; call it when done with the store.
    """

    # Its name in spans (db.system.name, a2a_serverless/tracing.py).
    db_system = "gcp.firestore"

    def __init__(
        self,
        *,
        project: str | None = None,
        database: str = DEFAULT_DATABASE,
        prefix: str = DEFAULT_PREFIX,
        credentials: Any = None,
        clock: Callable[[], int] = _wall_clock_ms,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        content: ContentStore | None = None,
        offload_threshold: int = DEFAULT_THRESHOLD,
    ) -> None:
        # Each Store call's bound, retries included: past it, or on an outage, the call raises
        # StoreUnavailable (see `outage`).
        self.call_timeout_s = call_timeout_s
        self.location = FirestoreLocation(project=project, database=database, prefix=prefix)
        self.collections = Collections(prefix)
        self._clock = clock
        self._clients = LoopClients(project=project, database=database, credentials=credentials)
        # Parts above the threshold in Cloud Storage (a2a_serverless.store.content); the
        # content calls are outside `call_timeout_s`, which bounds each Firestore call.
        self.offloader = (
            None if content is None else Offloader(content, threshold=offload_threshold)
        )
        self._known = _KnownCommits(KNOWN_COMMITS)

    def __repr__(self) -> str:
        project = self._clients.project or "<from environment>"
        return (
            f"FirestoreStore(project={project!r}, database={self.location.database!r}, "
            f"prefix={self.location.prefix!r})"
        )

    # --- references ----------------------------------------------------------------------------

    def _task_ref(self, client: AsyncClient, task_id: str) -> AsyncDocumentReference:
        return client.collection(self.collections.tasks).document(document_id(task_id))

    def _events(self, client: AsyncClient, task_id: str) -> AsyncCollectionReference:
        events: AsyncCollectionReference = self._task_ref(client, task_id).collection(
            self.collections.events
        )
        return events

    def _push_configs(self, client: AsyncClient, task_id: str) -> AsyncCollectionReference:
        configs: AsyncCollectionReference = self._task_ref(client, task_id).collection(
            self.collections.push_configs
        )
        return configs

    def _key_ref(self, client: AsyncClient, key: str) -> AsyncDocumentReference:
        return client.collection(self.collections.idempotency_keys).document(key_document_id(key))

    # --- writes --------------------------------------------------------------------------------

    # --- the Store methods: large parts through the offloader, the rest in Firestore -----------

    async def create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
        free_key: str | None = None,
    ) -> None:
        async def write(record: TaskRecord, events: Sequence[TaskEvent]) -> None:
            await self._create_task(
                record, events, idempotency_key=idempotency_key, free_key=free_key
            )

        if self.offloader is None:
            await write(record, events)
        else:
            await self.offloader.write(record, events, write)

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        async def write(record: TaskRecord, events: Sequence[TaskEvent]) -> None:
            await self._update_task(record, events, idempotency_key=idempotency_key)

        if self.offloader is None:
            await write(record, events)
        else:
            await self.offloader.write(record, events, write)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        record = await self._get_task(task_id)
        if record is None or self.offloader is None:
            return record
        return await self.offloader.restore_record(record)

    async def sweep_content(self, older_than_s: float = DEFAULT_SWEEP_AGE_S) -> list[str] | None:
        """Delete the bucket's content of tasks that do not exist, once it is `older_than_s`
        old (`Offloader.sweep`; the `a2a-serverless content sweep` command); the keys
        deleted, None for a store without a content bucket."""
        if self.offloader is None:
            return None

        async def exists(task_id: str) -> bool:
            return await self._get_task(task_id) is not None

        return await self.offloader.sweep(exists, older_than_s=older_than_s)

    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        page = await self._list_tasks(query)
        if self.offloader is None:
            return page
        records = await self.offloader.restore_records(page.records)
        return TaskPage(records=records, total_size=page.total_size, has_more=page.has_more)

    async def read_events(
        self, task_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[TaskEvent]:
        events = await self._read_events(task_id, after_seq, limit)
        if self.offloader is None:
            return events
        return await self.offloader.restore_events(task_id, events)

    async def scan_dead_letters(self, after: str | None, limit: int) -> list[TaskRecord]:
        """`DeadLetterScan`, for the operator command (see `_scan_dead_letters`)."""
        records = await self._scan_dead_letters(after, limit)
        if self.offloader is None:
            return records
        return await self.offloader.restore_records(records)

    async def put_reply(self, reply: StoredReply) -> None:
        if self.offloader is None:
            await self._put_reply(reply)
        else:
            await self.offloader.write_reply(reply, self._put_reply)

    async def find_reply(self, key: str) -> StoredReply | None:
        reply = await self._find_reply(key)
        if reply is None or self.offloader is None:
            return reply
        return await self.offloader.restore_reply(reply)

    @unavailable_on_outage
    async def _create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
        free_key: str | None = None,
    ) -> None:
        check_event_sequence(record, 0, events)
        client = self._clients.current()
        write = _Write(self, client, record, events, idempotency_key)
        free_ref = None if free_key is None else self._key_ref(client, free_key)
        refs = [ref for ref in (write.key_ref, free_ref) if ref is not None]
        if refs:
            # Both keys in one round trip. The key is checked first: a retried create repeats
            # the task id and the key, and the key is what says which task the first attempt
            # made. The free key is read, not held by a precondition (a batch has none that
            # writes nothing), as its look-up before the create was: the service's free key is
            # one it no longer writes (its legacy key).
            snapshots = {
                snapshot.reference.path: snapshot async for snapshot in client.get_all(refs)
            }
            if write.key_ref is not None:
                self._check_key(write, snapshots[write.key_ref.path])
            if free_ref is not None and self._key_holder(snapshots[free_ref.path]) is not None:
                assert free_key is not None
                raise KeyHeld(free_key)
        batch = client.batch()
        batch.create(write.task_ref, write.task_fields)
        write.add_events_and_key(batch)
        update_time = await self._commit(write, batch, creating=True)
        self._known.keep(write, update_time)

    @unavailable_on_outage
    async def _update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        client = self._clients.current()
        write = _Write(self, client, record, events, idempotency_key)
        # Taken, not looked at: whatever becomes of this write, the commit it follows is no
        # longer the task's last one by this store.
        base = self._known.take(record.task_id, record.version - 1)
        if base is None or write.key_ref is not None:
            base = await self._read_base(client, write)
        check_event_sequence(record, base.last_seq, events)

        fields = dict(write.task_fields)
        if record.expires_at_ms is None:
            fields["expireAt"] = DELETE_FIELD
        batch = client.batch()
        # Applied only if the task is still the one the version was checked on (read, or
        # committed by this store): the version check's guarantee.
        batch.update(
            write.task_ref, fields, option=client.write_option(last_update_time=base.update_time)
        )
        write.add_events_and_key(batch)
        update_time = await self._commit(write, batch, creating=False)
        self._known.keep(write, update_time)
        if record.expires_at_ms is not None and base.visible_until != record.expires_at_ms:
            await self._stamp_expiry(client, record, base.last_seq)

    async def _read_base(self, client: AsyncClient, write: _Write) -> _Commit:
        """The task as stored, which `write` must follow (its version the one before), read
        with the key the write claims; `VersionConflict` or `IdempotencyKeyTaken` if not."""
        record = write.record
        stored, claimed = await self._read_task_and_key(client, write)
        if claimed is not None:
            self._check_key(write, claimed)
        if not stored.exists or stored.get("version") != record.version - 1:
            raise VersionConflict(record.task_id, record.version - 1)
        return _Commit(
            version=record.version - 1,
            last_seq=stored.get("lastSeq"),
            visible_until=stored.get("visibleUntil"),
            update_time=stored.update_time,
        )

    async def _read_task_and_key(
        self, client: AsyncClient, write: _Write
    ) -> tuple[Snapshot, Snapshot | None]:
        """The task's document and, if the write claims a key, the key's, in one round trip."""
        refs = [write.task_ref] if write.key_ref is None else [write.task_ref, write.key_ref]
        snapshots = {snapshot.reference.path: snapshot async for snapshot in client.get_all(refs)}
        claimed = None if write.key_ref is None else snapshots[write.key_ref.path]
        return snapshots[write.task_ref.path], claimed

    async def _commit(self, write: _Write, batch: AsyncWriteBatch, *, creating: bool) -> Any:
        """Commit `batch` (the task's document its first write); the task's update time."""
        try:
            results = await batch.commit()
        except (AlreadyExists, FailedPrecondition, NotFound):
            return await self._explain_refused_write(write, creating=creating)
        return results[0].update_time

    async def _explain_refused_write(self, write: _Write, *, creating: bool) -> Any:
        """The task's update time if the refused write is in fact stored; else raise what
        refused it."""
        stored, claimed = await self._read_task_and_key(write.client, write)
        if stored.exists and stored.get("writeId") == write.write_id:
            # The commit was applied, its answer lost, and the library's retry refused.
            return stored.update_time
        if claimed is not None:
            self._check_key(write, claimed)
        if creating:
            raise TaskAlreadyExists(write.record.task_id)
        raise VersionConflict(write.record.task_id, write.record.version - 1)

    def _check_key(self, write: _Write, claimed: Snapshot) -> None:
        """Raise `IdempotencyKeyTaken` if the key the write claims is held; note an expired
        reply's document, which the write then replaces."""
        assert write.key is not None
        holder = self._key_holder(claimed)
        if holder is not None:
            raise IdempotencyKeyTaken(write.key, holder)
        write.stale_key = claimed.update_time if claimed.exists else None

    def _key_holder(self, snapshot: Snapshot) -> str | None:
        """Who holds a key: its task's id, "" for a live direct reply, None when it is free."""
        if not snapshot.exists:
            return None
        fields = snapshot.to_dict() or {}
        if "reply" in fields:
            return "" if fields.get("visibleUntil", 0) > self._clock() else None
        return str(fields.get("taskId"))

    async def _stamp_expiry(self, client: AsyncClient, record: TaskRecord, upto_seq: int) -> None:
        """Give the task's earlier events, its push configs and its keys the task's `expireAt`.

        A TTL policy deletes documents one by one, never a task's subcollections with it, so
        each document carries its own expiry. Events and keys written together with the expiry
        have it already; this stamps the ones written before. Done after the task write, in
        batches of up to 500: if it fails, the task write stands, the failure is logged and
        those documents stay until deleted by other means.
        """
        assert record.expires_at_ms is not None
        stamp = {"expireAt": expire_at(record.expires_at_ms)}
        events = self._events(client, record.task_id)
        refs = [events.document(event_document_id(seq)) for seq in range(1, upto_seq + 1)]
        try:
            configs = self._push_configs(client, record.task_id).select(["configId"])
            refs += [snapshot.reference async for snapshot in configs.stream()]
            keys = (
                client.collection(self.collections.idempotency_keys)
                .where(filter=FieldFilter("taskId", "==", record.task_id))
                .select(["taskId"])
            )
            refs += [snapshot.reference async for snapshot in keys.stream()]
            for start in range(0, len(refs), MAX_WRITES_PER_COMMIT):
                batch = client.batch()
                for ref in refs[start : start + MAX_WRITES_PER_COMMIT]:
                    batch.update(ref, stamp)
                await batch.commit()
        except Exception:
            log.warning(
                "task %s: could not set expireAt on its earlier events, push configs and keys; "
                "the TTL policy will not delete those",
                record.task_id,
                exc_info=True,
            )

    # --- reads ---------------------------------------------------------------------------------

    @unavailable_on_outage
    async def _get_task(self, task_id: str) -> TaskRecord | None:
        client = self._clients.current()
        snapshot = await self._task_ref(client, task_id).get()
        if not snapshot.exists or snapshot.get("visibleUntil") <= self._clock():
            return None
        record = record_from_json(decode_body(snapshot.get("body")))
        # A hashed document id (see documents.document_id) names exactly one task id.
        return record if record.task_id == task_id else None

    @unavailable_on_outage
    async def _list_tasks(self, query: TaskQuery) -> TaskPage:
        client = self._clients.current()
        matching = self._list_query(client, query)
        limit = max(query.limit, 0)
        page = matching
        if query.after is not None:
            # A cursor on (updatedAt, taskId), the first two orderings: strictly after it.
            page = page.start_after(list(query.after))
        # One record past the page tells whether there is a next page.
        page = page.limit(limit + 1)

        async def fetch() -> list[Snapshot]:
            return [snapshot async for snapshot in page.stream()]

        # The count ignores the cursor and the limit. Firestore counts in the index, without
        # reading the documents. It runs alongside the page query, not in one snapshot with it:
        # a write landing in between can make the two disagree by that write.
        # (Any: the library annotates count() as returning a class, not an instance.)
        counting: Any = matching.count(alias="total")
        snapshots, counted = await asyncio.gather(fetch(), counting.get())
        return TaskPage(
            records=[record_from_json(decode_body(s.get("body"))) for s in snapshots[:limit]],
            total_size=int(counted[0][0].value),
            has_more=len(snapshots) > limit,
        )

    def _list_query(self, client: AsyncClient, query: TaskQuery) -> AsyncQuery:
        """The listing's filters and order. firestore.indexes.json has an index for each shape:
        owner, then contextId and/or state when given, then the three orderings."""
        tasks = client.collection(self.collections.tasks)
        matching = tasks.where(filter=FieldFilter("owner", "==", query.owner))
        if query.context_id is not None:
            matching = matching.where(filter=FieldFilter("contextId", "==", query.context_id))
        if query.state is not None:
            matching = matching.where(filter=FieldFilter("state", "==", query.state))
        matching = matching.where(filter=FieldFilter("visibleUntil", ">", self._clock()))
        if query.updated_after_ms is not None:
            matching = matching.where(filter=FieldFilter("updatedAt", ">=", query.updated_after_ms))
        # Ordered by visibleUntil last, explicitly: it changes nothing (task ids are unique)
        # but fixes the index a query with two inequality filters needs.
        return (
            matching.order_by("updatedAt", direction=Query.DESCENDING)
            .order_by("taskId", direction=Query.DESCENDING)
            .order_by("visibleUntil", direction=Query.DESCENDING)
        )

    @unavailable_on_outage
    async def _scan_dead_letters(self, after: str | None, limit: int) -> list[TaskRecord]:
        """`DeadLetterScan`, for the operator command (the running store never calls it).

        Task documents in `taskId` order after `after` (the single-field index; no composite
        index needed), read with a projection of `taskId`, `deadLetters` and `visibleUntil`,
        `SCAN_BATCH` at a time; those whose `deadLetters` (the count every task write stores)
        is above 0, or that have none (written before it existed: their body decides), are
        read whole and kept if visible and holding dead letters, until `limit` are found.
        Firestore bills a read per document the projection returns, so a page reads each task
        document from `after` up to its last record once, bodies only for candidates; the
        operator command's pages follow on from one another, so a whole listing reads every
        task document once.
        """
        if limit <= 0:
            return []
        client = self._clients.current()
        tasks = client.collection(self.collections.tasks)
        now_ms = self._clock()
        found: list[TaskRecord] = []
        cursor = after
        while len(found) < limit:
            query = tasks.order_by("taskId").select(["taskId", "deadLetters", "visibleUntil"])
            if cursor is not None:
                query = query.start_after({"taskId": cursor})
            batch = [snapshot async for snapshot in query.limit(SCAN_BATCH).stream()]
            candidates = [
                snapshot.reference
                for snapshot in batch
                if _may_hold_letters(snapshot.to_dict() or {}, now_ms)
            ]
            # In task id order, as many at a time as records are still missing.
            while candidates and len(found) < limit:
                chunk = candidates[: limit - len(found)]
                candidates = candidates[len(chunk) :]
                records: dict[str, TaskRecord] = {}
                async for snapshot in client.get_all(chunk):
                    if not snapshot.exists or snapshot.get("visibleUntil") <= now_ms:
                        continue
                    record = record_from_json(decode_body(snapshot.get("body")))
                    if record.internal.get(DEAD_LETTERS_KEY):
                        records[snapshot.reference.path] = record
                found += [records[ref.path] for ref in chunk if ref.path in records]
            if len(batch) < SCAN_BATCH:
                break
            cursor = str(batch[-1].get("taskId"))
        return found

    @unavailable_on_outage
    async def _read_events(
        self, task_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[TaskEvent]:
        if limit is not None and limit <= 0:
            return []
        client = self._clients.current()
        events = self._events(client, task_id).where(filter=FieldFilter("seq", ">", after_seq))
        ordered = events.order_by("seq")
        if limit is not None:
            ordered = ordered.limit(limit)
        return [
            event_from_json(snapshot.get("seq"), decode_body(snapshot.get("body")))
            async for snapshot in ordered.stream()
        ]

    @unavailable_on_outage
    async def find_idempotency_key(self, key: str) -> str | None:
        client = self._clients.current()
        snapshot = await self._key_ref(client, key).get()
        fields = snapshot.to_dict() or {} if snapshot.exists else {}
        # A key holding a direct reply has no taskId.
        return str(fields["taskId"]) if "taskId" in fields else None

    # --- direct replies ------------------------------------------------------------------------

    @unavailable_on_outage
    async def _put_reply(self, reply: StoredReply) -> None:
        client = self._clients.current()
        ref = self._key_ref(client, reply.key)
        fields: Fields = {
            "key": reply.key,
            "createdAt": reply.created_at_ms,
            "visibleUntil": visible_until(reply.expires_at_ms),
            "reply": encode_body(reply_to_json(reply)),
        }
        if reply.expires_at_ms is not None:
            fields["expireAt"] = expire_at(reply.expires_at_ms)
        size = document_size(ref.path, fields)
        if size > MAX_DOCUMENT_BYTES:
            raise FirestoreLimitExceeded(reply.key, "reply size", size, MAX_DOCUMENT_BYTES)
        try:
            await ref.create(fields)
            return
        except AlreadyExists:
            pass
        claimed = await ref.get()
        holder = self._key_holder(claimed)
        if holder is None:
            # An expired reply: replaced, unless another claim replaced it first.
            try:
                option = client.write_option(last_update_time=claimed.update_time)
                if reply.expires_at_ms is None:
                    fields["expireAt"] = DELETE_FIELD
                await ref.update(fields, option=option)
                return
            except (FailedPrecondition, NotFound):
                holder = self._key_holder(await ref.get()) or ""
        raise IdempotencyKeyTaken(reply.key, holder)

    @unavailable_on_outage
    async def _find_reply(self, key: str) -> StoredReply | None:
        client = self._clients.current()
        snapshot = await self._key_ref(client, key).get()
        fields = snapshot.to_dict() or {} if snapshot.exists else {}
        if "reply" not in fields or fields.get("visibleUntil", 0) <= self._clock():
            return None
        return reply_from_json(decode_body(fields["reply"]))

    # --- push notification configs -------------------------------------------------------------

    @unavailable_on_outage
    async def put_push_config(self, config: StoredPushConfig) -> None:
        config_id = config.config.id
        if config_id is None:
            # The key would be ambiguous; the caller assigns ids (A2A's default is the task id).
            raise ValueError("a stored push notification config needs an id")
        client = self._clients.current()
        fields: Fields = {
            "taskId": config.task_id,
            "configId": config_id,
            "owner": config.owner,
            "body": push_config_to_json(config),
        }
        # A config added to a task that already expires expires with it.
        task = await self._task_ref(client, config.task_id).get(field_paths=["expireAt"])
        expiry = task.to_dict() or {}
        if "expireAt" in expiry:
            fields["expireAt"] = expiry["expireAt"]
        await (
            self._push_configs(client, config.task_id).document(document_id(config_id)).set(fields)
        )

    @unavailable_on_outage
    async def get_push_config(self, task_id: str, config_id: str) -> StoredPushConfig | None:
        client = self._clients.current()
        ref = self._push_configs(client, task_id).document(document_id(config_id))
        snapshot = await ref.get()
        return push_config_from_json(snapshot.get("body")) if snapshot.exists else None

    @unavailable_on_outage
    async def list_push_configs(self, task_id: str) -> list[StoredPushConfig]:
        client = self._clients.current()
        ordered = self._push_configs(client, task_id).order_by("configId")
        return [push_config_from_json(s.get("body")) async for s in ordered.stream()]

    @unavailable_on_outage
    async def delete_push_config(self, task_id: str, config_id: str) -> bool:
        client = self._clients.current()
        ref = self._push_configs(client, task_id).document(document_id(config_id))
        try:
            await ref.delete(option=client.write_option(exists=True))
        except NotFound:
            return False
        return True

    async def close(self) -> None:
        await self._clients.close()


class _Commit(NamedTuple):
    """What a task write must follow: the task document at one version, as this store committed
    it or read it."""

    version: int
    last_seq: int
    # The document's `visibleUntil` (documents.visible_until of the record's expiry).
    visible_until: int
    # Its update time, which the next write's precondition names.
    update_time: Any


class _KnownCommits:
    """The last commit of each task this store wrote, the `capacity` most recent tasks: what
    its next write follows, unless another writer wrote in between (which that write's
    precondition finds). Shared by the store's event loops and threads."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._commits: OrderedDict[str, _Commit] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, write: _Write, update_time: Any) -> None:
        record = write.record
        commit = _Commit(
            version=record.version,
            last_seq=record.last_seq,
            visible_until=write.task_fields["visibleUntil"],
            update_time=update_time,
        )
        with self._lock:
            self._commits[record.task_id] = commit
            self._commits.move_to_end(record.task_id)
            if len(self._commits) > self._capacity:
                self._commits.popitem(last=False)

    def take(self, task_id: str, version: int) -> _Commit | None:
        """The task's last commit here if it was at `version`, and forget it either way."""
        with self._lock:
            commit = self._commits.pop(task_id, None)
        return commit if commit is not None and commit.version == version else None


def _may_hold_letters(fields: Fields, now_ms: int) -> bool:
    """A task document (its projection) to read whole for `scan_dead_letters`."""
    if fields.get("visibleUntil", NEVER_EXPIRES) <= now_ms:
        return False
    count = fields.get("deadLetters")
    # None: written before the field existed, the body decides.
    return count is None or count > 0


class _Write:
    """The documents one task write commits, checked against Firestore's limits."""

    def __init__(
        self,
        store: FirestoreStore,
        client: AsyncClient,
        record: TaskRecord,
        events: Sequence[TaskEvent],
        key: str | None,
    ) -> None:
        self.client = client
        self.record = record
        self.key = key
        # The update time of an expired reply's document under the key, which the write replaces.
        self.stale_key: Any = None
        self.write_id = uuid.uuid4().hex
        self.task_ref = store._task_ref(client, record.task_id)
        self.key_ref = None if key is None else store._key_ref(client, key)
        expiry: Fields = {}
        if record.expires_at_ms is not None:
            expiry["expireAt"] = expire_at(record.expires_at_ms)
        self.task_fields: Fields = {
            "taskId": record.task_id,
            "owner": record.owner,
            "contextId": record.context_id,
            "state": record.state,
            "version": record.version,
            "lastSeq": record.last_seq,
            "createdAt": record.created_at_ms,
            "updatedAt": record.updated_at_ms,
            "visibleUntil": visible_until(record.expires_at_ms),
            # How many dead letters the record holds, for `scan_dead_letters`.
            "deadLetters": len(record.internal.get(DEAD_LETTERS_KEY) or ()),
            "writeId": self.write_id,
            "body": encode_body(record_to_json(record)),
            **expiry,
        }
        events_collection = store._events(client, record.task_id)
        self.event_docs = [
            (
                events_collection.document(event_document_id(event.seq)),
                {"seq": event.seq, "body": encode_body(event_to_json(event)), **expiry},
            )
            for event in events
        ]
        self.key_fields: Fields = {}
        if key is not None:
            self.key_fields = {
                "key": key,
                "taskId": record.task_id,
                "createdAt": store._clock(),
                **expiry,
            }
        self._check_limits()

    def _check_limits(self) -> None:
        task_id = self.record.task_id
        docs = [("task document", self.task_ref, self.task_fields)]
        docs += [("event document", ref, fields) for ref, fields in self.event_docs]
        if self.key_ref is not None:
            docs.append(("idempotency key document", self.key_ref, self.key_fields))
        if len(docs) > MAX_WRITES_PER_COMMIT:
            raise FirestoreLimitExceeded(
                task_id, "writes per commit", len(docs), MAX_WRITES_PER_COMMIT
            )
        total = 0
        for what, ref, fields in docs:
            value = fields.get("body", b"")
            body = len(value.encode() if isinstance(value, str) else value)
            if body > MAX_VALUE_BYTES:
                raise FirestoreLimitExceeded(task_id, f"{what} body", body, MAX_VALUE_BYTES)
            size = document_size(ref.path, fields)
            if size > MAX_DOCUMENT_BYTES:
                raise FirestoreLimitExceeded(task_id, f"{what} size", size, MAX_DOCUMENT_BYTES)
            total += size
        if total > MAX_COMMIT_BYTES:
            raise FirestoreLimitExceeded(task_id, "commit size", total, MAX_COMMIT_BYTES)

    def add_events_and_key(self, batch: AsyncWriteBatch) -> None:
        for ref, fields in self.event_docs:
            batch.create(ref, fields)
        if self.key_ref is None:
            return
        if self.stale_key is None:
            batch.create(self.key_ref, self.key_fields)
        else:
            # An update with a precondition (a set takes none), clearing the reply's fields.
            option = self.client.write_option(last_update_time=self.stale_key)
            fields = {"reply": DELETE_FIELD, "visibleUntil": DELETE_FIELD, **self.key_fields}
            if "expireAt" not in fields:
                fields["expireAt"] = DELETE_FIELD
            batch.update(self.key_ref, fields, option=option)
