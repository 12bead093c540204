"""The load tests' shared part: send N tasks at once, wait for them, check nothing was lost or
doubled, and report the figures (tests/aws/runtime/test_load.py, tests/gcp/runtime/test_load.py).

Each cloud's test supplies the plumbing as plain callables (send one `message/send`, count the
terminal tasks, fetch a `tasks/list` page) and collects what the run left behind (each task's
event log, how often the agent ran each turn, the webhook requests, the worker's deliveries);
these functions do the rest the same way for both:

- `send_all`: `count` non-blocking sends, at most `concurrency` in flight, each timed;
- `wait_until`: poll until nothing is pending (a generous timeout, only against hangs);
- `list_all`: page through `tasks/list`;
- `check`: every way the run could have lost, doubled or stuck a task, as a list of problems;
- `LoadReport` (`report`): accept rate, end-to-end throughput, send-to-completion latencies,
  deliveries and redeliveries, CPU per task of each kind of process (`cpu_seconds`).

The number of tasks is `TASKS`: `A2A_LOAD_TASKS` (default `DEFAULT_TASKS`), so the default test
run stays short and the documented figures come from `A2A_LOAD_TASKS=1000`.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from a2a_serverless.models import TaskStatusUpdateEvent
from a2a_serverless.store.base import TaskEvent

DEFAULT_TASKS = 200
CONCURRENCY = 50
# Every WEBHOOK_EVERY-th task asks for a push notification (a config in its send).
WEBHOOK_EVERY = 10
WEBHOOK_TOKEN = "load-token"
TERMINAL_STATES = ("completed", "failed", "canceled", "rejected")


def task_count() -> int:
    value = os.environ.get("A2A_LOAD_TASKS", "")
    if not value:
        return DEFAULT_TASKS
    count = int(value)
    if count < 1:
        raise ValueError(f"A2A_LOAD_TASKS must be a positive number of tasks, not {value!r}")
    return count


# Read when the tests are collected: the AWS tests' fixtures clear every A2A_* variable from the
# environment before a test runs (so handlers built in-process see no ambient settings).
TASKS = task_count()


def wait_timeout_s(count: int) -> float:
    """How long to wait for `count` tasks before calling it a hang (not a performance bound)."""
    return 120.0 + count * 0.5


def new_context_id() -> str:
    """One context for a run's tasks, so `tasks/list` can be asked for exactly those."""
    return f"load-{uuid.uuid4().hex[:12]}"


def wants_webhook(index: int) -> bool:
    return index % WEBHOOK_EVERY == 0


def send_params(index: int, context_id: str, webhook_url: str | None) -> dict[str, Any]:
    """The params of task `index`'s non-blocking `message/send` (a webhook config if given)."""
    configuration: dict[str, Any] = {"blocking": False}
    if webhook_url is not None:
        configuration["pushNotificationConfig"] = {"url": webhook_url, "token": WEBHOOK_TOKEN}
    message = {
        "kind": "message",
        "role": "user",
        "messageId": uuid.uuid4().hex,
        "contextId": context_id,
        "parts": [{"kind": "text", "text": f"{context_id} {index}"}],
    }
    return {"message": message, "configuration": configuration}


@dataclass(frozen=True)
class Sent:
    """One send: which task it made, and when (wall-clock seconds) it left and was answered."""

    index: int
    task_id: str
    state: str
    webhook: bool
    started: float
    answered: float


async def send_all(
    send: Callable[[int], Awaitable[dict[str, Any]]], count: int, concurrency: int
) -> list[Sent]:
    """`send(i)` for i in 0..count-1, at most `concurrency` at once; each returns the Task."""
    limit = asyncio.Semaphore(concurrency)

    async def one(index: int) -> Sent:
        async with limit:
            started = time.time()
            task = await send(index)
            answered = time.time()
        return Sent(
            index=index,
            task_id=str(task["id"]),
            state=str(task["status"]["state"]),
            webhook=wants_webhook(index),
            started=started,
            answered=answered,
        )

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def wait_until(
    pending: Callable[[], Awaitable[str | None]], timeout_s: float, interval_s: float = 0.5
) -> None:
    """Poll `pending()` until it returns None; it returns what is still awaited otherwise, which
    the AssertionError says if that takes more than `timeout_s` (a hang, not a slow run)."""
    deadline = time.monotonic() + timeout_s
    while True:
        waiting = await pending()
        if waiting is None:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout_s:.0f} s: {waiting}")
        await asyncio.sleep(interval_s)


