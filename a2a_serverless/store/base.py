"""The Store protocol: where every piece of state lives between stateless invocations.

A Store keeps four things:
- task records: the A2A Task plus what the kit needs around it (owner, version, timestamps,
  the worker's claim on the current step);
- an append-only event log per task: every status and artifact event with a gap-free sequence
  number, so any process can replay a task from any point;
- push notification configs, per task;
- idempotency keys, mapping a client's request (caller, messageId and a fingerprint of the
  rest: `service.idempotency_key`) to the task it created or continued, or to the direct
  reply (a Message, no task) the agent answered it with (`StoredReply`). Keys are opaque here.

Two rules every implementation keeps, and the contract suite (`tests/contract/`) checks:
- a task write is conditional on the version the writer read; a stale writer gets
  `VersionConflict` and nothing is written (no lost update);
- a task write and the events it produces land together or not at all, and an idempotency
  key given with a write is claimed in the same atomic step (`IdempotencyKeyTaken` if taken);
  a create may name a second key that must be free too (`free_key`: `KeyHeld` if it is not),
  checked in the same request, so a create needs no look-up of the keys before it;
- tasks and direct replies share one key space: a key held by either is taken for both, until
  what holds it expires.

Records cross the seam as the frozen Structs below (msgspec's: `msgspec.structs.replace` copies
one with fields changed). `record_to_json` / `event_to_json` and their inverses are shared by
every adapter so the stored shapes are the same everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import msgspec

from .. import codec
from ..exceptions import A2AServerlessError, ConfigurationError, LimitError, UnavailableError
from ..hashes import sha256
from ..models import (
    Message,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskStatusUpdateEvent,
)
from ..models import TaskEventPayload as TaskEventPayload  # what an event log holds
from ..sentinel import Sentinel
from . import legacy
from .bookkeeping import (
    DeadLetteredNotification,
    PushCursor,
    TurnInfo,
    dead_letters_of,
    push_cursor_of,
    push_cursors_of,
    step_of,
    turn_done_of,
    turn_of,
)


class StoreError(A2AServerlessError):
    """Base class of the errors a Store raises on purpose."""


class StoreUnavailable(StoreError, UnavailableError):
    """The store could not be reached or would not serve the request (a network error, an
    outage, throttling past retries): nothing is known to have been written, and the same
    request may succeed later. The transports answer it with HTTP 503 and `Retry-After`; a worker
    lets its job fail so the queue delivers it again."""


class StoreOpenError(StoreError, ConfigurationError):
    """The store a URL names cannot be opened as one: a missing file where none may be made, a
    directory, a file that is no store, a cloud store without its region. A setting to fix,
    not an outage (a ValueError too, as any bad setting is); the message names the store."""


class StoreLimitExceeded(StoreError, LimitError):
    """A write would break one of the store's own limits (a DynamoDB item's 400 KB, a Firestore
    document's 1 MiB, a transaction's size): nothing was written. Like `max_task_bytes`, a
    client's message over it is refused (-32602 / HTTP 413) and agent output over it fails the
    task saying why. `store_limit` names the limit ("DynamoDB's item"), `size` is what the
    write needed and `maximum` what the store takes."""

    def __init__(self, message: str, *, store_limit: str, size: int, maximum: int) -> None:
        super().__init__(message)
        self.store_limit = store_limit
        self.size = size
        self.maximum = maximum


class StoreFull(StoreLimitExceeded):
    """A new task would take the store past the number of tasks it keeps, and none it keeps
    may go to make room (MemoryStore's `max_tasks`, when every kept task is still active):
    nothing was written. `size` and `maximum` count tasks, not bytes. A client's message is
    refused with 503 (-32603 over JSON-RPC) and may be sent again once tasks have finished."""


class TaskAlreadyExists(StoreError):
    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id!r} already exists")
        self.task_id = task_id


class VersionConflict(StoreError):
    """The task changed since the writer read it; re-read and decide again."""

    def __init__(self, task_id: str, expected_version: int) -> None:
        super().__init__(f"task {task_id!r} is no longer at version {expected_version}")
        self.task_id = task_id
        self.expected_version = expected_version


class IdempotencyKeyTaken(StoreError):
    """The idempotency key already names a task: the request is a retry of an earlier one.

    `task_id` is "" when the key holds a direct reply (`StoredReply`) rather than a task.
    """

    def __init__(self, key: str, task_id: str) -> None:
        super().__init__(f"idempotency key already used for task {task_id!r}")
        self.key = key
        self.task_id = task_id


class KeyHeld(StoreError):
    """A create's `free_key` is held (by a task, or a direct reply that has not expired):
    nothing was written. Unlike `IdempotencyKeyTaken` it says nothing of the holder: the
    caller looks the key up if it needs to know."""

    def __init__(self, key: str) -> None:
        super().__init__("a key the create needed free is held")
        self.key = key


# `TaskRecord.next`'s "leave this field as it is" (None is a value some fields take).
_UNCHANGED: Any = Sentinel("unchanged")


class WorkerClaim(msgspec.Struct, frozen=True):
    """Which step of a task a worker is running, so a redelivered job does not run it twice.

    `step` names the message that started the step (its messageId). A claim whose lease has
    expired may be taken over: the worker that held it is presumed dead.
    """

    step: str
    worker_id: str
    lease_until_ms: int
    attempt: int = 1


class TaskRecord(msgspec.Struct, frozen=True):
    task: Task
    owner: str
    version: int
    last_seq: int
    created_at_ms: int
    updated_at_ms: int
    claim: WorkerClaim | None = None
    # Set once the task is terminal, when the deployment keeps finished tasks for a limited time.
    expires_at_ms: int | None = None
    # What the kit keeps with the task but never shows to clients, as stored (a JSON object,
    # kept as it is): read it through the typed views below, write it through the journal's
    # Change (`bookkeeping.py` knows its keys).
    internal: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def task_id(self) -> str:
        return self.task.id

    @property
    def context_id(self) -> str:
        return self.task.context_id

    @property
    def state(self) -> str:
        return self.task.status.state.value

    @property
    def step(self) -> str | None:
        """The current turn's step: the messageId of the message that began it, made unique
        by its place in the history where messageIds are not deduplicated (`TurnInfo.step`)."""
        return step_of(self.internal)

    @property
    def turn(self) -> TurnInfo | None:
        """What started the current turn (None before any)."""
        return turn_of(self.internal)

    @property
    def turn_done(self) -> str | None:
        """The step of the last turn whose end was written."""
        return turn_done_of(self.internal)

    def push_cursor(self, config_id: str) -> PushCursor:
        """Where the notifications to push config `config_id` stand."""
        return push_cursor_of(self.internal, config_id)

    @property
    def push_cursors(self) -> dict[str, PushCursor]:
        """The cursor of every push config the task keeps delivery bookkeeping for."""
        return push_cursors_of(self.internal)

    @property
    def dead_letters(self) -> list[DeadLetteredNotification]:
        """The task's notifications that were given up on, oldest first."""
        return dead_letters_of(self.internal)

    def next(
        self,
        *,
        task: Task = _UNCHANGED,
        owner: str = _UNCHANGED,
        last_seq: int = _UNCHANGED,
        created_at_ms: int = _UNCHANGED,
        updated_at_ms: int = _UNCHANGED,
        claim: WorkerClaim | None = _UNCHANGED,
        expires_at_ms: int | None = _UNCHANGED,
        internal: dict[str, Any] = _UNCHANGED,
    ) -> TaskRecord:
        """A copy for the next write: version bumped, other fields as given."""
        # The constructor, not `msgspec.structs.replace`: every write makes one.
        return TaskRecord(
            task=self.task if task is _UNCHANGED else task,
            owner=self.owner if owner is _UNCHANGED else owner,
            version=self.version + 1,
            last_seq=self.last_seq if last_seq is _UNCHANGED else last_seq,
            created_at_ms=self.created_at_ms if created_at_ms is _UNCHANGED else created_at_ms,
            updated_at_ms=self.updated_at_ms if updated_at_ms is _UNCHANGED else updated_at_ms,
            claim=self.claim if claim is _UNCHANGED else claim,
            expires_at_ms=self.expires_at_ms if expires_at_ms is _UNCHANGED else expires_at_ms,
            internal=self.internal if internal is _UNCHANGED else internal,
        )


class TaskEvent(msgspec.Struct, frozen=True):
    seq: int
    payload: TaskEventPayload

    @property
    def is_final(self) -> bool:
        """A status whose state ends the stream (`TaskState.ends_stream`)."""
        payload = self.payload
        return isinstance(payload, TaskStatusUpdateEvent) and payload.status.state.ends_stream


class TaskQuery(msgspec.Struct, frozen=True):
    """What `tasks/list` asks of a Store. Results are newest update first."""

    owner: str
    context_id: str | None = None
    state: str | None = None
    updated_after_ms: int | None = None
    limit: int = 50
    # Start after this (updated_at_ms, task_id) position of the ordering, exclusive.
    after: tuple[int, str] | None = None


class TaskPage(msgspec.Struct, frozen=True):
    records: list[TaskRecord]
    total_size: int
    has_more: bool


class StoredPushConfig(msgspec.Struct, frozen=True):
    task_id: str
    owner: str
    # Its `id` is set (the store's key) and its `task_id` is this record's.
    config: TaskPushNotificationConfig
    # The A2A version the config was registered in: its webhooks' bodies are written in it
    # ("0.3": the Task; "1.0": a StreamResponse).
    protocol: str = "0.3"


class StoredReply(msgspec.Struct, frozen=True):
    """A direct reply: the Message an agent answered a message with, without making a task.

    Kept under the message's idempotency key so a retry gets the same reply without the agent
    being asked again. The key names the whole request; `request_digest` (`message_digest`)
    and `context_id` tell a retry apart under a key written before it did (caller and
    messageId alone), without storing the request itself.
    """

    key: str
    owner: str
    request_digest: str
    reply: Message
    created_at_ms: int
    # Like a finished task's: None keeps the reply (and its key) for as long as the store lives.
    expires_at_ms: int | None = None

    @property
    def context_id(self) -> str | None:
        return self.reply.context_id


def message_digest(message: Message) -> str:
    """A digest of a message's parts (JSON with sorted keys), to compare a retry with its first
    copy. Key order inside a part's data does not count, as with comparing the parts' dumps.
    Taken over the parts' old form (`legacy.old_part`), as the digests already stored were."""
    dumped = [legacy.old_part(part.model_dump()) for part in message.parts]
    return sha256(json.dumps(dumped, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@runtime_checkable
class Store(Protocol):
    async def create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
        free_key: str | None = None,
    ) -> None:
        """Insert a new task (and its first events). `TaskAlreadyExists`, `IdempotencyKeyTaken`.

        `free_key`: a key that must be held by no task and no live direct reply (as for a
        claim of `idempotency_key`), checked by the same call and left as it is; `KeyHeld`
        (nothing written) if it is held. Atomic with the write where the store can check an
        item without writing it (else read just before, as a look-up would be: meant for a
        key that nothing writes any more, such as the service's legacy one). Either error may
        come when both keys are held."""
        ...

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        """Replace the task stored at `record.version - 1` with `record`, appending `events`.

        The events' sequence numbers continue the log: the first is the stored `last_seq + 1`,
        and `record.last_seq` is the last of them. `VersionConflict` if the stored version is not
        `record.version - 1` (or the task is gone); `IdempotencyKeyTaken` if the key is taken.
        """
        ...

    async def get_task(self, task_id: str) -> TaskRecord | None: ...

    async def list_tasks(self, query: TaskQuery) -> TaskPage: ...

    async def read_events(
        self, task_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[TaskEvent]:
        """Events of a task with `seq > after_seq`, oldest first."""
        ...

    async def find_idempotency_key(self, key: str) -> str | None:
        """The task id an idempotency key was claimed for, if any."""
        ...

    async def put_reply(self, reply: StoredReply) -> None:
        """Claim `reply.key` for a direct reply. `IdempotencyKeyTaken` if a task or a reply that
        has not expired holds the key (`task_id` "" for a reply); an expired reply is replaced."""
        ...

    async def find_reply(self, key: str) -> StoredReply | None:
        """The direct reply stored under `key`, unless it has expired (None for a task's key)."""
        ...

    async def put_push_config(self, config: StoredPushConfig) -> None:
        """Insert or replace the config with this (task_id, config.id)."""
        ...

    async def get_push_config(self, task_id: str, config_id: str) -> StoredPushConfig | None: ...

    async def list_push_configs(self, task_id: str) -> list[StoredPushConfig]: ...

    async def delete_push_config(self, task_id: str, config_id: str) -> bool:
        """Remove a config; False if there was none."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class DeadLetterScan(Protocol):
    """What a store may offer besides `Store`: every owner's tasks that hold dead letters, for
    the operator's `dead-letters list|redrive --all-owners` (ops.py). Every shipped store
    offers it: MemoryStore and SqliteStore with a filtered query, DynamoDBStore with a Scan of
    the table and FirestoreStore with a projection of its task documents (their adapters say
    what it costs); a third-party store without it is read owner by owner, never all at once.
    An operator command, run rarely: it need not be cheap, only bounded by `limit`."""

    async def scan_dead_letters(self, after: str | None, limit: int) -> list[TaskRecord]:
        """Up to `limit` visible records with at least one dead letter, of any owner, in
        task id order after the task id `after` (None: from the first)."""
        ...


@runtime_checkable
class LocalFileStore(Protocol):
    """What a store may offer besides `Store`: the file on this machine it keeps its tasks in
    (SqliteStore; None for one in memory). The Runtime then keeps its queue's jobs in the same
    file (they survive a restart) and knows every worker on it is on this machine."""

    @property
    def local_file(self) -> str | None: ...


# --- the stored shapes, shared by every adapter -------------------------------------------------


class _StoredClaim(msgspec.Struct, gc=False):
    step: str
    worker_id: str = msgspec.field(name="workerId")
    lease_until: int = msgspec.field(name="leaseUntil")
    attempt: int = 1


class _StoredRecord(msgspec.Struct, gc=False):
    """A task record's JSON, as every store keeps it (field names and order are the format)."""

    task: Task
    owner: str
    version: int
    last_seq: int = msgspec.field(name="lastSeq")
    created_at: int = msgspec.field(name="createdAt")
    updated_at: int = msgspec.field(name="updatedAt")
    claim: _StoredClaim | None = None
    expires_at: int | None = msgspec.field(name="expiresAt", default=None)
    internal: dict[str, Any] | None = None


class _StoredPushConfig(msgspec.Struct, gc=False, omit_defaults=True):
    task_id: str = msgspec.field(name="taskId")
    owner: str
    config: TaskPushNotificationConfig
    # Left out at its default, so a v0.3 config is stored exactly as before it existed.
    protocol: str = "0.3"


class _ReadPushConfig(msgspec.Struct, gc=False):
    """`_StoredPushConfig` as read: its config in today's shape or an earlier one (legacy.py)."""

    task_id: str = msgspec.field(name="taskId")
    owner: str
    config: legacy.StoredPushConfigBody
    protocol: str = "0.3"


class _StoredReply(msgspec.Struct, gc=False):
    key: str
    owner: str
    request_digest: str = msgspec.field(name="requestDigest")
    reply: Message
    created_at: int = msgspec.field(name="createdAt")
    expires_at: int | None = msgspec.field(name="expiresAt", default=None)


class _StoredEvent(msgspec.Struct, gc=False, omit_defaults=True, rename="camel"):
    """An event log entry: the event under the name of its kind, as 1.0's StreamResponse has
    it (`{"statusUpdate": ...}` / `{"artifactUpdate": ...}`); exactly one is set."""

    status_update: TaskStatusUpdateEvent | None = None
    artifact_update: TaskArtifactUpdateEvent | None = None


# The decoders are codec.decoder's, built when first read: a store that keeps no JSON (the
# memory store) never builds them, and a cold start does not pay for them.


def record_to_json(record: TaskRecord) -> str:
    return record_json_bytes(record).decode()


def record_json_bytes(record: TaskRecord) -> bytes:
    """A record's JSON as UTF-8 (what `record_to_json` gives, without making it a str)."""
    claim = record.claim
    stored = _StoredRecord(
        task=record.task,
        owner=record.owner,
        version=record.version,
        last_seq=record.last_seq,
        created_at=record.created_at_ms,
        updated_at=record.updated_at_ms,
        claim=None
        if claim is None
        else _StoredClaim(claim.step, claim.worker_id, claim.lease_until_ms, claim.attempt),
        expires_at=record.expires_at_ms,
        internal=record.internal,
    )
    return codec.encode(stored)


def record_from_json(text: str | bytes) -> TaskRecord:
    """A record from its JSON, straight from the bytes (no dict in between; a record in the
    form of earlier versions through `legacy.py`)."""
    if legacy.is_old_record(text):
        data = codec.convert(legacy.record(json.loads(text)), _StoredRecord)
    else:
        data = codec.decoder(_StoredRecord).decode(text)
    claim = data.claim
    return TaskRecord(
        task=data.task,
        owner=data.owner,
        version=data.version,
        last_seq=data.last_seq,
        created_at_ms=data.created_at,
        updated_at_ms=data.updated_at,
        claim=None
        if claim is None
        else WorkerClaim(
            step=claim.step,
            worker_id=claim.worker_id,
            lease_until_ms=claim.lease_until,
            attempt=claim.attempt,
        ),
        expires_at_ms=data.expires_at,
        internal=data.internal or {},
    )


def event_to_json(event: TaskEvent) -> str:
    return event_json_bytes(event).decode()


def event_json_bytes(event: TaskEvent) -> bytes:
    """An event's JSON as UTF-8 (what `event_to_json` gives, without making it a str)."""
    payload = event.payload
    if isinstance(payload, TaskStatusUpdateEvent):
        return codec.encode(_StoredEvent(status_update=payload))
    return codec.encode(_StoredEvent(artifact_update=payload))


def event_from_json(seq: int, text: str | bytes) -> TaskEvent:
    if legacy.is_old_event(text):
        stored = codec.convert(legacy.event(json.loads(text)), _StoredEvent)
    else:
        stored = codec.decoder(_StoredEvent).decode(text)
    payload = stored.status_update or stored.artifact_update
    if payload is None:
        raise ValueError(f"event {seq} is neither a status nor an artifact update")
    return TaskEvent(seq=seq, payload=payload)


def push_config_to_json(config: StoredPushConfig) -> str:
    stored = _StoredPushConfig(
        task_id=config.task_id, owner=config.owner, config=config.config, protocol=config.protocol
    )
    return codec.encode(stored).decode()


def push_config_from_json(text: str | bytes) -> StoredPushConfig:
    data = codec.decoder(_ReadPushConfig).decode(text)
    return StoredPushConfig(
        task_id=data.task_id,
        owner=data.owner,
        config=legacy.push_config(data.config, data.task_id),
        protocol=data.protocol,
    )


def reply_to_json(reply: StoredReply) -> str:
    stored = _StoredReply(
        key=reply.key,
        owner=reply.owner,
        request_digest=reply.request_digest,
        reply=reply.reply,
        created_at=reply.created_at_ms,
        expires_at=reply.expires_at_ms,
    )
    return codec.encode(stored).decode()


def reply_from_json(text: str | bytes) -> StoredReply:
    if legacy.is_old_reply(text):
        data = codec.convert(legacy.reply(json.loads(text)), _StoredReply)
    else:
        data = codec.decoder(_StoredReply).decode(text)
    return StoredReply(
        key=data.key,
        owner=data.owner,
        request_digest=data.request_digest,
        reply=data.reply,
        created_at_ms=data.created_at,
        expires_at_ms=data.expires_at,
    )


def check_event_sequence(
    record: TaskRecord, stored_last_seq: int, events: Sequence[TaskEvent]
) -> None:
    """Raise ValueError unless `events` continue the log from `stored_last_seq` to `last_seq`.

    Adapters call this before writing so a caller's bookkeeping bug cannot punch a hole in a log.
    """
    expected = stored_last_seq
    for event in events:
        expected += 1
        if event.seq != expected:
            raise ValueError(f"event seq {event.seq} does not follow {expected - 1}")
    if record.last_seq != expected:
        raise ValueError(f"record.last_seq {record.last_seq} != last event seq {expected}")
