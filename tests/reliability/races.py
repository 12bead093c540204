"""Races on a real Store, through two app instances: the scenarios of docs/RELIABILITY.md "Races".

Each scenario is a plain async function taking a `Deploy` (how to bring up two instances
running the scenario's agent) and returning a `RaceResult` with the counts and the problems
found. Two kinds of deployment run the same scenarios and checks:

- `threads(open_store)`, here: the two instances are threads of the test's process (below);
  the thin test files tests/reliability/test_races_sqlite.py, tests/aws/test_races_dynamodb.py
  and tests/gcp/test_races_firestore.py run them per store;
- `processes(...)` (tests/reliability/race_processes.py): each instance is its own OS process
  (dev-like servers, awslambdaric runtimes, functions-framework servers); the agents report
  to the driver over HTTP and each process writes its ledger to a file.

What runs in thread mode, as close to a deployment as one process allows:

- two app instances, like two Lambda containers or Cloud Run replicas: each has its own
  thread, event loop, Runtime and Store client on the same database, table or emulator, and is
  called over JSON-RPC through its ASGI app;
- the queue hands every turn an instance enqueues to the *other* instance's worker, so the
  agent always runs in one instance while the task's messages and cancels arrive through the
  other (or both);
- every task write either instance acknowledges is kept in a ledger (`LedgerStore`), so the
  checks can say that no acknowledged write was lost and that nothing else was written.

Scenarios:

1. `cancel_vs_complete`: the agent holds at a gate; the driver lets it go (it completes at once)
   at the moment it sends `tasks/cancel` through the other instance. Exactly one may win: a
   canceled task answers the cancel with the task, a completed one with -32002.
2. `concurrent_messages`: a task waits in `input-required`; N follow-up messages with distinct
   messageIds arrive at once through both instances (each is accepted, or refused with -32602
   because the task no longer waits for input), then one messageId N times at once (a client
   retrying: one turn, the same task in every answer), then a last message completes it.

After a scenario every task is checked (`_Checker`): both instances read the same record; the
event log runs 1..last_seq without gaps; a terminal task has exactly one terminal status event,
the last; no claim is left on it; its version is the count of acknowledged writes, the stored
record is the last of them and the log is exactly their events; no write followed the one that
ended it. Then, after a pause, every turn's job is delivered again (a queue's at-least-once
redelivery), up to 100 of the tasks are sent a late cancel and a late message (both must be
refused), and every task must read back unchanged, with no write acknowledged since.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import httpx

from a2a_serverless import Agent, Context, InputRequired, Settings, agent, create_app
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.models import TaskStatusUpdateEvent
from a2a_serverless.queue.base import RUN_AGENT, Job
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.store.base import (
    IdempotencyKeyTaken,
    Store,
    StoredPushConfig,
    TaskAlreadyExists,
    TaskEvent,
    TaskPage,
    TaskQuery,
    TaskRecord,
    VersionConflict,
)

T = TypeVar("T")
# Opens the Store of instance 0 or 1, in that instance's thread. The number lets a factory give
# each instance a client of its own where one process would otherwise share one.
StoreFactory = Callable[[int], Store]
# The agents the scenarios run, by name (what a process is told to serve).
RACER = "racer"
CONVERSATION = "conversation"

INVALID_PARAMS = -32602
NOT_CANCELABLE = -32002
# Generous limits that only stop a broken run from hanging; nothing is timed against them.
WAIT_S = 60.0
# Settings of both instances: blocking waits poll the store often, because a write made by
# the other instance wakes no waiter here (as between two containers).
INSTANCE_SETTINGS: dict[str, Any] = {
    "store_url": "memory://",  # unused: each instance is given its store
    "blocking_timeout_s": 30.0,
    "poll_interval_s": 0.02,
    # A second delivery of a turn that is running waits for the claim's lease before it looks
    # again (and finds the turn done); a short lease keeps those waits, and the drains after a
    # scenario, short. Every write renews it, and no turn here pauses for long between writes.
    "worker_lease_s": 5.0,
}
# Threads of each instance's default executor.
EXECUTOR_THREADS = 64
# Tasks sent a late cancel and a late message after a scenario.
POKED_TASKS = 100
# Jobs one instance's worker runs at once; above the rounds in flight, since a gated agent
# holds its slot until the driver lets it go.
WORKER_CONCURRENCY = 256


def env_int(name: str, default: int) -> int:
    """An integer from the environment (e.g. A2A_RACE_ROUNDS), else `default`."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    value = int(raw)
    if value < 1:
        raise ValueError(f"{name}={raw!r}: must be at least 1")
    return value


# --- the result --------------------------------------------------------------------------------