async def list_all(page: Callable[[str], Awaitable[dict[str, Any]]]) -> list[str]:
    """Every task id `tasks/list` gives, page by page (`page(token)` returns a ListTasksResult)."""
    ids: list[str] = []
    token = ""
    while True:
        result = await page(token)
        ids.extend(str(task["id"]) for task in result["tasks"])
        token = str(result.get("nextPageToken") or "")
        if not token:
            return ids


async def gather_limited(
    calls: Iterable[Callable[[], Awaitable[Any]]], concurrency: int = 16
) -> list[Any]:
    """Run the calls with at most `concurrency` in flight; results in order."""
    limit = asyncio.Semaphore(concurrency)

    async def one(call: Callable[[], Awaitable[Any]]) -> Any:
        async with limit:
            return await call()

    return list(await asyncio.gather(*(one(call) for call in calls)))


@dataclass(frozen=True)
class Notification:
    """One webhook request as the receiver saw it."""

    notification_id: str | None
    task_id: str
    state: str
    token: str | None


def notification_of(headers: Mapping[str, str], body: bytes) -> Notification:
    task = json.loads(body)
    return Notification(
        notification_id=headers.get("x-a2a-notification-id"),
        task_id=str(task["id"]),
        state=str(task["status"]["state"]),
        token=headers.get("x-a2a-notification-token"),
    )


@dataclass
class Delivery:
    """One job delivery to a worker (one SQS record, one Pub/Sub or Cloud Tasks push)."""

    job_id: str
    kind: str
    task_id: str


@dataclass
class Observed:
    """What a run left behind, collected by the cloud's test after every task ended."""

    events: dict[str, list[TaskEvent]]  # task id -> its event log
    runs: dict[str, int]  # task id -> times the agent ran its turn
    listed: list[str]  # task ids from tasks/list, in page order
    notifications: list[Notification]
    deliveries: list[Delivery]
    worker_invocations: int
    dead_lettered: int  # jobs in the dead-letter queue / abandoned by the worker
    problems: list[str] = field(default_factory=list)  # cloud-specific findings


def status_states(events: Sequence[TaskEvent]) -> list[str]:
    return [
        e.payload.status.state.value for e in events if isinstance(e.payload, TaskStatusUpdateEvent)
    ]


def completed_at(events: Sequence[TaskEvent]) -> float | None:
    """When the task's terminal status was written (its timestamp, wall-clock seconds)."""
    for event in reversed(events):
        payload = event.payload
        if isinstance(payload, TaskStatusUpdateEvent) and payload.status.state.ends_stream:
            stamp = payload.status.timestamp
            return datetime.fromisoformat(stamp).timestamp() if stamp else None
    return None


def check(sent: Sequence[Sent], observed: Observed) -> list[str]:
    """Every problem the run shows; empty when no task was lost, doubled or left unfinished."""
    problems = list(observed.problems)
    ids = [s.task_id for s in sent]
    doubled = [task_id for task_id, n in Counter(ids).items() if n > 1]
    if doubled:
        problems.append(f"{len(doubled)} task ids given to more than one send: {doubled[:5]}")
    for s in sent:
        if s.state not in ("submitted", "working", "completed"):
            problems.append(f"send {s.index} answered with a task in state {s.state}")
    for task_id in dict.fromkeys(ids):
        problems.extend(_task_problems(task_id, observed))

    listed = Counter(observed.listed)
    twice = [task_id for task_id, n in listed.items() if n > 1]
    if twice:
        problems.append(f"{len(twice)} tasks listed twice by tasks/list: {twice[:5]}")
    missing = set(ids) - set(listed)
    if missing:
        problems.append(f"{len(missing)} tasks missing from tasks/list: {sorted(missing)[:5]}")
    extra = set(listed) - set(ids)
    if extra:
        problems.append(f"{len(extra)} tasks listed that no send made: {sorted(extra)[:5]}")

    if observed.dead_lettered:
        problems.append(f"{observed.dead_lettered} jobs dead-lettered or abandoned")
    problems.extend(_webhook_problems(sent, observed.notifications))
    return problems


