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

A long-lived process (a warm Lambda instance serves for hours) must not keep every task for
ever, so the store keeps at most `max_tasks` (``memory://?max_tasks=N``, default
`DEFAULT_MAX_TASKS`). A new task past the bound makes room by removing the finished task
(terminal state) written least recently, with all that is its: its events, push configs and
idempotency keys (its push cursors and dead letters are in its record). When every kept task
is still active the new one is refused with `StoreFull`, naming the bound. A finished task
whose `expires_at_ms` has passed (`finished_task_ttl_s`) is removed, not just hidden: on the
next write (the oldest finished tasks, a few per write) or when it is read. All of it is
O(1) per write: finished tasks are kept in the order of their last write. Direct replies and
context claims (`put_reply`) are not counted: a claim removed early would let another caller
take over its context.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from msgspec.structs import replace

from ..codec import deep_copy
from ..models import TERMINAL_STATES
from .base import (
    IdempotencyKeyTaken,
    KeyHeld,
    StoredPushConfig,
    StoredReply,
    StoreFull,
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


DEFAULT_MAX_TASKS = 10_000
# Expired finished tasks removed per write at most: more than the one a write can add, so the
# removal keeps up, and a write never waits on a long sweep.
_EXPIRED_PER_WRITE = 2
_MAX_TASKS_OPTION = "max_tasks"


class _Stored:
    """A stored task: its record's JSON (the stored format every store writes), what listing
    and the version check read without decoding it, and what else is the task's (its event
    log, its idempotency keys), so that removing it is one `del`."""

    __slots__ = (
        "context_id",
        "events",
        "expires_at_ms",
        "finished",
        "json",
        "keys",
        "last_seq",
        "owner",
        "state",
        "updated_at_ms",
        "version",
    )

    # Its event payloads' JSON in seq order; seqs start at 1 and have no gaps, so seq n is
    # [n-1]. A list while the task is active, passed on from version to version; once it has
    # finished, the payloads joined by newlines, which compact JSON never holds (one bytes
    # object instead of a list and one per event: ~370 bytes less per finished echo task).
    events: list[bytes] | bytes
    # The idempotency keys claimed with its writes: most tasks have one (kept as itself, not
    # in a tuple) or none.
    keys: str | tuple[str, ...] | None

    def __init__(self, record: TaskRecord) -> None:
        self.json = record_json_bytes(record)
        task = record.task
        state = task.status.state
        self.context_id = task.context_id
        # The member itself, a str equal to its value: `.value` is two Python calls (enum's
        # property), four writes a send.
        self.state: str = state
        self.finished = state in TERMINAL_STATES
        self.owner = record.owner
        self.version = record.version
        self.last_seq = record.last_seq
        self.updated_at_ms = record.updated_at_ms
        self.expires_at_ms = record.expires_at_ms

    def record(self) -> TaskRecord:
        return record_from_json(self.json)

    def event_log(self) -> list[bytes]:
        events = self.events
        if isinstance(events, list):
            return events
        return events.split(b"\n") if events else []

    def key_list(self) -> tuple[str, ...]:
        keys = self.keys
        return () if keys is None else (keys,) if isinstance(keys, str) else keys

    def add_events(self, payloads: list[bytes]) -> None:
        """Log `payloads` after its events; joined if it has finished."""
        events = self.events
        if isinstance(events, list):
            events.extend(payloads)
        elif payloads:
            # Events after the end are rare: back to a list, as before it finished.
            events = [*self.event_log(), *payloads]
        else:
            return
        self.events = b"\n".join(events) if self.finished else events


def _visible(record: _Stored, now_ms: int) -> bool:
    return record.expires_at_ms is None or record.expires_at_ms > now_ms


def _reply_visible(reply: StoredReply, now_ms: int) -> bool:
    return reply.expires_at_ms is None or reply.expires_at_ms > now_ms


class MemoryStore:
    """The Store protocol on dicts. `clock` (milliseconds) decides when a task has expired;
    `max_tasks` bounds the tasks kept (the module docstring says how)."""

    # Its name in spans (db.system.name, tracing.py).
    db_system = "memory"

    def __init__(
        self, *, clock: Callable[[], int] = _wall_clock_ms, max_tasks: int = DEFAULT_MAX_TASKS
    ) -> None:
        if max_tasks < 1:
            raise ValueError(f"the memory store's max_tasks must be at least 1, got {max_tasks}")
        self.max_tasks = max_tasks
        self._clock = clock
        self._lock = threading.Lock()
        self._tasks: dict[str, _Stored] = {}
        # The finished tasks' ids, least recently written first: what goes when room is needed.
        # An OrderedDict, not a dict: removing from the front of a dict leaves holes that every
        # later look for its first key walks over.
        self._finished: OrderedDict[str, None] = OrderedDict()
        # Per task, by config id, the config's JSON (the stored format every store writes).
        self._push: dict[str, dict[str, str]] = {}
        self._keys: dict[str, str] = {}
        self._replies: dict[str, StoredReply] = {}
        # Whether any task written has had an expiry: until one has (no finished_task_ttl_s,
        # the default), a write does not look for expired tasks.
        self._expiring = False

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
        stored.events = b"\n".join(payloads) if stored.finished else payloads
        stored.keys = idempotency_key
        with self._lock:
            self._check_key(idempotency_key)
            if free_key is not None and self._held(free_key):
                raise KeyHeld(free_key)
            if record.task_id in self._tasks:
                raise TaskAlreadyExists(record.task_id)
            check_event_sequence(record, 0, events)
            if self._expiring:
                self._remove_expired()
            if len(self._tasks) >= self.max_tasks:
                self._make_room()
            self._tasks[record.task_id] = stored
            if stored.finished:
                self._finished[record.task_id] = None
                self._expiring = self._expiring or stored.expires_at_ms is not None
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
        task_id = record.task.id
        with self._lock:
            if idempotency_key is not None:
                self._check_key(idempotency_key)
            stored = self._tasks.get(task_id)
            if stored is None or stored.version != record.version - 1:
                raise VersionConflict(task_id, record.version - 1)
            check_event_sequence(record, stored.last_seq, events)
            copy.events = stored.events
            copy.add_events(payloads)
            copy.keys = stored.keys
            if idempotency_key is not None:
                keys = stored.key_list()
                copy.keys = (*keys, idempotency_key) if keys else idempotency_key
                self._keys[idempotency_key] = task_id
            self._tasks[task_id] = copy
            if copy.finished:
                if stored.finished:
                    self._finished.move_to_end(task_id)
                else:
                    self._finished[task_id] = None
                self._expiring = self._expiring or copy.expires_at_ms is not None
            elif stored.finished:
                del self._finished[task_id]
            if self._expiring:
                self._remove_expired()

    def _make_room(self) -> None:
        """Remove the finished task written least recently; `StoreFull` if none is finished."""
        if not self._finished:
            raise StoreFull(
                f"the memory store keeps at most {self.max_tasks} tasks (its max_tasks) and "
                "none of them has finished",
                store_limit="the memory store's max_tasks",
                size=self.max_tasks + 1,
                maximum=self.max_tasks,
            )
        task_id, _ = self._finished.popitem(last=False)
        self._remove(task_id)

    def _remove_expired(self) -> None:
        """Remove the oldest finished tasks if they have expired, a few at most."""
        now_ms: int | None = None
        for _ in range(_EXPIRED_PER_WRITE):
            task_id = next(iter(self._finished), None)
            if task_id is None:
                return
            expires_at_ms = self._tasks[task_id].expires_at_ms
            if expires_at_ms is None:
                return
            if now_ms is None:
                now_ms = self._clock()
            if expires_at_ms > now_ms:
                return
            del self._finished[task_id]
            self._remove(task_id)

    def _remove(self, task_id: str) -> None:
        """Forget a task and everything that is its (not its place in `_finished`)."""
        stored = self._tasks.pop(task_id)
        for key in stored.key_list():
            if self._keys.get(key) == task_id:
                del self._keys[key]
        self._push.pop(task_id, None)

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
            if record is not None and not _visible(record, self._clock()):
                self._finished.pop(task_id, None)
                self._remove(task_id)
                return None
        return None if record is None else record.record()

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
            stored = self._tasks.get(task_id)
            log = [] if stored is None else stored.event_log()
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


def open_memory_store(url: str) -> MemoryStore:
    """The store a ``memory://`` or ``memory://?max_tasks=N`` URL names; ValueError for any
    other option, or a `max_tasks` given twice or not a whole number of at least 1."""
    _, _, rest = url.partition("://")
    if not rest:
        return MemoryStore()
    if not rest.startswith("?"):
        raise ValueError(
            f"memory store URL takes only options after 'memory://' (memory://?max_tasks=N), "
            f"got {url!r}"
        )
    # Only a URL with options pays for the import.
    from urllib.parse import parse_qs

    try:
        options = parse_qs(rest[1:], keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise ValueError(f"malformed options in memory store URL {url!r}") from None
    unknown = sorted(set(options) - {_MAX_TASKS_OPTION})
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} in memory store URL {url!r}: it takes "
            f"{_MAX_TASKS_OPTION}=N, the tasks it keeps ({DEFAULT_MAX_TASKS} by default)"
        )
    given = options[_MAX_TASKS_OPTION]
    if len(given) != 1:
        raise ValueError(f"{_MAX_TASKS_OPTION} is given {len(given)} times in {url!r}")
    value = given[0]
    if not value.isascii() or not value.isdigit() or int(value) < 1:
        raise ValueError(
            f"{_MAX_TASKS_OPTION} in memory store URL {url!r} must be a whole number of at "
            f"least 1, got {value!r}"
        )
    return MemoryStore(max_tasks=int(value))


def _config_id(config: StoredPushConfig) -> str:
    if config.config.id is None:
        # The key would be ambiguous; the caller assigns ids (A2A's default is the task id).
        raise ValueError("a stored push notification config needs an id")
    return config.config.id
