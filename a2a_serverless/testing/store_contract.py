"""The Store contract suite: what every Store must do, as pytest tests any adapter can reuse.

Subclass `StoreContract` in a test module and provide a `store` fixture; every test below then
runs against that store::

    class TestMyStore(StoreContract):
        @pytest.fixture
        async def store(self) -> AsyncIterator[Store]:
            store = MyStore(...)
            yield store
            await store.close()

The tests need pytest-asyncio with `asyncio_mode = "auto"`. They use fresh random task
ids, owners and keys, so a store backed by a shared table or emulator needs no cleanup between
tests. A store bound to one event loop sets `supports_threads = False` to skip the tests that
drive it from several threads at once; a slow remote store may lower `race_rounds`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, ClassVar

import pytest
from msgspec.structs import replace

from .. import codec
from ..models import (
    Artifact,
    AuthenticationInfo,
    Message,
    Part,
    SendMessageConfiguration,
    SendMessageRequest,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from ..service import idempotency_key, legacy_idempotency_key
from ..store import base as store_base
from ..store.base import (
    IdempotencyKeyTaken,
    KeyHeld,
    Store,
    StoredPushConfig,
    StoredReply,
    TaskAlreadyExists,
    TaskEvent,
    TaskQuery,
    TaskRecord,
    VersionConflict,
    WorkerClaim,
)
from ..store.bookkeeping import (
    DeadLetteredNotification,
    DurableOp,
    DurableTurn,
    PushCursor,
    PushRetry,
    TurnInfo,
    durable_of,
    stored_updates,
)
from . import legacy_records

# A fixed instant for `updated_at_ms`, so orderings in the tests do not depend on the clock.
BASE_MS = 1_700_000_000_000
HOUR_MS = 3_600_000

# --- builders -----------------------------------------------------------------------------------


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex}"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def make_task(
    task_id: str | None = None,
    *,
    context_id: str | None = None,
    state: TaskState = TaskState.SUBMITTED,
) -> Task:
    return Task(
        id=task_id or new_id("task"),
        context_id=context_id or new_id("ctx"),
        status=TaskStatus(state=state),
    )


def make_record(
    task_id: str | None = None,
    *,
    owner: str | None = None,
    context_id: str | None = None,
    state: TaskState = TaskState.SUBMITTED,
    updated_at_ms: int = BASE_MS,
    last_seq: int = 0,
    task: Task | None = None,
    **fields: Any,
) -> TaskRecord:
    """A version-1 record; `fields` sets any other TaskRecord field (claim, internal, ...)."""
    return TaskRecord(
        task=task or make_task(task_id, context_id=context_id, state=state),
        owner=owner or new_id("owner"),
        version=fields.pop("version", 1),
        last_seq=last_seq,
        created_at_ms=fields.pop("created_at_ms", updated_at_ms),
        updated_at_ms=updated_at_ms,
        **fields,
    )


def make_reply(
    key: str | None = None, *, text: str = "hello", expires_at_ms: int | None = None
) -> StoredReply:
    """A direct reply stored under `key` (a fresh one by default)."""
    return StoredReply(
        key=key or new_id("key"),
        owner=new_id("owner"),
        request_digest=uuid.uuid4().hex,
        reply=Message(
            message_id=new_id("msg"),
            role="agent",
            parts=[Part(text=text)],
            context_id=new_id("ctx"),
        ),
        created_at_ms=now_ms(),
        expires_at_ms=expires_at_ms,
    )


def status_event(record: TaskRecord, seq: int, state: TaskState | None = None) -> TaskEvent:
    return TaskEvent(
        seq=seq,
        payload=TaskStatusUpdateEvent(
            task_id=record.task_id,
            context_id=record.context_id,
            status=TaskStatus(state=state or record.task.status.state),
        ),
    )


def artifact_event(record: TaskRecord, seq: int, text: str = "chunk") -> TaskEvent:
    return TaskEvent(
        seq=seq,
        payload=TaskArtifactUpdateEvent(
            task_id=record.task_id,
            context_id=record.context_id,
            artifact=Artifact(artifact_id="a-1", parts=[Part(text=text)]),
            append=True,
        ),
    )


def step(
    record: TaskRecord, n_events: int = 1, **changes: Any
) -> tuple[TaskRecord, list[TaskEvent]]:
    """The next write after `record`: version bumped and `n_events` status events appended."""
    first = record.last_seq + 1
    changes.setdefault("updated_at_ms", record.updated_at_ms + 1)
    following = record.next(last_seq=record.last_seq + n_events, **changes)
    return following, [status_event(following, seq) for seq in range(first, first + n_events)]


def with_state(record: TaskRecord, state: TaskState) -> Task:
    """A copy of the record's task in another state."""
    return record.task.model_copy(update={"status": TaskStatus(state=state)}, deep=True)


def push_config(
    task_id: str, config_id: str, *, owner: str = "owner", url: str = "https://example.com/hook"
) -> StoredPushConfig:
    return StoredPushConfig(
        task_id=task_id,
        owner=owner,
        config=TaskPushNotificationConfig(
            id=config_id,
            task_id=task_id,
            url=url,
            token="tok",
            authentication=AuthenticationInfo(scheme="Bearer"),
        ),
    )


def legacy_push_config_json(task_id: str, first_id: str, second_id: str) -> list[str]:
    """Two push configs of `task_id` as the kit stored them before its push config was 1.0's
    (literal JSON): a 0.3 config with credentials and two schemes, and a 1.0 config whose
    scheme list is empty."""
    first = {
        "taskId": task_id,
        "owner": "user:alice",
        "config": {
            "url": "https://hooks.example.com/a2a",
            "id": first_id,
            "token": "tok",
            # Sent with Bearer: the scheme read back is the one notifications used.
            "authentication": {"schemes": ["Basic", "Bearer"], "credentials": "secret"},
        },
    }
    second = {
        "taskId": task_id,
        "owner": "user:alice",
        "config": {
            "url": "https://hooks.example.com/v1",
            "id": second_id,
            "authentication": {"schemes": []},
        },
        "protocol": "1.0",
    }
    return [json.dumps(stored, separators=(",", ":")) for stored in (first, second)]


async def all_pages(store: Store, query: TaskQuery) -> list[list[TaskRecord]]:
    """Every page of a listing, following the cursor from the last record of each page."""
    pages: list[list[TaskRecord]] = []
    after = query.after
    while True:
        page = await store.list_tasks(
            TaskQuery(
                owner=query.owner,
                context_id=query.context_id,
                state=query.state,
                updated_after_ms=query.updated_after_ms,
                limit=query.limit,
                after=after,
            )
        )
        pages.append(page.records)
        if not page.has_more:
            return pages
        assert page.records, "has_more with an empty page would never end"
        last = page.records[-1]
        after = (last.updated_at_ms, last.task_id)
        assert len(pages) < 1000