@dataclass
class RaceResult:
    store: str
    scenario: str
    rounds: int
    in_flight: int
    # How the two instances run: "threads" of one process or separate "processes".
    mode: str = "threads"
    outcomes: Counter[str] = field(default_factory=Counter)
    # Writes refused because another writer got there first; the journal re-read and decided
    # again each time.
    conflicts: int = 0
    # Concurrent copies of one message that lost the idempotency key to another copy.
    keys_taken: int = 0
    # Task writes (creates and updates) the instances' stores acknowledged.
    writes: int = 0
    tasks_checked: int = 0
    events_checked: int = 0
    elapsed_s: float = 0.0
    check_s: float = 0.0
    # Store-specific counters a test adds (e.g. DynamoDB transactions retried inside the store).
    extra: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        outcomes = ", ".join(f"{name} {count}" for name, count in sorted(self.outcomes.items()))
        extra = "".join(f", {name} {count}" for name, count in sorted(self.extra.items()))
        notes = "".join(f" ({note})" for note in self.notes)
        return (
            f"races[{self.store}] {self.scenario}: {self.rounds} rounds, {self.in_flight} in "
            f"flight, 2 instances ({self.mode}): {outcomes}{notes}; {self.conflicts} version "
            f"conflicts retried, {self.keys_taken} idempotency keys raced{extra}; "
            f"{self.writes} writes, "
            f"{self.tasks_checked} tasks and {self.events_checked} events checked; "
            f"{self.elapsed_s:.1f} s racing, {self.check_s:.1f} s checking; "
            f"{len(self.problems)} problems"
        )


# --- the ledger: every acknowledged write ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Write:
    record: TaskRecord
    events: tuple[TaskEvent, ...]


