"""A Store that lives in one process's memory: for tests, demos and `a2a-serverless dev`.

Nothing survives the process, and two processes never share state, so this store suits only a
single long-running server. Every method does its reads and writes with no `await` in between
(atomic within one event loop) and under a lock (atomic across threads).

A task and its events are kept as their JSON (what the other stores write), beside the few
fields that listing and the version check read: a write encodes once and a read decodes once, so
no caller can change stored state through an object it passed in or got back. Bytes, not the
objects: a copy in and a copy out cost twice what one encode and one decode do, and a server
holding many tasks keeps a few untracked bytes objects per task instead of dozens of objects the
garbage collector walks on every full collection (what made p99 latency and peak RSS under load
worse than the official SDK's). Push configs and replies, few and small, are copied as objects.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from msgspec.structs import replace

from ..codec import deep_copy
from .base import (
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
    event_from_json,
    event_json_bytes,
    push_config_from_json,
    push_config_to_json,
    record_from_json,
    record_json_bytes,
)
from .bookkeeping import DEAD_LETTERS_KEY


def _wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class _Stored:
    """A stored task: its record's JSON (the stored format every store writes), and what
    listing and the version check read without decoding it."""

    __slots__ = (
        "context_id",
        "expires_at_ms",
        "json",
        "last_seq",
        "owner",
        "state",
        "updated_at_ms",
        "version",
    )

    def __init__(self, record: TaskRecord) -> None:
        self.json = record_json_bytes(record)
        self.context_id = record.context_id
        self.state = record.state
        self.owner = record.owner
        self.version = record.version
        self.last_seq = record.last_seq
        self.updated_at_ms = record.updated_at_ms
        self.expires_at_ms = record.expires_at_ms

    def record(self) -> TaskRecord:
        return record_from_json(self.json)


def _visible(record: _Stored, now_ms: int) -> bool:
    return record.expires_at_ms is None or record.expires_at_ms > now_ms


def _reply_visible(reply: StoredReply, now_ms: int) -> bool:
    return reply.expires_at_ms is None or reply.expires_at_ms > now_ms


class MemoryStore:
    """The Store protocol on dicts. `clock` (milliseconds) decides when a task has expired."""

    # Its name in spans (db.system.name, tracing.py).
    db_system = "memory"

    def __init__(self, *, clock: Callable[[], int] = _wall_clock_ms) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tasks: dict[str, _Stored] = {}
        # Per task, event payloads' JSON in seq order; seqs start at 1 and have no gaps, so seq
        # n is [n-1].
        self._events: dict[str, list[bytes]] = {}
        # Per task, by config id, the config's JSON (the stored format every store writes).
        self._push: dict[str, dict[str, str]] = {}
        self._keys: dict[str, str] = {}
        self._replies: dict[str, StoredReply] = {}

    async def create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
        free_key: str | None = None,
    ) -> None:
        stored = _Stored(record)
        payloads = [event_json_bytes(event) for event in events]
        with self._lock:
            self._check_key(idempotency_key)
            if free_key is not None and self._held(free_key):
                raise KeyHeld(free_key)
            if record.task_id in self._tasks:
                raise TaskAlreadyExists(record.task_id)
            check_event_sequence(record, 0, events)
            self._tasks[record.task_id] = stored
            self._events[record.task_id] = payloads
            if idempotency_key is not None:
                self._keys[idempotency_key] = record.task_id

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        copy = _Stored(record)
        payloads = [event_json_bytes(event) for event in events]
        with self._lock:
            self._check_key(idempotency_key)
            stored = self._tasks.get(record.task_id)
            if stored is None or stored.version != record.version - 1:
                raise VersionConflict(record.task_id, record.version - 1)
            check_event_sequence(record, stored.last_seq, events)
            self._tasks[record.task_id] = copy
            self._events.setdefault(record.task_id, []).extend(payloads)
            if idempotency_key is not None:
                self._keys[idempotency_key] = record.task_id

    def _held(self, key: str) -> bool:
        reply = self._replies.get(key)
        return key in self._keys or (reply is not None and _reply_visible(reply, self._clock()))

    def _check_key(self, key: str | None) -> None:
        if key is None:
            return
        if key in self._keys:
            raise IdempotencyKeyTaken(key, self._keys[key])
        reply = self._replies.get(key)
        if reply is not None:
            if _reply_visible(reply, self._clock()):
                raise IdempotencyKeyTaken(key, "")
            del self._replies[key]

    async def get_task(self, task_id: str) -> TaskRecord | None:
        with self._lock:
            record = self._tasks.get(task_id)
        if record is None or not _visible(record, self._clock()):
            return None
        return record.record()

    async def scan_dead_letters(self, after: str | None, limit: int) -> list[TaskRecord]:
        """`DeadLetterScan`: every owner's records holding dead letters, by task id."""
        now_ms = self._clock()
        with self._lock:
            items = sorted(self._tasks.items())
        found: list[TaskRecord] = []
        for task_id, stored in items:
            if len(found) >= max(limit, 0):
                break
            if (after is not None and task_id <= after) or not _visible(stored, now_ms):
                continue
            record = stored.record()
            if record.internal.get(DEAD_LETTERS_KEY):
                found.append(record)
        return found

    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        now_ms = self._clock()
        with self._lock:
            items = list(self._tasks.items())
        matches = [
            (record.updated_at_ms, task_id, record)
            for task_id, record in items
            if record.owner == query.owner
            and _visible(record, now_ms)
            and (query.context_id is None or record.context_id == query.context_id)
            and (query.state is None or record.state == query.state)
            and (query.updated_after_ms is None or record.updated_at_ms >= query.updated_after_ms)
        ]
        matches.sort(key=lambda match: (match[0], match[1]), reverse=True)
        after = query.after
        rest = (
            matches
            if after is None
            else [match for match in matches if (match[0], match[1]) < after]
        )
        page = rest[: max(query.limit, 0)]
        return TaskPage(
            records=[record.record() for _, _, record in page],
            total_size=len(matches),
            has_more=len(rest) > len(page),
        )

    async def read_events(
        self, task_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[TaskEvent]:
        start = max(after_seq, 0)
        with self._lock:
            log = self._events.get(task_id, [])
            payloads = log[start:] if limit is None else log[start : start + max(limit, 0)]
        return [
            event_from_json(start + offset + 1, payload) for offset, payload in enumerate(payloads)
        ]

    async def find_idempotency_key(self, key: str) -> str | None:
        with self._lock:
            return self._keys.get(key)

    async def put_reply(self, reply: StoredReply) -> None:
        stored = replace(reply, reply=deep_copy(reply.reply))
        with self._lock:
            self._check_key(reply.key)
            self._replies[reply.key] = stored

    async def find_reply(self, key: str) -> StoredReply | None:
        with self._lock:
            reply = self._replies.get(key)
        if reply is None or not _reply_visible(reply, self._clock()):
            return None
        return replace(reply, reply=deep_copy(reply.reply))

    async def put_push_config(self, config: StoredPushConfig) -> None:
        config_id = _config_id(config)
        stored = push_config_to_json(config)
        with self._lock:
            self._push.setdefault(config.task_id, {})[config_id] = stored

    async def get_push_config(self, task_id: str, config_id: str) -> StoredPushConfig | None:
        with self._lock:
            stored = self._push.get(task_id, {}).get(config_id)
        return None if stored is None else push_config_from_json(stored)

    async def list_push_configs(self, task_id: str) -> list[StoredPushConfig]:
        with self._lock:
            configs = sorted(self._push.get(task_id, {}).items())
        return [push_config_from_json(stored) for _, stored in configs]

    async def delete_push_config(self, task_id: str, config_id: str) -> bool:
        with self._lock:
            configs = self._push.get(task_id)
            if configs is None or config_id not in configs:
                return False
            del configs[config_id]
            if not configs:
                del self._push[task_id]
            return True

    async def close(self) -> None:
        """Nothing to release; the data stays readable, as a test may inspect it after a run."""


def _config_id(config: StoredPushConfig) -> str:
    if config.config.id is None:
        # The key would be ambiguous; the caller assigns ids (A2A's default is the task id).
        raise ValueError("a stored push notification config needs an id")
    return config.config.id