@contextmanager
def frequent_thread_switches() -> Iterator[None]:
    """Make the interpreter switch threads often, so in-process races actually interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


_WORDS = ("agent", "task", "artifact", "stream", "Größe", "データ", "\n", "“quoted”", "\t")
_SPACED_WORDS = tuple(word + " " for word in _WORDS)
# `random.Random.choice` of one of the 9 words draws a 32-bit output and keeps its top 4 bits,
# drawing again while they are 9 or more. These tables do the same to a byte string of the
# outputs' top bytes: the same words, in C rather than a Python call per word.
_TOP_4_BITS = bytes(byte >> 4 for byte in range(256))
_DRAWN_AGAIN = bytes(byte for byte in range(256) if byte >> 4 >= len(_WORDS))


def large_text(size: int, seed: int = 0) -> str:
    """`size` characters of prose-like text (some of it beyond ASCII), the same for a seed: the
    words `random.Random(seed).choice` would pick, each followed by a space, cut at `size`
    (the tests make up to 8 MB of it at a time, in their own processes and in functions')."""
    chooser = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        # A word and its space average 5.6 characters, and 9 in 16 draws pick one.
        draws = max(1024, (size - length) // 3)
        # getrandbits fills from the least significant 32 bits: little-endian, output i's top
        # byte is byte 4i + 3.
        outputs = chooser.getrandbits(32 * draws).to_bytes(4 * draws, "little")
        picks = outputs[3::4].translate(_TOP_4_BITS, _DRAWN_AGAIN)
        chunk = "".join([_SPACED_WORDS[pick] for pick in picks])
        parts.append(chunk)
        length += len(chunk)
    return "".join(parts)[:size]


def large_file(size: int, seed: int = 0, *, mime_type: str = "application/octet-stream") -> Part:
    """A file part with `size` bytes of incompressible content inline (base64)."""
    data = random.Random(seed).randbytes(size)
    return Part(
        raw=base64.b64encode(data).decode(), media_type=mime_type, filename=f"file-{seed}.bin"
    )


@contextmanager
def written_as(texts: dict[int, str]) -> Iterator[None]:
    """Every store writes the objects named in `texts` (by id()) as those literal JSON texts:
    the store's own write path (its encoding, packing and items) with a record as an earlier
    version wrote it. The serialisers of `store.base` are replaced wherever a store module
    holds them, for the block only."""
    patched: list[tuple[Any, str, Any]] = []
    for name in _SERIALISERS:
        original = getattr(store_base, name)
        literal = _literal(original, texts, as_bytes=name.endswith("_bytes"))
        for module in list(sys.modules.values()):
            if getattr(module, name, None) is original:
                patched.append((module, name, original))
                setattr(module, name, literal)
    try:
        yield
    finally:
        for module, name, original in patched:
            setattr(module, name, original)


_SERIALISERS = (
    "record_to_json",
    "record_json_bytes",
    "event_to_json",
    "event_json_bytes",
    "reply_to_json",
)


def _literal(original: Any, texts: dict[int, str], *, as_bytes: bool) -> Any:
    def write(value: Any) -> Any:
        text = texts.get(id(value))
        if text is None:
            return original(value)
        return text.encode() if as_bytes else text

    return write


def _renamed(value: Any, task_id: str) -> Any:
    """A legacy_records object with its task id replaced."""
    text = codec.encode(value).replace(b"t-legacy", task_id.encode())
    return codec.decode(text, type(value))


def newest_first(records: list[TaskRecord]) -> list[str]:
    return [r.task_id for r in sorted(records, key=lambda r: (r.updated_at_ms, r.task_id))][::-1]


# --- the suite ------------------------------------------------------------------------------------


class StoreContract:
    """Every Store keeps these. Subclasses provide the `store` fixture."""

    supports_threads: ClassVar[bool] = True
    # Read-modify-write rounds per thread in the counter race; a slow remote store may lower it.
    race_rounds: ClassVar[int] = 500

    @pytest.fixture
    async def store(self) -> AsyncIterator[Store]:
        pytest.fail("a StoreContract subclass must provide a `store` fixture")
        yield  # pragma: no cover

    # --- create and get ---

    async def test_create_get_round_trip(self, store: Store) -> None:
        task = Task.model_validate(
            {
                "id": new_id("task"),
                "contextId": new_id("ctx"),
                "status": {"state": "working", "timestamp": "2025-01-01T00:00:00Z"},
                "history": [
                    {
                        "messageId": "m-1",
                        "role": "user",
                        "parts": [{"text": "hello"}],
                    }
                ],
                "artifacts": [{"artifactId": "a-1", "parts": [{"data": {"n": 1}}]}],
                "metadata": {"origin": "contract"},
                # A field from a newer protocol version must survive the store.
                "futureField": {"x": [1, 2]},
            }
        )
        record = make_record(
            task=task,
            version=3,
            created_at_ms=BASE_MS - 10,
            claim=WorkerClaim(step="m-1", worker_id="w-1", lease_until_ms=BASE_MS + 5, attempt=2),
            expires_at_ms=now_ms() + HOUR_MS,
            internal={"attempts": 3, "nested": {"list": [1, "two", None, True]}},
        )
        await store.create_task(record)
        assert await store.get_task(record.task_id) == record

    async def test_create_minimal_record_round_trip(self, store: Store) -> None:
        record = make_record()
        await store.create_task(record)
        got = await store.get_task(record.task_id)
        assert got == record
        assert got is not None and got.claim is None and got.expires_at_ms is None
        assert got.internal == {}

    async def test_a_turns_durable_operations_read_back_typed(self, store: Store) -> None:
        # A suspended turn's calls, sleeps and steps (durable/session.py): results are JSON
        # text (floats and deep values kept exactly), positions are text keys.
        turn = DurableTurn(
            step="m-1",
            ops={
                "0": DurableOp(kind="step", key="step draw", state="done", result='{"x":0.1}'),
                "1": DurableOp(
                    kind="call",
                    key="call https://agent.example.com 0123456789abcdef",
                    started_at_ms=BASE_MS,
                    remote="https://agent.example.com",
                    remote_task_id="t-remote",
                    callback_id="cb-1",
                    callback_token="secret-token",
                    deadline_at_ms=BASE_MS + 60_000,
                ),
                "2": DurableOp(kind="sleep", key="sleep 60", wake_at_ms=BASE_MS + 60_000),
            },
            writes=3,
            suspended=True,
            generation=2,
            started_at_ms=BASE_MS,
        )
        record = make_record(internal=stored_updates({}, durable=turn))
        await store.create_task(record)
        got = await store.get_task(record.task_id)
        assert got is not None
        assert durable_of(got.internal) == turn

    async def test_bookkeeping_in_its_stored_form_reads_back_typed(self, store: Store) -> None:
        # The task's bookkeeping exactly as the kit has always stored it: the typed views read
        # it, and the stored JSON is kept as it is.
        internal = {
            "step": {
                "messageId": "m-2",
                "turn": "m-2#3",
                "skillId": "research",
                "metadata": {"k": [1, None]},
                "acceptedOutputModes": ["text/plain"],
                "extensions": ["https://example.com/ext"],
            },
            "skillId": "research",
            "doneStep": "m-1",
            "push": {"cfg-1": 4, "cfg-2": 2},
            "pushFloor": {"cfg-2": 1, "cfg-3": 5},
            "pushAttempts": {
                "cfg-2": {"seq": 3, "attempts": 2, "nextAt": BASE_MS, "lastError": "HTTP 500"}
            },
            "pushDeadLetters": [
                {
                    "notificationId": "n-1",
                    "configId": "cfg-1",
                    "seq": 4,
                    "url": "https://hooks.example.com/a2a",
                    "reason": "HTTP 410",
                    "attempts": 1,
                    "at": "2026-01-01T00:00:00.000Z",
                    "redriveAttempts": 1,
                    "redrivenAt": None,
                    "redriveError": "HTTP 410",
                }
            ],
        }
        record = make_record(internal=internal)
        await store.create_task(record)
        got = await store.get_task(record.task_id)
        assert got is not None
        assert got.internal == internal
        assert got.turn == TurnInfo(
            message_id="m-2",
            skill_id="research",
            metadata={"k": [1, None]},
            accepted_output_modes=["text/plain"],
            extensions=("https://example.com/ext",),
            turn="m-2#3",
        )
        assert got.step == "m-2#3"
        assert got.turn_done == "m-1"
        assert got.push_cursor("cfg-1") == PushCursor(delivered=4)
        assert got.push_cursor("cfg-2") == PushCursor(
            delivered=2,
            floor=1,
            retry=PushRetry(seq=3, attempts=2, next_at_ms=BASE_MS, last_error="HTTP 500"),
        )
        assert got.push_cursor("cfg-3") == PushCursor(floor=5)
        assert got.push_cursor("cfg-4") == PushCursor()
        assert list(got.push_cursors) == ["cfg-1", "cfg-2", "cfg-3"]
        assert got.dead_letters == [
            DeadLetteredNotification(
                notification_id="n-1",
                config_id="cfg-1",
                seq=4,
                url="https://hooks.example.com/a2a",
                reason="HTTP 410",
                attempts=1,
                at="2026-01-01T00:00:00.000Z",
                redrive_attempts=1,
                redrive_error="HTTP 410",
            )
        ]

    async def test_a_record_without_bookkeeping_reads_as_empty(self, store: Store) -> None:
        record = make_record()
        await store.create_task(record)
        got = await store.get_task(record.task_id)
        assert got is not None
        assert (got.turn, got.step, got.turn_done) == (None, None, None)
        assert got.push_cursors == {} and got.dead_letters == []

    async def test_get_unknown_task_is_none(self, store: Store) -> None:
        assert await store.get_task(new_id("missing")) is None

    async def test_create_duplicate_raises_and_keeps_original(self, store: Store) -> None:
        record = make_record(last_seq=1)
        await store.create_task(record, [status_event(record, 1)])
        duplicate = make_record(record.task_id, owner=new_id("other"), last_seq=1)
        key = new_id("key")
        with pytest.raises(TaskAlreadyExists) as raised:
            await store.create_task(duplicate, [status_event(duplicate, 1)], idempotency_key=key)
        assert raised.value.task_id == record.task_id
        stored = await store.get_task(record.task_id)
        assert stored is not None and stored.owner == record.owner
        assert len(await store.read_events(record.task_id)) == 1
        assert await store.find_idempotency_key(key) is None

    async def test_create_with_events(self, store: Store) -> None:
        record = make_record(last_seq=2)
        events = [status_event(record, 1), artifact_event(record, 2)]
        await store.create_task(record, events)
        assert await store.read_events(record.task_id) == events

    # --- update and versions ---

    async def test_update_with_right_version(self, store: Store) -> None:
        record = make_record()
        await store.create_task(record)
        following, events = step(
            record, 2, task=with_state(record, TaskState.WORKING), internal={"k": "v"}
        )
        await store.update_task(following, events)
        stored = await store.get_task(record.task_id)
        assert stored == following
        assert stored is not None and stored.version == 2 and stored.state == "working"
        assert await store.read_events(record.task_id) == events

    async def test_update_without_events(self, store: Store) -> None:
        record = make_record()
        await store.create_task(record)
        following, events = step(record, 0, claim=WorkerClaim("m-1", "w-1", BASE_MS))
        await store.update_task(following, events)
        assert await store.get_task(record.task_id) == following
        assert await store.read_events(record.task_id) == []

    async def test_stale_update_conflicts_and_writes_nothing(self, store: Store) -> None:
        record = make_record()
        await store.create_task(record)
        winner, winner_events = step(record, 1, internal={"who": "winner"})
        await store.update_task(winner, winner_events)

        stale, stale_events = step(record, 2, internal={"who": "stale"})
        key = new_id("key")
        with pytest.raises(VersionConflict) as raised:
            await store.update_task(stale, stale_events, idempotency_key=key)
        assert raised.value.task_id == record.task_id
        assert raised.value.expected_version == record.version
        assert await store.get_task(record.task_id) == winner
        assert await store.read_events(record.task_id) == winner_events
        assert await store.find_idempotency_key(key) is None

    @pytest.mark.parametrize("version_step", [0, 2, -1])
    async def test_update_must_be_exactly_one_version_ahead(
        self, store: Store, version_step: int
    ) -> None:
        record = make_record(version=5)
        await store.create_task(record)
        wrong = replace(record, version=record.version + version_step, updated_at_ms=BASE_MS + 1)
        with pytest.raises(VersionConflict):
            await store.update_task(wrong)
        assert await store.get_task(record.task_id) == record

    async def test_update_of_unknown_task_conflicts(self, store: Store) -> None:
        record = make_record(version=2)
        key = new_id("key")
        with pytest.raises(VersionConflict):
            await store.update_task(record, idempotency_key=key)
        assert await store.get_task(record.task_id) is None
        assert await store.find_idempotency_key(key) is None

    async def test_concurrent_writers_exactly_one_wins(self, store: Store) -> None:
        owner = new_id("owner")
        for _ in range(20):
            record = make_record(owner=owner)
            await store.create_task(record)
            first = step(record, 1, internal={"writer": "first"})
            second = step(record, 1, internal={"writer": "second"})
            results = await asyncio.gather(
                store.update_task(*first), store.update_task(*second), return_exceptions=True
            )
            assert sorted(type(result).__name__ for result in results) == [
                "NoneType",
                "VersionConflict",
            ]
            winner = first if results[0] is None else second
            assert await store.get_task(record.task_id) == winner[0]
            assert await store.read_events(record.task_id) == winner[1]

    async def test_concurrent_creates_of_one_task_exactly_one_wins(self, store: Store) -> None:
        record = make_record()
        other = make_record(record.task_id)
        results = await asyncio.gather(
            store.create_task(record), store.create_task(other), return_exceptions=True
        )
        assert sorted(type(result).__name__ for result in results) == [
            "NoneType",
            "TaskAlreadyExists",
        ]
        assert await store.get_task(record.task_id) == (record if results[0] is None else other)

    async def test_thread_race_fifty_pairs(self, store: Store) -> None:
        if not self.supports_threads:
            pytest.skip("this store is bound to one event loop")
        owner = new_id("owner")
        records = [make_record(owner=owner) for _ in range(50)]
        for record in records:
            await store.create_task(record)

        def attempt(write: tuple[TaskRecord, list[TaskEvent]], barrier: threading.Barrier) -> bool:
            # Each thread runs its own event loop, set up before the barrier so the two
            # writes start as close together as the OS allows.
            with asyncio.Runner() as runner:
                barrier.wait(timeout=30)
                try:
                    runner.run(store.update_task(*write))
                except VersionConflict:
                    return False
                return True

        def race(writes: list[tuple[TaskRecord, list[TaskEvent]]]) -> list[bool]:
            barrier = threading.Barrier(len(writes))
            with ThreadPoolExecutor(len(writes)) as pool:
                futures = [pool.submit(attempt, write, barrier) for write in writes]
                return [future.result() for future in futures]

        for record in records:
            writes = [step(record, 1, internal={"writer": name}) for name in ("a", "b")]
            with frequent_thread_switches():
                outcomes = await asyncio.to_thread(race, writes)
            assert sorted(outcomes) == [False, True]
            winner = writes[outcomes.index(True)]
            assert await store.get_task(record.task_id) == winner[0]
            assert await store.read_events(record.task_id) == winner[1]

    async def test_thread_counter_race_loses_no_update(self, store: Store) -> None:
        if not self.supports_threads:
            pytest.skip("this store is bound to one event loop")
        record = make_record()
        await store.create_task(record)
        rounds = self.race_rounds

        async def increment(times: int) -> int:
            wins = 0
            for _ in range(times):
                current = await store.get_task(record.task_id)
                assert current is not None
                count = current.internal.get("count", 0)
                try:
                    await store.update_task(*step(current, 1, internal={"count": count + 1}))
                except VersionConflict:
                    continue
                wins += 1
            return wins

        def run(barrier: threading.Barrier) -> int:
            with asyncio.Runner() as runner:
                barrier.wait(timeout=30)
                return runner.run(increment(rounds))

        def race() -> list[int]:
            barrier = threading.Barrier(2)
            with ThreadPoolExecutor(2) as pool:
                return list(pool.map(run, [barrier, barrier]))

        with frequent_thread_switches():
            wins = sum(await asyncio.to_thread(race))
        final = await store.get_task(record.task_id)
        assert final is not None
        assert final.internal["count"] == wins
        assert (final.version, final.last_seq) == (1 + wins, wins)
        assert [e.seq for e in await store.read_events(record.task_id)] == list(range(1, wins + 1))

    # --- the event log ---

    async def test_events_are_gap_free_and_read_in_order(self, store: Store) -> None:
        record = make_record(last_seq=2)
        created = [status_event(record, 1), artifact_event(record, 2, "first")]
        await store.create_task(record, created)
        following, more = step(record, 3)
        await store.update_task(following, more)
        quiet, _ = step(following, 0)
        await store.update_task(quiet)
        final, last = step(quiet, 1, task=with_state(quiet, TaskState.COMPLETED))
        last = [status_event(final, final.last_seq, TaskState.COMPLETED)]
        await store.update_task(final, last)

        log = [*created, *more, *last]
        events = await store.read_events(record.task_id)
        assert events == log
        assert [event.seq for event in events] == [1, 2, 3, 4, 5, 6]
        assert events[-1].is_final and not events[0].is_final
        assert isinstance(events[1].payload, TaskArtifactUpdateEvent)

    async def test_read_events_after_seq_and_limit(self, store: Store) -> None:
        record = make_record(last_seq=6)
        log = [status_event(record, seq) for seq in range(1, 7)]
        await store.create_task(record, log)
        task_id = record.task_id
        assert await store.read_events(task_id, after_seq=0) == log
        assert await store.read_events(task_id, after_seq=2) == log[2:]
        assert await store.read_events(task_id, after_seq=2, limit=2) == log[2:4]
        assert await store.read_events(task_id, limit=1) == log[:1]
        assert await store.read_events(task_id, after_seq=5, limit=10) == log[5:]
        assert await store.read_events(task_id, after_seq=6) == []
        assert await store.read_events(task_id, after_seq=100) == []
        assert await store.read_events(task_id, limit=0) == []
        assert await store.read_events(new_id("missing")) == []

    async def test_events_of_one_task_not_seen_under_another(self, store: Store) -> None:
        one, two = make_record(last_seq=1), make_record(last_seq=2)
        await store.create_task(one, [status_event(one, 1)])
        await store.create_task(two, [status_event(two, 1), status_event(two, 2)])
        assert [e.payload.task_id for e in await store.read_events(one.task_id)] == [one.task_id]
        assert len(await store.read_events(two.task_id)) == 2

    @pytest.mark.parametrize("fault", ["gap", "repeat", "last_seq_too_high", "last_seq_too_low"])
    async def test_update_with_bad_event_sequence_writes_nothing(
        self, store: Store, fault: str
    ) -> None:
        record = make_record(last_seq=1)
        await store.create_task(record, [status_event(record, 1)])
        following = record.next(last_seq=3, updated_at_ms=BASE_MS + 1)
        events = {
            "gap": [status_event(following, 2), status_event(following, 4)],
            "repeat": [status_event(following, 1), status_event(following, 2)],
            "last_seq_too_high": [status_event(following, 2)],
            "last_seq_too_low": [status_event(following, 2), status_event(following, 3)],
        }[fault]
        if fault == "last_seq_too_low":
            following = record.next(last_seq=2, updated_at_ms=BASE_MS + 1)
        key = new_id("key")
        with pytest.raises(ValueError):
            await store.update_task(following, events, idempotency_key=key)
        assert await store.get_task(record.task_id) == record
        assert len(await store.read_events(record.task_id)) == 1
        assert await store.find_idempotency_key(key) is None

    @pytest.mark.parametrize("fault", ["not_from_one", "gap", "last_seq_mismatch"])
    async def test_create_with_bad_event_sequence_writes_nothing(
        self, store: Store, fault: str
    ) -> None:
        record = make_record(last_seq=2)
        events = {
            "not_from_one": [status_event(record, 2), status_event(record, 3)],
            "gap": [status_event(record, 1), status_event(record, 3)],
            "last_seq_mismatch": [status_event(record, 1)],
        }[fault]
        key = new_id("key")
        with pytest.raises(ValueError):
            await store.create_task(record, events, idempotency_key=key)
        assert await store.get_task(record.task_id) is None
        assert await store.read_events(record.task_id) == []
        assert await store.find_idempotency_key(key) is None

    # --- idempotency keys ---

    async def test_idempotency_key_claimed_with_create(self, store: Store) -> None:
        key = new_id("key")
        record = make_record()
        assert await store.find_idempotency_key(key) is None
        await store.create_task(record, idempotency_key=key)
        assert await store.find_idempotency_key(key) == record.task_id

        other = make_record(last_seq=1)
        with pytest.raises(IdempotencyKeyTaken) as raised:
            await store.create_task(other, [status_event(other, 1)], idempotency_key=key)
        assert raised.value.key == key
        assert raised.value.task_id == record.task_id
        assert await store.get_task(other.task_id) is None
        assert await store.read_events(other.task_id) == []

    async def test_retried_create_reports_the_key_not_the_duplicate(self, store: Store) -> None:
        # A retry repeats both the task id and the key; the key says which task it made.
        key = new_id("key")
        record = make_record()
        await store.create_task(record, idempotency_key=key)
        with pytest.raises(IdempotencyKeyTaken) as raised:
            await store.create_task(record, idempotency_key=key)
        assert raised.value.task_id == record.task_id

    async def test_idempotency_key_claimed_with_update(self, store: Store) -> None:
        record = make_record()
        await store.create_task(record)
        key = new_id("key")
        following, events = step(record, 1)
        await store.update_task(following, events, idempotency_key=key)
        assert await store.find_idempotency_key(key) == record.task_id

        # The same key again, even on the current version of the same task, is refused whole.
        again, again_events = step(following, 1)
        with pytest.raises(IdempotencyKeyTaken) as raised:
            await store.update_task(again, again_events, idempotency_key=key)
        assert raised.value.task_id == record.task_id
        assert await store.get_task(record.task_id) == following
        assert await store.read_events(record.task_id) == events

    async def test_update_refused_for_key_of_another_task(self, store: Store) -> None:
        first, second = make_record(), make_record()
        key = new_id("key")
        await store.create_task(first, idempotency_key=key)
        await store.create_task(second)
        following, events = step(second, 1)
        with pytest.raises(IdempotencyKeyTaken) as raised:
            await store.update_task(following, events, idempotency_key=key)
        assert raised.value.task_id == first.task_id
        assert await store.get_task(second.task_id) == second
        assert await store.read_events(second.task_id) == []

    async def test_concurrent_creates_with_one_key_exactly_one_wins(self, store: Store) -> None:
        key = new_id("key")
        one, two = make_record(), make_record()
        results = await asyncio.gather(
            store.create_task(one, idempotency_key=key),
            store.create_task(two, idempotency_key=key),
            return_exceptions=True,
        )
        assert sorted(type(result).__name__ for result in results) == [
            "IdempotencyKeyTaken",
            "NoneType",
        ]
        winner, loser = (one, two) if results[0] is None else (two, one)
        assert await store.find_idempotency_key(key) == winner.task_id
        assert await store.get_task(loser.task_id) is None

    async def test_one_message_id_under_several_fingerprints(self, store: Store) -> None:
        # The service's keys: a messageId reused on other messages is a key per request
        # fingerprint, each claimed on its own, beside a key written by earlier versions
        # (`owner\nmessageId`), which stays readable. None is a prefix match of another.
        owner, message_id = new_id("owner"), new_id("msg")

        def request(text: str, **config: Any) -> SendMessageRequest:
            message = Message(message_id=message_id, role="user", parts=[Part(text=text)])
            configuration = SendMessageConfiguration(**config) if config else None
            return SendMessageRequest(message=message, configuration=configuration)

        legacy = legacy_idempotency_key(owner, message_id)
        keys = [
            idempotency_key(owner, request("a")),
            idempotency_key(owner, request("b")),
            idempotency_key(owner, request("a", accepted_output_modes=["text/plain"])),
        ]
        assert len({legacy, *keys}) == 4
        old = make_record()
        await store.create_task(old, idempotency_key=legacy)
        records = [make_record() for _ in keys[:2]]
        for record, key in zip(records, keys[:2], strict=True):
            await store.create_task(record, idempotency_key=key)
        reply = make_reply(keys[2])
        await store.put_reply(reply)
        assert await store.find_idempotency_key(legacy) == old.task_id
        assert [await store.find_idempotency_key(key) for key in keys] == [
            *(record.task_id for record in records),
            None,
        ]
        assert await store.find_reply(keys[2]) == reply
        assert await store.find_reply(legacy) is None

    async def test_create_refused_while_its_free_key_is_held(self, store: Store) -> None:
        # `free_key`: checked with the create, never claimed by it; a held one (by a task or
        # a live reply) refuses the whole create.
        held, replied = new_id("held"), make_reply(expires_at_ms=now_ms() + HOUR_MS)
        await store.create_task(make_record(), idempotency_key=held)
        await store.put_reply(replied)
        for free_key in (held, replied.key):
            key = new_id("key")
            record = make_record(last_seq=1)
            with pytest.raises(KeyHeld) as raised:
                await store.create_task(
                    record, [status_event(record, 1)], idempotency_key=key, free_key=free_key
                )
            assert raised.value.key == free_key
            assert await store.get_task(record.task_id) is None
            assert await store.read_events(record.task_id) == []
            assert await store.find_idempotency_key(key) is None

    async def test_create_with_a_free_key_leaves_it_free(self, store: Store) -> None:
        free_key, key = new_id("free"), new_id("key")
        expired = make_reply(expires_at_ms=now_ms() - HOUR_MS)
        await store.put_reply(expired)
        record = make_record(last_seq=1)
        await store.create_task(
            record, [status_event(record, 1)], idempotency_key=key, free_key=free_key
        )
        assert await store.find_idempotency_key(key) == record.task_id
        assert await store.find_idempotency_key(free_key) is None
        # An expired reply holds no key: it does not refuse the create either.
        other = make_record()
        await store.create_task(other, idempotency_key=new_id("key"), free_key=expired.key)
        # Still free: a later claim of it succeeds.
        claimer = make_record()
        await store.create_task(claimer, idempotency_key=free_key)
        assert await store.find_idempotency_key(free_key) == claimer.task_id

    async def test_create_with_both_keys_held_is_refused_whole(self, store: Store) -> None:
        # Either refusal may come first; nothing is written in both cases.
        key, free_key = new_id("key"), new_id("free")
        first, second = make_record(), make_record()
        await store.create_task(first, idempotency_key=key)
        await store.create_task(second, idempotency_key=free_key)
        record = make_record()
        with pytest.raises((IdempotencyKeyTaken, KeyHeld)):
            await store.create_task(record, idempotency_key=key, free_key=free_key)
        assert await store.get_task(record.task_id) is None
        assert await store.find_idempotency_key(key) == first.task_id

    async def test_unknown_idempotency_key_is_none(self, store: Store) -> None:
        assert await store.find_idempotency_key(new_id("key")) is None

    # --- direct replies (one key space with the tasks' idempotency keys) ---

    async def test_reply_round_trip(self, store: Store) -> None:
        reply = make_reply(expires_at_ms=now_ms() + HOUR_MS)
        assert await store.find_reply(reply.key) is None
        await store.put_reply(reply)
        assert await store.find_reply(reply.key) == reply
        # The key holds a reply, not a task.
        assert await store.find_idempotency_key(reply.key) is None

    async def test_reply_refused_for_a_tasks_key(self, store: Store) -> None:
        key = new_id("key")
        record = make_record()
        await store.create_task(record, idempotency_key=key)
        with pytest.raises(IdempotencyKeyTaken) as raised:
            await store.put_reply(make_reply(key))
        assert raised.value.task_id == record.task_id
        assert await store.find_reply(key) is None

    async def test_task_refused_for_a_replys_key(self, store: Store) -> None:
        reply = make_reply()
        await store.put_reply(reply)
        record = make_record(last_seq=1)
        with pytest.raises(IdempotencyKeyTaken) as raised:
            await store.create_task(record, [status_event(record, 1)], idempotency_key=reply.key)
        assert raised.value.task_id == ""
        assert await store.get_task(record.task_id) is None

        other = make_record()
        await store.create_task(other)
        following, events = step(other, 1)
        with pytest.raises(IdempotencyKeyTaken) as raised:
            await store.update_task(following, events, idempotency_key=reply.key)
        assert raised.value.task_id == ""
        assert await store.get_task(other.task_id) == other
        assert await store.find_reply(reply.key) == reply

    async def test_second_reply_for_a_key_is_refused(self, store: Store) -> None:
        first = make_reply(text="first")
        await store.put_reply(first)
        with pytest.raises(IdempotencyKeyTaken) as raised:
            await store.put_reply(make_reply(first.key, text="second"))
        assert raised.value.task_id == ""
        assert await store.find_reply(first.key) == first

    async def test_concurrent_replies_for_one_key_exactly_one_wins(self, store: Store) -> None:
        key = new_id("key")
        replies = [make_reply(key, text=f"reply {i}") for i in range(4)]
        results = await asyncio.gather(
            *(store.put_reply(reply) for reply in replies), return_exceptions=True
        )
        assert sorted(type(result).__name__ for result in results) == [
            "IdempotencyKeyTaken",
            "IdempotencyKeyTaken",
            "IdempotencyKeyTaken",
            "NoneType",
        ]
        assert await store.find_reply(key) == replies[results.index(None)]

    async def test_expired_reply_is_invisible_and_frees_its_key(self, store: Store) -> None:
        expired = make_reply(expires_at_ms=now_ms() - HOUR_MS)
        await store.put_reply(expired)
        assert await store.find_reply(expired.key) is None
        again = make_reply(expired.key, text="again", expires_at_ms=now_ms() - HOUR_MS)
        await store.put_reply(again)
        assert await store.find_reply(expired.key) is None
        # A task may claim the key of an expired reply too.
        record = make_record()
        await store.create_task(record, idempotency_key=expired.key)
        assert await store.find_idempotency_key(expired.key) == record.task_id
        assert await store.find_reply(expired.key) is None

    # --- listing ---

    async def test_list_is_per_owner(self, store: Store) -> None:
        alice, bob = new_id("alice"), new_id("bob")
        mine = [make_record(owner=alice, updated_at_ms=BASE_MS + i) for i in range(3)]
        theirs = [make_record(owner=bob, updated_at_ms=BASE_MS + i) for i in range(2)]
        for record in [*mine, *theirs]:
            await store.create_task(record)
        page = await store.list_tasks(TaskQuery(owner=alice))
        assert [r.task_id for r in page.records] == newest_first(mine)
        assert page.records == sorted(mine, key=lambda r: r.updated_at_ms, reverse=True)
        assert page.total_size == 3 and not page.has_more
        page = await store.list_tasks(TaskQuery(owner=bob))
        assert [r.task_id for r in page.records] == newest_first(theirs)
        empty = await store.list_tasks(TaskQuery(owner=new_id("nobody")))
        assert empty.records == [] and empty.total_size == 0 and not empty.has_more

    async def test_list_filters(self, store: Store) -> None:
        owner = new_id("owner")
        ctx_a, ctx_b = new_id("ctx"), new_id("ctx")
        records = [
            make_record(owner=owner, context_id=ctx_a, state=TaskState.WORKING, updated_at_ms=10),
            make_record(owner=owner, context_id=ctx_a, state=TaskState.COMPLETED, updated_at_ms=20),
            make_record(owner=owner, context_id=ctx_b, state=TaskState.WORKING, updated_at_ms=30),
            make_record(owner=owner, context_id=ctx_b, state=TaskState.FAILED, updated_at_ms=40),
            make_record(owner=owner, context_id=ctx_a, state=TaskState.WORKING, updated_at_ms=50),
        ]
        for record in records:
            await store.create_task(record)

        async def ids(**filters: Any) -> list[str]:
            page = await store.list_tasks(TaskQuery(owner=owner, **filters))
            assert page.total_size == len(page.records) and not page.has_more
            return [r.task_id for r in page.records]

        def expect(*indexes: int) -> list[str]:
            return newest_first([records[i] for i in indexes])

        assert await ids() == expect(0, 1, 2, 3, 4)
        assert await ids(context_id=ctx_a) == expect(0, 1, 4)
        assert await ids(state="working") == expect(0, 2, 4)
        assert await ids(context_id=ctx_a, state="working") == expect(0, 4)
        assert await ids(state="input-required") == []
        # updated_after_ms is inclusive.
        assert await ids(updated_after_ms=30) == expect(2, 3, 4)
        assert await ids(updated_after_ms=31) == expect(3, 4)
        assert await ids(context_id=ctx_b, updated_after_ms=35, state="failed") == expect(3)
        assert await ids(context_id=new_id("ctx")) == []

    async def test_list_sees_updates(self, store: Store) -> None:
        owner = new_id("owner")
        old, new = (
            make_record(owner=owner, updated_at_ms=1),
            make_record(owner=owner, updated_at_ms=2),
        )
        await store.create_task(old)
        await store.create_task(new)
        following, events = step(old, 1, task=with_state(old, TaskState.WORKING), updated_at_ms=3)
        await store.update_task(following, events)
        page = await store.list_tasks(TaskQuery(owner=owner))
        assert page.records == [following, new]
        working = await store.list_tasks(TaskQuery(owner=owner, state="working"))
        assert working.records == [following]

    async def test_list_order_breaks_ties_by_task_id_descending(self, store: Store) -> None:
        owner, prefix = new_id("owner"), new_id("t")
        records = [
            make_record(f"{prefix}-{suffix}", owner=owner, updated_at_ms=at)
            for suffix, at in [("b", 5), ("a", 5), ("d", 7), ("c", 5), ("e", 1)]
        ]
        for record in records:
            await store.create_task(record)
        page = await store.list_tasks(TaskQuery(owner=owner))
        assert [r.task_id.rsplit("-", 1)[1] for r in page.records] == ["d", "c", "b", "a", "e"]

    async def test_list_pagination_visits_every_task_once(self, store: Store) -> None:
        owner = new_id("owner")
        # Ties on updated_at_ms, so pages split inside groups of equal timestamps.
        records = [make_record(owner=owner, updated_at_ms=BASE_MS + i // 3) for i in range(23)]
        for record in records:
            await store.create_task(record)

        pages = await all_pages(store, TaskQuery(owner=owner, limit=5))
        assert [len(page) for page in pages] == [5, 5, 5, 5, 3]
        visited = [r.task_id for page in pages for r in page]
        assert visited == newest_first(records)
        assert len(set(visited)) == 23

        first = await store.list_tasks(TaskQuery(owner=owner, limit=5))
        assert first.total_size == 23 and first.has_more
        last_of_first = first.records[-1]
        second = await store.list_tasks(
            TaskQuery(
                owner=owner, limit=5, after=(last_of_first.updated_at_ms, last_of_first.task_id)
            )
        )
        # total_size ignores the cursor and the limit.
        assert second.total_size == 23 and second.has_more
        assert [r.task_id for r in second.records] == visited[5:10]

    async def test_list_has_more_exactly_at_the_end(self, store: Store) -> None:
        owner = new_id("owner")
        records = [make_record(owner=owner, updated_at_ms=BASE_MS + i) for i in range(10)]
        for record in records:
            await store.create_task(record)
        pages = await all_pages(store, TaskQuery(owner=owner, limit=5))
        assert [len(page) for page in pages] == [5, 5]
        whole = await store.list_tasks(TaskQuery(owner=owner, limit=10))
        assert len(whole.records) == 10 and not whole.has_more
        more = await store.list_tasks(TaskQuery(owner=owner, limit=100))
        assert len(more.records) == 10 and not more.has_more and more.total_size == 10

    async def test_list_pagination_with_filters(self, store: Store) -> None:
        owner, ctx = new_id("owner"), new_id("ctx")
        matching = [
            make_record(owner=owner, context_id=ctx, updated_at_ms=BASE_MS + i % 4)
            for i in range(11)
        ]
        others = [make_record(owner=owner, updated_at_ms=BASE_MS + i) for i in range(6)]
        for record in [*matching, *others]:
            await store.create_task(record)
        pages = await all_pages(store, TaskQuery(owner=owner, context_id=ctx, limit=4))
        assert [len(page) for page in pages] == [4, 4, 3]
        assert [r.task_id for page in pages for r in page] == newest_first(matching)
        page = await store.list_tasks(TaskQuery(owner=owner, context_id=ctx, limit=4))
        assert page.total_size == 11

    async def test_list_cursor_is_exclusive(self, store: Store) -> None:
        owner = new_id("owner")
        records = [make_record(owner=owner, updated_at_ms=BASE_MS + i) for i in range(4)]
        for record in records:
            await store.create_task(record)
        pivot = records[2]
        page = await store.list_tasks(
            TaskQuery(owner=owner, after=(pivot.updated_at_ms, pivot.task_id))
        )
        assert [r.task_id for r in page.records] == newest_first(records[:2])

    # --- expiry ---

    async def test_expired_tasks_are_invisible(self, store: Store) -> None:
        owner = new_id("owner")
        expired = make_record(owner=owner, expires_at_ms=now_ms() - HOUR_MS)
        live = make_record(owner=owner, expires_at_ms=now_ms() + HOUR_MS)
        forever = make_record(owner=owner)
        for record in (expired, live, forever):
            await store.create_task(record)
        assert await store.get_task(expired.task_id) is None
        assert await store.get_task(live.task_id) == live
        page = await store.list_tasks(TaskQuery(owner=owner))
        assert {r.task_id for r in page.records} == {live.task_id, forever.task_id}
        assert page.total_size == 2 and not page.has_more

    async def test_task_expires_through_update(self, store: Store) -> None:
        owner = new_id("owner")
        record = make_record(owner=owner)
        await store.create_task(record)
        following, events = step(
            record, 1, task=with_state(record, TaskState.COMPLETED), expires_at_ms=now_ms() - 1
        )
        await store.update_task(following, events)
        assert await store.get_task(record.task_id) is None
        assert (await store.list_tasks(TaskQuery(owner=owner))).total_size == 0

    # --- push notification configs ---

    async def test_push_config_put_get_list_delete(self, store: Store) -> None:
        task_id = new_id("task")
        first, second = push_config(task_id, "cfg-b"), push_config(task_id, "cfg-a")
        await store.put_push_config(first)
        await store.put_push_config(second)
        assert await store.get_push_config(task_id, "cfg-b") == first
        assert await store.get_push_config(task_id, "cfg-a") == second
        assert await store.get_push_config(task_id, "cfg-missing") is None
        # Ordered by config id.
        assert await store.list_push_configs(task_id) == [second, first]

        assert await store.delete_push_config(task_id, "cfg-b") is True
        assert await store.get_push_config(task_id, "cfg-b") is None
        assert await store.list_push_configs(task_id) == [second]
        assert await store.delete_push_config(task_id, "cfg-b") is False
        assert await store.delete_push_config(new_id("task"), "cfg-a") is False

    async def test_push_config_put_replaces(self, store: Store) -> None:
        task_id = new_id("task")
        await store.put_push_config(push_config(task_id, "cfg", url="https://a.example/hook"))
        replacement = push_config(task_id, "cfg", owner="someone", url="https://b.example/hook")
        await store.put_push_config(replacement)
        assert await store.get_push_config(task_id, "cfg") == replacement
        assert await store.list_push_configs(task_id) == [replacement]

    async def test_push_configs_are_per_task(self, store: Store) -> None:
        one, two = new_id("task"), new_id("task")
        config = push_config(one, "cfg")
        await store.put_push_config(config)
        assert await store.get_push_config(two, "cfg") is None
        assert await store.list_push_configs(two) == []
        assert await store.delete_push_config(two, "cfg") is False
        assert await store.get_push_config(one, "cfg") == config
        assert await store.list_push_configs(new_id("task")) == []

    # --- records of earlier versions ---

    async def test_records_of_earlier_versions_read_back(self, store: Store) -> None:
        """A task record, its event log and a direct reply as versions before the internal model
        became A2A 1.0's wrote them (0.3's shapes: `kind`, a file part's `file`, the
        data_part_compat wrapping, `final`), written by this store, read back in today's model
        (store/legacy.py)."""
        task_id, reply_key = new_id("task"), new_id("key")

        def renamed(text: str) -> str:  # a fresh task id and key: the store may be shared
            return text.replace("t-legacy", task_id).replace("alice\\nm-9\\nfp", reply_key)

        record_text = renamed(legacy_records.RECORD)
        record = store_base.record_from_json(record_text)
        events_text = {seq: renamed(text) for seq, text in legacy_records.EVENTS.items()}
        events = [store_base.event_from_json(seq, text) for seq, text in events_text.items()]
        reply_text = renamed(legacy_records.REPLY)
        reply = store_base.reply_from_json(reply_text)
        literal = {id(record): record_text, id(reply): reply_text}
        literal.update({id(event): events_text[event.seq] for event in events})
        with written_as(literal):
            await store.create_task(record, events)
            await store.put_reply(reply)

        got = await store.get_task(task_id)
        assert got is not None
        assert got.task == _renamed(legacy_records.EXPECTED_TASK, task_id)
        read = await store.read_events(task_id)
        assert [event.seq for event in read] == [1, 2, 3]
        assert [event.payload for event in read] == [
            _renamed(legacy_records.EXPECTED_EVENTS[seq], task_id) for seq in (1, 2, 3)
        ]
        assert read[-1].is_final and not read[0].is_final
        replied = await store.find_reply(reply_key)
        assert replied is not None and replied.reply == legacy_records.EXPECTED_REPLY

    async def test_push_configs_stored_by_earlier_versions_read_back(
        self, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # Each store keeps a config's JSON as `store.base.push_config_to_json` writes it; here
        # it writes, instead, the literal JSON earlier versions wrote (0.3's nested form:
        # `authentication.schemes`, no `taskId` in the config), which reads back as today's.
        task_id = new_id("task")
        written = iter(legacy_push_config_json(task_id, "cfg-1", "cfg-2"))
        monkeypatch.setattr(
            sys.modules[type(store).__module__], "push_config_to_json", lambda _: next(written)
        )
        for config_id in ("cfg-1", "cfg-2"):
            await store.put_push_config(push_config(task_id, config_id))
        monkeypatch.undo()
        first = StoredPushConfig(
            task_id=task_id,
            owner="user:alice",
            config=TaskPushNotificationConfig(
                url="https://hooks.example.com/a2a",
                id="cfg-1",
                task_id=task_id,
                token="tok",
                authentication=AuthenticationInfo(scheme="Bearer", credentials="secret"),
            ),
        )
        second = StoredPushConfig(
            task_id=task_id,
            owner="user:alice",
            config=TaskPushNotificationConfig(
                url="https://hooks.example.com/v1",
                id="cfg-2",
                task_id=task_id,
                authentication=AuthenticationInfo(scheme=""),
            ),
            protocol="1.0",
        )
        assert await store.get_push_config(task_id, "cfg-1") == first
        assert await store.list_push_configs(task_id) == [first, second]
        # Written again, it is kept in today's form and reads back the same.
        await store.put_push_config(second)
        assert await store.get_push_config(task_id, "cfg-2") == second

    # --- isolation of stored state ---

    async def test_stored_records_cannot_be_changed_through_objects(self, store: Store) -> None:
        record = make_record(internal={"list": [1]}, last_seq=1)
        event = status_event(record, 1)
        snapshot = make_record(
            record.task_id,
            owner=record.owner,
            task=record.task.model_copy(deep=True),
            internal={"list": [1]},
            last_seq=1,
        )
        await store.create_task(record, [event])

        # What the caller passed in...
        record.task.status.state = TaskState.FAILED
        record.internal["list"].append(2)
        assert isinstance(event.payload, TaskStatusUpdateEvent)
        event.payload.status.state = TaskState.FAILED
        assert await store.get_task(record.task_id) == snapshot

        # ...and what it got back.
        got = await store.get_task(record.task_id)
        assert got is not None
        got.task.status.state = TaskState.CANCELED
        got.internal["list"].append(3)
        listed = (await store.list_tasks(TaskQuery(owner=record.owner))).records[0]
        listed.internal["other"] = True
        assert await store.get_task(record.task_id) == snapshot

        events = await store.read_events(record.task_id)
        assert isinstance(events[0].payload, TaskStatusUpdateEvent)
        events[0].payload.status.state = TaskState.CANCELED
        again = (await store.read_events(record.task_id))[0].payload
        assert isinstance(again, TaskStatusUpdateEvent)
        assert again.status.state == TaskState.SUBMITTED

    async def test_stored_push_configs_cannot_be_changed_through_objects(
        self, store: Store
    ) -> None:
        task_id = new_id("task")
        config = push_config(task_id, "cfg")
        await store.put_push_config(config)
        config.config.url = "https://changed.example"
        got = await store.get_push_config(task_id, "cfg")
        assert got is not None and got.config.url == "https://example.com/hook"
        got.config.url = "https://changed-again.example"
        listed = await store.list_push_configs(task_id)
        assert listed[0].config.url == "https://example.com/hook"

    # --- large content (parts of several MB; stores may keep them out of their items) ---

    async def _assert_reads_back(
        self, store: Store, record: TaskRecord, events: list[TaskEvent]
    ) -> None:
        """Every read path gives back the content written, byte for byte."""
        got = await store.get_task(record.task_id)
        assert got is not None and got == record
        assert codec.encode(got.task) == codec.encode(record.task)
        replayed = await store.read_events(record.task_id, 0)
        assert [e.seq for e in replayed] == [e.seq for e in events]
        for read, written in zip(replayed, events, strict=True):
            assert codec.encode(read.payload) == codec.encode(written.payload)
        for after in (0, len(events) // 2):
            tail = await store.read_events(record.task_id, after, limit=2)
            assert [codec.encode(e.payload) for e in tail] == [
                codec.encode(e.payload) for e in events[after : after + 2]
            ]
        page = await store.list_tasks(TaskQuery(owner=record.owner))
        assert [codec.encode(r.task) for r in page.records] == [codec.encode(record.task)]

    async def _produce_artifact(
        self, store: Store, chunks: list[Part], *, history: list[Message] | None = None
    ) -> tuple[TaskRecord, list[TaskEvent]]:
        """A task that streams `chunks` as one artifact, one write per chunk, then completes."""
        record = make_record(state=TaskState.WORKING)
        if history is not None:
            record = record.next(task=record.task.model_copy(update={"history": history}))
            record = replace(record, version=1)
        await store.create_task(record)
        written: list[TaskEvent] = []
        parts: list[Part] = []
        for index, chunk in enumerate(chunks):
            parts.append(chunk)
            seq = record.last_seq + 1
            task = record.task.model_copy(
                update={"artifacts": [Artifact(artifact_id="a-1", name="out", parts=list(parts))]}
            )
            following = record.next(task=task, last_seq=seq, updated_at_ms=record.updated_at_ms + 1)
            event = TaskEvent(
                seq=seq,
                payload=TaskArtifactUpdateEvent(
                    task_id=record.task_id,
                    context_id=record.context_id,
                    artifact=Artifact(artifact_id="a-1", name="out", parts=[chunk]),
                    append=index > 0,
                    last_chunk=index == len(chunks) - 1,
                ),
            )
            await store.update_task(following, [event])
            written.append(event)
            record = following
        # Status changes after the artifact: the content stays as it was.
        for state in (TaskState.WORKING, TaskState.COMPLETED):
            following, status = step(record, 1, task=with_state(record, state))
            await store.update_task(following, status)
            written += status
            record = following
        return record, written

    async def test_large_text_artifact_reads_back_identical(self, store: Store) -> None:
        record, events = await self._produce_artifact(store, [Part(text=large_text(1_500_000))])
        await self._assert_reads_back(store, record, events)

    async def test_large_inline_file_artifact_reads_back_identical(self, store: Store) -> None:
        record, events = await self._produce_artifact(store, [large_file(3_000_000)])
        await self._assert_reads_back(store, record, events)

    async def test_artifact_of_8_mb_streamed_in_chunks_reads_back_identical(
        self, store: Store
    ) -> None:
        chunks: list[Part] = [Part(text=large_text(256 * 1024, seed=n)) for n in range(32)]
        record, events = await self._produce_artifact(store, chunks)
        assert sum(len(codec.encode(part)) for part in chunks) > 8_000_000
        await self._assert_reads_back(store, record, events)

    async def test_large_inline_uploads_read_back_identical(self, store: Store) -> None:
        # A client's message with a 3 MB file, then one at 4 MiB (A2A_MAX_FILE_BYTES' default).
        for size in (3_000_000, 4 * 1024 * 1024):
            message = Message(
                message_id=new_id("msg"),
                role="user",
                parts=[Part(text="please read this"), large_file(size, seed=size)],
            )
            record, events = await self._produce_artifact(
                store, [Part(text="read it")], history=[message]
            )
            await self._assert_reads_back(store, record, events)

    async def test_large_status_message_reads_back_identical(self, store: Store) -> None:
        record = make_record(state=TaskState.WORKING)
        await store.create_task(record)
        status = TaskStatus(
            state=TaskState.INPUT_REQUIRED,
            message=Message(
                message_id=new_id("msg"),
                role="agent",
                parts=[Part(text=large_text(600_000)), large_file(700_000)],
            ),
        )
        following = record.next(task=record.task.model_copy(update={"status": status}), last_seq=1)
        event = TaskEvent(
            seq=1,
            payload=TaskStatusUpdateEvent(
                task_id=record.task_id, context_id=record.context_id, status=status
            ),
        )
        await store.update_task(following, [event])
        await self._assert_reads_back(store, following, [event])

    async def test_stale_write_of_large_content_writes_nothing(self, store: Store) -> None:
        record, events = await self._produce_artifact(store, [Part(text=large_text(500_000))])
        stale = replace(record, version=record.version - 1)
        task = record.task.model_copy(
            update={"artifacts": [Artifact(artifact_id="a-2", parts=[large_file(500_000)])]}
        )
        with pytest.raises(VersionConflict):
            await store.update_task(stale.next(task=task), [])
        await self._assert_reads_back(store, record, events)

    async def test_large_direct_reply_reads_back_identical(self, store: Store) -> None:
        reply = make_reply()
        reply = replace(
            reply,
            reply=reply.reply.model_copy(update={"parts": [large_file(3_000_000, seed=7)]}),
        )
        await store.put_reply(reply)
        got = await store.find_reply(reply.key)
        assert got == reply
        assert got is not None and codec.encode(got.reply) == codec.encode(reply.reply)


__all__ = [
    "BASE_MS",
    "HOUR_MS",
    "StoreContract",
    "all_pages",
    "artifact_event",
    "large_file",
    "large_text",
    "make_record",
    "make_task",
    "new_id",
    "newest_first",
    "now_ms",
    "push_config",
    "status_event",
    "step",
    "with_state",
]
