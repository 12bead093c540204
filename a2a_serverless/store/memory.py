"""A Store that lives in one process's memory: for tests, demos and `a2a-serverless dev`.

Nothing survives the process, and two processes never share state, so this store suits only a
single long-running server. Every method does its reads and writes with no `await` in between
(atomic within one event loop) and under a lock (atomic across threads). Records are kept in
their stored JSON form, so no caller can change stored state through an object it passed in or
got back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .base import (
    IdempotencyKeyTaken,
    StoredPushConfig,
    TaskAlreadyExists,
    TaskEvent,
    TaskPage,
    TaskQuery,
    TaskRecord,
    VersionConflict,
    check_event_sequence,
    event_from_json,
    event_to_json,
    push_config_from_json,
    push_config_to_json,
    record_from_json,
    record_to_json,
)


def _wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class _Row:
    """A stored task: the columns `list_tasks` filters on, and the record as JSON."""

    owner: str
    context_id: str
    state: str
    version: int
    last_seq: int
    updated_at_ms: int
    expires_at_ms: int | None
    body: str

    @classmethod
    def of(cls, record: TaskRecord) -> _Row:
        return cls(
            owner=record.owner,
            context_id=record.context_id,
            state=record.state,
            version=record.version,
            last_seq=record.last_seq,
            updated_at_ms=record.updated_at_ms,
            expires_at_ms=record.expires_at_ms,
            body=record_to_json(record),
        )

    def visible(self, now_ms: int) -> bool:
        return self.expires_at_ms is None or self.expires_at_ms > now_ms


class MemoryStore:
    """The Store protocol on dicts. `clock` (milliseconds) decides when a task has expired."""

    def __init__(self, *, clock: Callable[[], int] = _wall_clock_ms) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tasks: dict[str, _Row] = {}
        # Per task, event JSON in seq order; seqs start at 1 and have no gaps, so seq n is [n-1].
        self._events: dict[str, list[str]] = {}
        self._push: dict[str, dict[str, str]] = {}
        self._keys: dict[str, str] = {}

    async def create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        row = _Row.of(record)
        bodies = [event_to_json(event) for event in events]
        with self._lock:
            self._check_key(idempotency_key)
            if record.task_id in self._tasks:
                raise TaskAlreadyExists(record.task_id)
            check_event_sequence(record, 0, events)
            self._tasks[record.task_id] = row
            self._events[record.task_id] = bodies
            if idempotency_key is not None:
                self._keys[idempotency_key] = record.task_id

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        row = _Row.of(record)
        bodies = [event_to_json(event) for event in events]
        with self._lock:
            self._check_key(idempotency_key)
            stored = self._tasks.get(record.task_id)
            if stored is None or stored.version != record.version - 1:
                raise VersionConflict(record.task_id, record.version - 1)
            check_event_sequence(record, stored.last_seq, events)
            self._tasks[record.task_id] = row
            self._events.setdefault(record.task_id, []).extend(bodies)
            if idempotency_key is not None:
                self._keys[idempotency_key] = record.task_id

    def _check_key(self, key: str | None) -> None:
        if key is not None and key in self._keys:
            raise IdempotencyKeyTaken(key, self._keys[key])

    async def get_task(self, task_id: str) -> TaskRecord | None:
        with self._lock:
            row = self._tasks.get(task_id)
        if row is None or not row.visible(self._clock()):
            return None
        return record_from_json(row.body)

    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        now_ms = self._clock()
        with self._lock:
            items = list(self._tasks.items())
        matches = [
            (row.updated_at_ms, task_id, row)
            for task_id, row in items
            if row.owner == query.owner
            and row.visible(now_ms)
            and (query.context_id is None or row.context_id == query.context_id)
            and (query.state is None or row.state == query.state)
            and (query.updated_after_ms is None or row.updated_at_ms >= query.updated_after_ms)
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
            records=[record_from_json(row.body) for _, _, row in page],
            total_size=len(matches),
            has_more=len(rest) > len(page),
        )

    async def read_events(
        self, task_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[TaskEvent]:
        start = max(after_seq, 0)
        with self._lock:
            log = self._events.get(task_id, [])
            bodies = log[start:] if limit is None else log[start : start + max(limit, 0)]
        return [event_from_json(start + offset + 1, body) for offset, body in enumerate(bodies)]

    async def find_idempotency_key(self, key: str) -> str | None:
        with self._lock:
            return self._keys.get(key)

    async def put_push_config(self, config: StoredPushConfig) -> None:
        config_id = _config_id(config)
        body = push_config_to_json(config)
        with self._lock:
            self._push.setdefault(config.task_id, {})[config_id] = body

    async def get_push_config(self, task_id: str, config_id: str) -> StoredPushConfig | None:
        with self._lock:
            body = self._push.get(task_id, {}).get(config_id)
        return None if body is None else push_config_from_json(body)

    async def list_push_configs(self, task_id: str) -> list[StoredPushConfig]:
        with self._lock:
            configs = sorted(self._push.get(task_id, {}).items())
        return [push_config_from_json(body) for _, body in configs]

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