class Ledger:
    """Every task write a store acknowledged, per task, from both instances (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.writes: defaultdict[str, list[Write]] = defaultdict(list)
        self.conflicts = 0
        self.keys_taken = 0
        self.errors: list[str] = []

    def acknowledged(self, record: TaskRecord, events: Sequence[TaskEvent]) -> None:
        with self._lock:
            self.writes[record.task_id].append(Write(record, tuple(events)))

    def refused(self, error: Exception, record: TaskRecord) -> None:
        self.tally(refusal(error), f"task {record.task_id} v{record.version}: {error!r}")

    def tally(self, kind: str, text: str) -> None:
        """Count a refused write of `kind` (see `refusal`); `text` says what it was."""
        with self._lock:
            if kind == CONFLICT:
                self.conflicts += 1
            elif kind == KEY_TAKEN:
                self.keys_taken += 1
            elif kind == UNKNOWN:
                self.errors.append(text)

    def count(self) -> int:
        with self._lock:
            return sum(len(writes) for writes in self.writes.values())


CONFLICT, KEY_TAKEN, EXISTS, UNKNOWN = "conflict", "key-taken", "exists", "unknown"


def refusal(error: Exception) -> str:
    """What a refused write means for the ledger: a conflict or a raced key (counted), a task
    created twice (a retried create), or anything else, after which the write may or may not
    have landed and the ledger cannot vouch for the task."""
    if isinstance(error, VersionConflict):
        return CONFLICT
    if isinstance(error, IdempotencyKeyTaken):
        return KEY_TAKEN
    if isinstance(error, TaskAlreadyExists):
        return EXISTS
    return UNKNOWN


class Acknowledgements(Protocol):
    """Where a LedgerStore reports: the driver's `Ledger`, or a process's ledger file."""

    def acknowledged(self, record: TaskRecord, events: Sequence[TaskEvent]) -> None: ...

    def refused(self, error: Exception, record: TaskRecord) -> None: ...


class LedgerStore:
    """A Store that passes everything to `inner` and tells the ledger what it acknowledged."""

    def __init__(self, inner: Store, ledger: Acknowledgements) -> None:
        self.inner = inner
        self.ledger = ledger

    async def create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
        free_key: str | None = None,
    ) -> None:
        try:
            await self.inner.create_task(
                record, events, idempotency_key=idempotency_key, free_key=free_key
            )
        except Exception as error:
            self.ledger.refused(error, record)
            raise
        self.ledger.acknowledged(record, events)

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        try:
            await self.inner.update_task(record, events, idempotency_key=idempotency_key)
        except Exception as error:
            self.ledger.refused(error, record)
            raise
        self.ledger.acknowledged(record, events)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        return await self.inner.get_task(task_id)

    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        return await self.inner.list_tasks(query)

    async def read_events(
        self, task_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[TaskEvent]:
        return await self.inner.read_events(task_id, after_seq, limit)

    async def find_idempotency_key(self, key: str) -> str | None:
        return await self.inner.find_idempotency_key(key)

    async def put_push_config(self, config: StoredPushConfig) -> None:
        await self.inner.put_push_config(config)

    async def get_push_config(self, task_id: str, config_id: str) -> StoredPushConfig | None:
        return await self.inner.get_push_config(task_id, config_id)

    async def list_push_configs(self, task_id: str) -> list[StoredPushConfig]:
        return await self.inner.list_push_configs(task_id)

    async def delete_push_config(self, task_id: str, config_id: str) -> bool:
        return await self.inner.delete_push_config(task_id, config_id)

    async def close(self) -> None:
        await self.inner.close()


# --- gates across event loops ------------------------------------------------------------------


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Gate:
    """Holds an agent (on its instance's loop) until the driver (on its own loop) lets it go."""

    def __init__(self) -> None:
        self._driver_loop = asyncio.get_running_loop()
        # Resolved on the driver's loop once the agent is waiting.
        self.arrived: asyncio.Future[None] = self._driver_loop.create_future()
        self._lock = threading.Lock()
        self._released = False
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None

    async def arrive_and_wait(self) -> None:
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        with self._lock:
            released = self._released
            if not released:
                self._waiter = (loop, waiter)
        self._driver_loop.call_soon_threadsafe(_resolve, self.arrived)
        if not released:
            await waiter

    def release(self) -> None:
        with self._lock:
            self._released = True
            waiter, self._waiter = self._waiter, None
        if waiter is not None:
            loop, future = waiter
            loop.call_soon_threadsafe(_resolve, future)


class Observer:
    """What the agents tell the driver: they wait at a message's gate, and say which message
    each turn they run was for (thread-safe; in process mode through race_processes' HTTP)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gates: dict[str, Gate] = {}
        # Per task, the messageIds of the turns the agent ran, in the order it ran them.
        self.seen: defaultdict[str, list[str]] = defaultdict(list)

    def open(self, key: str) -> Gate:
        """A gate for the agent that runs message `key` (on the driver's loop)."""
        gate = Gate()
        with self._lock:
            self._gates[key] = gate
        return gate

    async def arrive(self, key: str) -> None:
        with self._lock:
            gate = self._gates[key]
        await gate.arrive_and_wait()

    async def saw(self, task_id: str, message_id: str) -> None:
        with self._lock:
            self.seen[task_id].append(message_id)


class AgentHooks(Protocol):
    """What an agent of the scenarios calls: the driver's `Observer`, or a process's client."""

    async def arrive(self, key: str) -> None: ...

    async def saw(self, task_id: str, message_id: str) -> None: ...


def racer(hooks: AgentHooks) -> Agent:
    """The agent of scenario 1: waits at its message's gate, then completes at once."""

    @agent(name="Racer", description="Completes the moment it is let go.")
    async def racing(ctx: Context) -> str:
        await hooks.saw(ctx.task_id, ctx.message.message_id)
        await hooks.arrive(ctx.message.message_id)
        return "finished"

    return racing


def conversation(hooks: AgentHooks, seed: int) -> Agent:
    """The agent of scenario 2: asks for input until told "done"."""
    rng = random.Random(seed)
    lock = threading.Lock()

    @agent(name="Conversation", description="Asks for more until told 'done'.")
    async def conversing(ctx: Context) -> str:
        await hooks.saw(ctx.task_id, ctx.message.message_id)
        if ctx.text == "done":
            return "bye"
        with lock:
            pause = rng.uniform(0, 0.003)
        # A turn of a few milliseconds: later messages of a burst may find the task waiting
        # for input again, and be accepted too.
        await asyncio.sleep(pause)
        raise InputRequired("More?")

    return conversing


def scenario_agent(name: str, hooks: AgentHooks, seed: int = 9) -> Agent:
    """The agent called `name` (RACER or CONVERSATION), reporting to `hooks`."""
    if name == RACER:
        return racer(hooks)
    if name == CONVERSATION:
        return conversation(hooks, seed)
    raise ValueError(f"no race agent called {name!r}")


# --- two app instances -------------------------------------------------------------------------


class HandOff:
    """The Queue of one instance: each job goes to the other instance's worker, through
    `deliver` (the other thread's inbox, or the other process's over HTTP).

    Every run-agent job is kept, so it can be delivered again later."""

    supports_delay = True

    def __init__(self, deliver: Callable[[Job, float], Awaitable[None]] | None = None) -> None:
        self.deliver = deliver
        self.jobs: list[Job] = []

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        assert self.deliver is not None, "the hand-off has no target instance"
        self.jobs.append(job)
        await self.deliver(job, delay_s)

    async def redeliver(self) -> None:
        """Every run-agent job once more, as a queue's at-least-once delivery may."""
        assert self.deliver is not None, "the hand-off has no target instance"
        for job in [job for job in self.jobs if job.kind == RUN_AGENT]:
            await self.deliver(job, 0.0)

    def start(self, jobs: object) -> None:
        pass  # the other instance consumes

    async def aclose(self) -> None:
        pass


class Instance:
    """One app instance: its own thread, event loop, Store client, Runtime and worker."""

    def __init__(self, number: int, agent: Agent, open_store: StoreFactory, ledger: Ledger) -> None:
        self.number = number
        self.name = "ab"[number]
        self._agent = agent
        self._open_store = open_store
        self._ledger = ledger
        self.outbox = HandOff()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=f"race-{self.name}", daemon=True)
        self.store: LedgerStore
        self.app: A2AApplication
        self.inbox: InProcessQueue
        self.client: httpx.AsyncClient

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        # A store that runs a synchronous client in threads (DynamoDB: pynamodb) would queue the
        # calls of dozens of concurrent requests behind the default pool's few threads; this
        # instance stands for many containers, each of which has its calls to itself.
        self.loop.set_default_executor(ThreadPoolExecutor(EXECUTOR_THREADS, f"race-{self.name}"))
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()

    async def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on this instance's loop; await it from any other loop."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return await asyncio.wait_for(asyncio.wrap_future(future), WAIT_S)

    async def start(self) -> None:
        self._thread.start()
        await self.call(self._build())

    async def _build(self) -> None:
        self.store = LedgerStore(self._open_store(self.number), self._ledger)
        self.app = create_app(
            self._agent,
            Settings(**INSTANCE_SETTINGS),
            store=self.store,
            queue=self.outbox,
            push_notifications=False,
        )
        self.inbox = InProcessQueue(self.app.runtime.jobs, concurrency=WORKER_CONCURRENCY)
        transport = httpx.ASGITransport(app=self.app)
        self.client = httpx.AsyncClient(transport=transport, base_url=f"http://{self.name}")

    async def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A JSON-RPC call to this instance; the whole response object."""
        return await self.call(post_rpc(self.client, "/", method, params))

    async def read(self, task_id: str) -> TaskRecord | None:
        return await self.call(self.store.get_task(task_id))

    async def events(self, task_id: str) -> list[TaskEvent]:
        return await self.call(self.store.read_events(task_id, 0))

    async def drain(self) -> None:
        await self.call(self.inbox.drain())

    async def accept(self, job: Job, delay_s: float) -> None:
        """Take a job the other instance handed off, into this instance's worker."""
        await self.call(self.inbox.enqueue(job, delay_s=delay_s))

    def dead_letters(self) -> list[str]:
        return [f"{d.job.kind} {d.job.task_id}: {d.reason}" for d in self.inbox.dead_letters]

    async def stop(self) -> None:
        if not self._thread.is_alive():
            if not self.loop.is_closed() and self._thread.ident is None:
                self.loop.close()  # never started
            return
        try:
            await self.call(self._close())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            await asyncio.to_thread(self._thread.join, WAIT_S)

    async def _close(self) -> None:
        if hasattr(self, "client"):
            await self.client.aclose()
            await self.inbox.aclose()
            await self.app.runtime.aclose()


class ErrorLog(logging.Handler):
    """ERROR records of the kit's loggers during a scenario: a healthy race logs none."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


class RaceInstance(Protocol):
    """One instance as the scenarios and checks use it: JSON-RPC calls and reads of the store."""

    async def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]: ...

    async def read(self, task_id: str) -> TaskRecord | None: ...

    async def events(self, task_id: str) -> list[TaskEvent]: ...


class RacePair(Protocol):
    """Two instances on one database, whatever runs them (threads or processes)."""

    @property
    def mode(self) -> str: ...

    @property
    def instances(self) -> Sequence[RaceInstance]: ...

    @property
    def ledger(self) -> Ledger:
        """Every acknowledged write, as of the last `drain`."""
        ...

    def instance(self, index: int) -> RaceInstance: ...

    async def drain(self) -> None:
        """Wait until every job queued so far is done."""
        ...

    async def redeliver(self) -> None:
        """Deliver every turn's job once more (a queue's at-least-once redelivery)."""
        ...

    def trouble(self) -> list[str]:
        """Dead letters and ERROR records of the kit's loggers: a healthy race has none."""
        ...