def _task_problems(task_id: str, observed: Observed) -> list[str]:
    events = observed.events.get(task_id, [])
    if not events:
        return [f"task {task_id}: no events stored"]
    problems = []
    seqs = [e.seq for e in events]
    if seqs != list(range(1, len(events) + 1)):
        problems.append(f"task {task_id}: event seqs not gap-free from 1: {seqs}")
    finals = [e for e in events if e.is_final]
    states = status_states(events)
    if len(finals) != 1 or finals[0] is not events[-1]:
        problems.append(f"task {task_id}: {len(finals)} final events, not one last: {states}")
    if states.count("completed") != 1 or states[-1:] != ["completed"]:
        problems.append(f"task {task_id}: not completed exactly once: {states}")
    runs = observed.runs.get(task_id, 0)
    if runs != 1:
        problems.append(f"task {task_id}: the agent ran its turn {runs} times")
    return problems


def _webhook_problems(sent: Sequence[Sent], notifications: Sequence[Notification]) -> list[str]:
    problems = []
    by_task: dict[str, set[str | None]] = {}
    for n in notifications:
        by_task.setdefault(n.task_id, set()).add(n.notification_id)
        if n.state != "completed" or n.token != WEBHOOK_TOKEN:
            problems.append(f"webhook for {n.task_id}: state {n.state}, token {n.token!r}")
    wanted = {s.task_id for s in sent if s.webhook}
    for task_id in sorted(wanted):
        if len(by_task.get(task_id, ())) != 1:
            problems.append(
                f"task {task_id}: {len(by_task.get(task_id, ()))} distinct notifications, not 1"
            )
    unwanted = set(by_task) - wanted
    if unwanted:
        problems.append(f"webhooks for tasks that asked for none: {sorted(unwanted)[:5]}")
    return problems


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (`fraction` in 0..1) of non-empty `values`."""
    ordered = sorted(values)
    rank = max(math.ceil(fraction * len(ordered)), 1)
    return ordered[rank - 1]


def cpu_seconds(pids: Iterable[int] = (), groups: Iterable[int] = ()) -> float:
    """CPU time (user + system) used so far by the live processes `pids` and by every live
    process of the process `groups` (Linux /proc); a measure of the work that does not depend
    on what else the shared machine runs, unlike wall-clock figures."""
    wanted, wanted_groups = set(pids), set(groups)
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        # pid (comm) state ppid pgrp ... utime stime: fields after the command's closing paren.
        fields = text[text.rindex(")") + 2 :].split()
        pid, group = int(text.split(" ", 1)[0]), int(fields[2])
        if pid in wanted or group in wanted_groups:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def children(command_part: str) -> list[int]:
    """The ids of this process's children whose command line contains `command_part` (the
    emulators the session fixtures started)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = int(text[text.rindex(")") + 2 :].split()[1])
        if parent == os.getpid() and command_part in command:
            found.append(int(text.split(" ", 1)[0]))
    return found


@dataclass(frozen=True)
class Processes:
    """A named set of processes whose CPU time a run reports: single processes and whole
    process groups (a process started in a session of its own leads a group)."""

    pids: Sequence[int] = ()
    groups: Sequence[int] = ()


class CpuMeter:
    """CPU seconds each named set of processes uses between `__init__` and `used()`."""

    def __init__(self, processes: Mapping[str, Processes]) -> None:
        self.processes = dict(processes)
        self.processes["test process"] = Processes(pids=[os.getpid()])
        self.start = self._now()

    def _now(self) -> dict[str, float]:
        return {name: cpu_seconds(p.pids, p.groups) for name, p in self.processes.items()}

    def used(self) -> dict[str, float]:
        now = self._now()
        return {name: now[name] - self.start[name] for name in self.processes}