# Brings up two instances serving the named agent (RACER or CONVERSATION), which reports to
# the observer; the pair is stopped when the context ends.
Deploy = Callable[[str, Observer], AbstractAsyncContextManager[RacePair]]


class Pair:
    """Two instances on one database; each hands its turns to the other's worker."""

    mode = "threads"

    def __init__(self, agent: Agent, open_store: StoreFactory) -> None:
        self.ledger = Ledger()
        self.instances = (
            Instance(0, agent, open_store, self.ledger),
            Instance(1, agent, open_store, self.ledger),
        )
        a, b = self.instances
        a.outbox.deliver, b.outbox.deliver = b.accept, a.accept
        self.errors = ErrorLog()

    async def __aenter__(self) -> Pair:
        logging.getLogger("a2a_serverless").addHandler(self.errors)
        try:
            for instance in self.instances:
                await instance.start()
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        logging.getLogger("a2a_serverless").removeHandler(self.errors)
        for instance in self.instances:
            await instance.stop()

    def instance(self, index: int) -> Instance:
        return self.instances[index % 2]

    async def drain(self) -> None:
        # Retries stay in the instance that runs them, so two passes settle everything.
        for _ in range(2):
            for instance in self.instances:
                await instance.drain()

    async def redeliver(self) -> None:
        for instance in self.instances:
            await instance.outbox.redeliver()

    def trouble(self) -> list[str]:
        dead = [f"dead letter: {d}" for i in self.instances for d in i.dead_letters()]
        return dead + [f"error logged: {line}" for line in self.errors.lines]


def threads(open_store: StoreFactory) -> Deploy:
    """Two instances as threads of this process, each with the Store `open_store` opens."""

    @asynccontextmanager
    async def deploy(agent_name: str, observer: Observer) -> AsyncIterator[RacePair]:
        async with Pair(scenario_agent(agent_name, observer), open_store) as pair:
            yield pair

    return deploy


async def bounded(count: int, limit: int, round_: Callable[[int], Awaitable[None]]) -> None:
    """Run `round_(0..count-1)` with at most `limit` in flight."""
    slots = asyncio.Semaphore(limit)

    async def run(index: int) -> None:
        async with slots:
            await round_(index)

    await asyncio.gather(*(run(index) for index in range(count)))


# --- JSON-RPC helpers --------------------------------------------------------------------------


def message_params(
    text: str,
    *,
    message_id: str | None = None,
    task_id: str | None = None,
    blocking: bool = True,
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "messageId": message_id or str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text}],
    }
    if task_id is not None:
        message["taskId"] = task_id
    params: dict[str, Any] = {"message": message}
    if not blocking:
        params["configuration"] = {"blocking": False}
    return params


def rpc_request(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def rpc_answer(status: int, body: str) -> dict[str, Any]:
    """The JSON-RPC response object of an HTTP answer (an error object for a non-200)."""
    if status != 200:
        return {"error": {"code": f"HTTP {status}", "message": body}}
    data: dict[str, Any] = json.loads(body)
    return data


def driver_client() -> httpx.AsyncClient:
    """The driver's HTTP client for instances in their own processes: a new connection per call.

    A kept-alive connection races its server's keep-alive timer: a call sent as the server
    closes the idle connection fails with ReadError. Letting idle connections go sooner than
    the server does only narrows the window; on a busy machine the client can learn of a
    response (and start its idle clock) a second or more after the server sent it, and a burst
    of calls then met a closed connection (gunicorn's keep-alive is 2 s, uvicorn's 5 s). With
    no connection kept, no call is ever sent on one the server may be closing."""
    return httpx.AsyncClient(timeout=WAIT_S, limits=httpx.Limits(max_keepalive_connections=0))


async def post_rpc(
    client: httpx.AsyncClient, url: str, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    """A JSON-RPC call over HTTP; the whole response object."""
    response = await client.post(url, json=rpc_request(method, params))
    return rpc_answer(response.status_code, response.text)


def error_code(response: dict[str, Any]) -> int | str | None:
    error = response.get("error")
    return None if error is None else error.get("code")


def is_terminal(record: TaskRecord) -> bool:
    return record.task.status.state.is_terminal


# --- scenario 1: cancel vs complete ------------------------------------------------------------


async def cancel_vs_complete(
    deploy: Deploy,
    *,
    store: str,
    rounds: int,
    in_flight: int = 32,
    jitter_s: float = 0.003,
    seed: int = 9,
) -> RaceResult:
    """`rounds` tasks, `in_flight` at a time: each agent completes as its cancel is sent.

    The message and the cancel go through one instance, the agent runs in the other. A cancel
    needs a read and a write, the completion only a write (the worker knows the task's version),
    so on a store with slow calls the completion nearly always wins when both start together.
    The driver therefore lets the agent go `offset` seconds after it sends the cancel (before,
    when negative): a running balance, moved after each round towards the outcome that won
    less (in steps that shrink as rounds settle), plus up to `jitter_s` of noise either way.
    The race is run where the two are even; which one wins is up to the store and the
    threads."""
    result = RaceResult(
        store=store, scenario="cancel-vs-complete", rounds=rounds, in_flight=in_flight
    )
    observer = Observer()
    rng = random.Random(seed)
    expected: dict[str, str] = {}
    first_message: dict[str, str] = {}
    # The release's delay after the cancel is sent (s), and the delays used.
    balance = [0.0]
    offsets: list[float] = []

    async with deploy(RACER, observer) as pair:
        result.mode = pair.mode

        async def race(index: int) -> None:
            front = pair.instance(index)
            message_id = str(uuid.uuid4())
            gate = observer.open(message_id)
            sent = await front.rpc(
                "message/send", message_params("go", message_id=message_id, blocking=False)
            )
            if error_code(sent) is not None:
                result.problems.append(f"round {index}: message/send failed: {sent}")
                return
            task_id: str = sent["result"]["id"]
            first_message[task_id] = message_id
            await asyncio.wait_for(gate.arrived, WAIT_S)
            offset = balance[0] + rng.uniform(-jitter_s, jitter_s)
            offsets.append(offset)
            release_delay, cancel_delay = max(offset, 0.0), max(-offset, 0.0)

            async def let_go() -> None:
                await asyncio.sleep(release_delay)
                gate.release()

            async def cancel_it() -> dict[str, Any]:
                await asyncio.sleep(cancel_delay)
                return await front.rpc("tasks/cancel", {"id": task_id})

            _, answer = await asyncio.gather(let_go(), cancel_it())
            code = error_code(answer)
            if code is None and answer["result"]["status"]["state"] == "canceled":
                expected[task_id] = "canceled"
            elif code == NOT_CANCELABLE:
                expected[task_id] = "completed"
            else:
                result.problems.append(f"task {task_id}: unexpected cancel answer {answer}")
            outcome = expected.get(task_id, "unexpected")
            result.outcomes[outcome] += 1
            # Big steps first, to find where the two are even on this store, then small ones.
            settled = sum(result.outcomes.values())
            step = max(jitter_s / 4, 0.01 * 16 / (16 + settled))
            if outcome == "completed":
                balance[0] += step
            elif outcome == "canceled":
                balance[0] -= step

        started = time.perf_counter()
        await bounded(rounds, in_flight, race)
        await pair.drain()
        result.elapsed_s = time.perf_counter() - started
        if offsets:
            q1, median, q3 = (sorted(offsets)[len(offsets) * k // 4] * 1000 for k in (1, 2, 3))
            result.notes.append(
                f"agent let go {median:+.1f} ms after the cancel was sent, the middle half of the "
                f"rounds {q1:+.1f} to {q3:+.1f} ms"
            )

        started = time.perf_counter()
        checker = _Checker(pair, result)

        def outcome(task_id: str, record: TaskRecord) -> None:
            want = expected.get(task_id)
            if record.state != want:
                checker.problem(task_id, f"is {record.state}, the cancel's answer said {want}")
            artifacts = record.task.artifacts or []
            finished = [p for a in artifacts for p in a.parts if getattr(p, "text", None)]
            if (record.state == "completed") != bool(finished):
                checker.problem(task_id, f"is {record.state} with artifacts {artifacts}")
            if observer.seen[task_id] != [first_message[task_id]]:
                checker.problem(task_id, f"its agent ran for {observer.seen[task_id]}")

        await checker.check_all(list(first_message), outcome)
        result.check_s = time.perf_counter() - started
    return result


# --- scenario 2: concurrent messages to one task -----------------------------------------------


async def concurrent_messages(
    deploy: Deploy,
    *,
    store: str,
    tasks: int,
    fan_out: int = 8,
    in_flight: int = 8,
    seed: int = 9,
) -> RaceResult:
    """`tasks` tasks, `in_flight` at a time; each waits for input and takes three bursts of
    `fan_out` messages, alternately through both instances:

    1. distinct messageIds, all at once: one is accepted, the others are refused (-32602, the
       task no longer waits for input), unless the first turn is over before they are read;
    2. distinct messageIds spread over twice the time a turn took: several are accepted, each
       after the turn before it asked for input again;
    3. one messageId `fan_out` times at once (a client retrying): every copy is answered with
       the task, and the agent runs one turn for it.

    Then a last message completes the task."""
    result = RaceResult(
        store=store, scenario="concurrent-messages", rounds=tasks, in_flight=in_flight
    )
    rng = random.Random(seed)
    observer = Observer()
    # Per task: the messageIds accepted and refused in bursts 1 and 2; the fixed ones.
    accepted: dict[str, set[str]] = {}
    refused: dict[str, set[str]] = {}
    fixed: dict[str, tuple[str, str, str]] = {}  # first message, the retried one, the last

    async with deploy(CONVERSATION, observer) as pair:
        result.mode = pair.mode

        async def wait_for_input(task_id: str) -> bool:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + WAIT_S
            while loop.time() < deadline:
                record = await pair.instance(0).read(task_id)
                if record is not None and record.state == "input-required" and record.claim is None:
                    return True
                await asyncio.sleep(0.01)
            result.problems.append(f"task {task_id}: never asked for input again")
            return False

        async def burst(
            index: int, task_id: str, ids: list[str], delays: list[float]
        ) -> list[dict[str, Any]]:
            async def send(j: int) -> dict[str, Any]:
                await asyncio.sleep(delays[j])
                # Copies of one message are identical, as a client's retries are.
                text = "again" if ids.count(ids[j]) > 1 else f"answer {j}"
                params = message_params(text, message_id=ids[j], task_id=task_id, blocking=False)
                return await pair.instance(index + j).rpc("message/send", params)

            return list(await asyncio.gather(*(send(j) for j in range(len(ids)))))

        def tally(task_id: str, ids: list[str], answers: list[dict[str, Any]], label: str) -> None:
            for message_id, answer in zip(ids, answers, strict=True):
                code = error_code(answer)
                state = ((answer.get("error") or {}).get("data") or {}).get("state")
                if code is None and answer["result"]["id"] == task_id:
                    accepted[task_id].add(message_id)
                    result.outcomes[f"{label} accepted"] += 1
                elif code == INVALID_PARAMS and state in ("submitted", "working"):
                    refused[task_id].add(message_id)
                    result.outcomes[f"{label} refused"] += 1
                else:
                    result.problems.append(f"task {task_id}: unexpected answer {answer}")

        async def talk(index: int) -> None:
            ask, retried, done = (str(uuid.uuid4()) for _ in range(3))
            turn_started = time.perf_counter()
            first = await pair.instance(index).rpc(
                "message/send", message_params("ask", message_id=ask)
            )
            turn_s = time.perf_counter() - turn_started
            state = (first.get("result") or {}).get("status", {}).get("state")
            if state != "input-required":
                result.problems.append(f"round {index}: first message: {first}")
                return
            task_id: str = first["result"]["id"]
            fixed[task_id] = (ask, retried, done)
            accepted[task_id], refused[task_id] = set(), set()

            ids = [str(uuid.uuid4()) for _ in range(fan_out)]
            tally(task_id, ids, await burst(index, task_id, ids, [0.0] * fan_out), "at once:")
            if not accepted[task_id]:
                result.problems.append(f"task {task_id}: no message of the burst was accepted")
            if not await wait_for_input(task_id):
                return

            ids = [str(uuid.uuid4()) for _ in range(fan_out)]
            delays = sorted(rng.uniform(0, 2 * turn_s) for _ in range(fan_out))
            tally(task_id, ids, await burst(index, task_id, ids, delays), "spread:")
            if not await wait_for_input(task_id):
                return

            for answer in await burst(index, task_id, [retried] * fan_out, [0.0] * fan_out):
                if error_code(answer) is None and answer["result"]["id"] == task_id:
                    result.outcomes["same messageId: answered with the task"] += 1
                else:
                    result.problems.append(f"task {task_id}: a copy was answered {answer}")
            if not await wait_for_input(task_id):
                return

            last = await pair.instance(index + 1).rpc(
                "message/send", message_params("done", message_id=done, task_id=task_id)
            )
            if (last.get("result") or {}).get("status", {}).get("state") != "completed":
                result.problems.append(f"task {task_id}: last message: {last}")

        started = time.perf_counter()
        await bounded(tasks, in_flight, talk)
        await pair.drain()
        result.elapsed_s = time.perf_counter() - started

        started = time.perf_counter()
        checker = _Checker(pair, result)

        def conversation_held(task_id: str, record: TaskRecord) -> None:
            ask, retried, done = fixed[task_id]
            history = [m.message_id for m in record.task.history or [] if m.role == "user"]
            seen = observer.seen[task_id]
            if record.state != "completed":
                checker.problem(task_id, f"is {record.state}, not completed")
            # Every accepted message is in the history once, and the agent saw each once, in
            # the order of the history.
            if seen != history:
                checker.problem(task_id, f"the agent saw {seen}, the history has {history}")
            if any(n != 1 for n in Counter(history).values()):
                checker.problem(task_id, f"a message is in the history twice: {history}")
            if history[:1] != [ask] or history[-2:] != [retried, done]:
                checker.problem(task_id, f"history {history}: not ask, answers, again, done")
            if set(history[1:-2]) != accepted[task_id]:
                checker.problem(task_id, f"accepted {accepted[task_id]}, history {history}")
            if refused[task_id] & set(history):
                checker.problem(task_id, "a refused message is in the history")

        await checker.check_all(list(fixed), conversation_held)
        result.check_s = time.perf_counter() - started
    return result


# --- the checks --------------------------------------------------------------------------------


class _Checker:
    """The invariants every task must keep after a scenario (see the module docstring)."""

    MAX_PROBLEMS = 50

    def __init__(self, pair: RacePair, result: RaceResult) -> None:
        self.pair = pair
        self.result = result

    def problem(self, task_id: str, text: str) -> None:
        if len(self.result.problems) < self.MAX_PROBLEMS:
            self.result.problems.append(f"task {task_id}: {text}")

    async def check_all(
        self, task_ids: list[str], scenario_check: Callable[[str, TaskRecord], None]
    ) -> None:
        pair, result = self.pair, self.result
        first: dict[str, TaskRecord] = {}

        async def check(index: int) -> None:
            task_id = task_ids[index]
            record = await self.check_task(task_id)
            if record is not None:
                first[task_id] = record
                scenario_check(task_id, record)

        await bounded(len(task_ids), 16, check)
        result.tasks_checked = len(first)

        # Later: every turn's job again, a late cancel and a late message to every task; none
        # may change anything.
        writes_before = pair.ledger.count()
        await asyncio.sleep(0.5)
        await pair.redeliver()

        # A sample suffices: the ledger shows no write after any task ended.
        poked = task_ids[:: max(1, len(task_ids) // POKED_TASKS)]

        async def poke(index: int) -> None:
            task_id = poked[index]
            instance = pair.instance(index)
            late = await instance.rpc("tasks/cancel", {"id": task_id})
            if error_code(late) != NOT_CANCELABLE:
                self.problem(task_id, f"a late cancel was answered {late}")
            late = await instance.rpc("message/send", message_params("late", task_id=task_id))
            if error_code(late) != INVALID_PARAMS:
                self.problem(task_id, f"a late message was answered {late}")

        await bounded(len(poked), 16, poke)
        await pair.drain()
        if pair.ledger.count() != writes_before:
            result.problems.append(
                f"{pair.ledger.count() - writes_before} writes after the tasks had ended"
            )

        async def reread(index: int) -> None:
            task_id = task_ids[index]
            for instance in pair.instances:
                again = await instance.read(task_id)
                if task_id in first and again != first[task_id]:
                    self.problem(task_id, f"changed after it ended: {first[task_id]} -> {again}")

        await bounded(len(task_ids), 16, reread)

        result.writes = pair.ledger.count()
        result.conflicts = pair.ledger.conflicts
        result.keys_taken = pair.ledger.keys_taken
        result.problems += [f"store error: {e}" for e in pair.ledger.errors[: self.MAX_PROBLEMS]]
        result.problems += pair.trouble()[:20]

    async def check_task(self, task_id: str) -> TaskRecord | None:
        """Check one task's record, log and ledger; the record, or None if it is missing."""
        a, b = self.pair.instances
        record = await a.read(task_id)
        other = await b.read(task_id)
        if record is None:
            self.problem(task_id, "is not stored")
            return None
        if other != record:
            self.problem(task_id, f"the instances read different records: {record} / {other}")
        events = await a.events(task_id)
        self.result.events_checked += len(events)

        if [e.seq for e in events] != list(range(1, record.last_seq + 1)):
            self.problem(task_id, f"seqs {[e.seq for e in events]}, last_seq {record.last_seq}")
        terminal = [
            i
            for i, e in enumerate(events)
            if isinstance(e.payload, TaskStatusUpdateEvent) and e.payload.status.state.is_terminal
        ]
        if is_terminal(record):
            if terminal != [len(events) - 1]:
                self.problem(task_id, f"terminal events at {terminal} of {len(events)}")
            elif getattr(events[-1].payload, "status", None) != record.task.status:
                self.problem(task_id, f"the last event is not the task's status {record.state}")
            if record.claim is not None:
                self.problem(task_id, f"is {record.state} with a claim left: {record.claim}")
        else:
            self.problem(task_id, f"did not end: {record.state}")

        # The ledger: versions 1..N acknowledged once each, the stored record the last of them,
        # the log exactly their events, and nothing acknowledged after the task ended.
        writes = sorted(self.pair.ledger.writes.get(task_id, []), key=lambda w: w.record.version)
        versions = [w.record.version for w in writes]
        if versions != list(range(1, len(writes) + 1)):
            self.problem(task_id, f"acknowledged versions {versions}")
        elif writes[-1].record != record:
            self.problem(task_id, f"stored version {record.version} is not the last acknowledged")
        logged = [event for write in writes for event in write.events]
        if logged != events:
            self.problem(task_id, "the event log is not the acknowledged writes' events")
        ended = [i for i, w in enumerate(writes) if is_terminal(w.record)]
        if ended and ended[0] != len(writes) - 1:
            self.problem(task_id, f"{len(writes) - 1 - ended[0]} writes after it ended")
        return record