@dataclass(frozen=True)
class LoadReport:
    cloud: str
    tasks: int
    concurrency: int
    send_s: float  # first send out to last answer
    accept_rate: float  # sends answered per second
    send_p50_s: float  # one send's round trip (with any wait for a free function instance)
    send_p99_s: float
    end_to_end_s: float  # first send out to last task completed
    throughput: float  # tasks completed per second over end_to_end_s
    latency_p50_s: float  # send out to the task's completion
    latency_p99_s: float
    latency_max_s: float
    queued_p50_s: float  # send answered to the task's completion (queue wait and the turn)
    worker_invocations: int
    deliveries: int  # job deliveries to the worker (records, pushes)
    redeliveries: int  # deliveries of a job beyond its first
    webhooks: int  # webhook requests received
    webhook_duplicates: int  # requests beyond one per notification id (at-least-once)
    cpu_ms_per_task: dict[str, float]  # CPU milliseconds per task, per group of processes
    load_before: float  # 1-minute load average before the sends and after the run
    load_after: float

    def line(self) -> str:
        cpu = ", ".join(f"{name} {ms:.3g} ms" for name, ms in self.cpu_ms_per_task.items())
        return (
            f"load[{self.cloud}] {self.tasks} tasks, {self.concurrency} concurrent sends: "
            f"accepted in {self.send_s:.1f} s ({self.accept_rate:.1f}/s, round trip p50 "
            f"{self.send_p50_s:.2f} s, p99 {self.send_p99_s:.2f} s); all completed in "
            f"{self.end_to_end_s:.1f} s ({self.throughput:.1f} tasks/s); send to completion "
            f"p50 {self.latency_p50_s:.2f} s, p99 {self.latency_p99_s:.2f} s, max "
            f"{self.latency_max_s:.2f} s (answer to completion p50 {self.queued_p50_s:.2f} s); "
            f"{self.worker_invocations} worker invocations, {self.deliveries} deliveries, "
            f"{self.redeliveries} redeliveries; {self.webhooks} webhooks "
            f"({self.webhook_duplicates} duplicates); CPU per task: {cpu}; load average "
            f"{self.load_before:.2f} before, {self.load_after:.2f} after, {os.cpu_count()} cores"
        )


def report(
    cloud: str,
    sent: Sequence[Sent],
    observed: Observed,
    *,
    concurrency: int,
    cpu_s: Mapping[str, float],
    load_before: float,
) -> LoadReport:
    """The figures of a run; `cpu_s` is CPU seconds each group of processes used during it."""
    first = min(s.started for s in sent)
    send_s = max(s.answered for s in sent) - first
    round_trips = [s.answered - s.started for s in sent]
    latencies, queued = [], []
    last_completion = first
    for s in sent:
        done = completed_at(observed.events.get(s.task_id, []))
        if done is None:
            raise AssertionError(f"task {s.task_id} has no terminal status with a timestamp")
        latencies.append(done - s.started)
        queued.append(done - s.answered)
        last_completion = max(last_completion, done)
    end_to_end_s = last_completion - first
    per_job = Counter(d.job_id for d in observed.deliveries)
    per_notification = Counter(n.notification_id for n in observed.notifications)
    return LoadReport(
        cloud=cloud,
        tasks=len(sent),
        concurrency=concurrency,
        send_s=send_s,
        accept_rate=len(sent) / send_s if send_s > 0 else math.inf,
        send_p50_s=percentile(round_trips, 0.50),
        send_p99_s=percentile(round_trips, 0.99),
        end_to_end_s=end_to_end_s,
        throughput=len(sent) / end_to_end_s if end_to_end_s > 0 else math.inf,
        latency_p50_s=percentile(latencies, 0.50),
        latency_p99_s=percentile(latencies, 0.99),
        latency_max_s=max(latencies),
        queued_p50_s=percentile(queued, 0.50),
        worker_invocations=observed.worker_invocations,
        deliveries=len(observed.deliveries),
        redeliveries=sum(n - 1 for n in per_job.values()),
        webhooks=len(observed.notifications),
        webhook_duplicates=sum(n - 1 for n in per_notification.values()),
        cpu_ms_per_task={name: 1000 * v / len(sent) for name, v in cpu_s.items()},
        load_before=load_before,
        load_after=os.getloadavg()[0],
    )
