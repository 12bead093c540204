"""Faults on AWS, with real processes and real signals: workers SIGKILLed mid-turn, Lambda's
timeout, and DynamoDB Local killed and restarted under traffic.

Every function runs as `python -m awslambdaric tests.aws.runtime.functions.<handler>` against a
local Runtime API (tests/aws/runtime/runtime_api.py); the queues are a moto server; the test
plays Lambda's SQS event source mapping (`SqsTrigger`), one per execution environment, polling
concurrently as Lambda scales out. The worker's agent is `functions.faulty`: it streams an
answer in chunks and stops, hangs or overruns where its message says.

What a client sees when a worker dies mid-turn (the product's rule, checked here): the event
log is append-only, so whatever the dead run wrote stays; the job comes back (SQS visibility
timeout), waits for the dead worker's claim to lapse (its lease) and runs the turn again from its
start, appending its own events. Artifacts the updater names get the same ids in the same order
on every run of a turn, so the new run's first chunk replaces the dead run's partial artifact
(append=false) instead of sitting beside it. Status updates are not merged: the dead run's
`working` events and progress messages stay, followed by the new run's. There is one terminal
event, last, and a run killed after writing it is not run again.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import shutil
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from a2a_serverless.models import TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from a2a_serverless.store import open_store
from a2a_serverless.store.base import Store, TaskEvent
from tests.aws.conftest import DYNAMODB_TEST_REGION, INSTALL_HINT, _find_jar, new_table_name
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import PollResult, SqsTrigger, header, http_api_event, response_json
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.aws.runtime.test_lambda_e2e import HTTP_TIMING, call, rpc, status_states
from tests.integration.jsonrpc_agents import user_message
from tests.reliability.faults import Outcomes, RestartableDynamoDB, artifact_texts, log_problems
from tests.support import hypothesis_profiles
from tests.support.server import free_port

pytestmark = pytest.mark.aws

# Kill tests: a 5 s function (the agent's budget 4 s), a 6 s lease, visibility 5 s. A killed
# turn's job comes back after 5 s and is taken over when the lease lapses, 6 s after the dead
# worker's last write.
KILL_TIMING = {
    "A2A_LAMBDA_TIMEOUT_S": "5",
    "A2A_LAMBDA_TIMEOUT_MARGIN_S": "1",
    "A2A_WORKER_LEASE_S": "6",
    "A2A_PUSH_TIMEOUT_S": "2",
    "A2A_SQS_VISIBILITY_TIMEOUT_S": "5",
}
# When the killer strikes, counted from the start of an invocation: before its turns (8 chunks
# 0.25 s apart, 2 s) can end, so every draw lands on a running invocation (draws up to 2.5 s
# could outlast it: then no kill at all, and the test had nothing to check).
KILL_WITHIN_S = 1.5
# The kill test's draws under the default (derandomized) profile, as hypothesis' `ci` profile.
FAULTS_FIXED_SEED = 20261125
POINTS = ("claimed", "working", "partial", "streamed", "completed")
CHUNKS = 3
ANSWER = "".join(f"chunk {i} " for i in range(CHUNKS))


class Stack:
    """An HTTP function, `workers` worker environments (each with its own SQS trigger), and
    optionally the dead-letter queue's consumer, all on one queue pair."""

    def __init__(
        self,
        make_function: Callable[..., LambdaFunction],
        function_env: dict[str, str],
        queues: Queues,
        sqs: Any,
        *,
        timing: dict[str, str],
        workers: int = 1,
        batch_size: int = 10,
        enforce_timeout: bool = False,
        dead_letters: bool = False,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        env = {
            **function_env,
            "A2A_SQS_QUEUE_URL": queues.url,
            "A2A_SQS_MAX_RECEIVE_COUNT": str(queues.max_receive_count),
            **(extra_env or {}),
        }
        self.http = make_function("http_handler", {**env, **HTTP_TIMING}, timeout_s=10, name="http")
        timeout_s = float(timing["A2A_LAMBDA_TIMEOUT_S"])
        self.workers = [
            make_function(
                "fault_worker_handler",
                {**env, **timing},
                timeout_s=timeout_s,
                name=f"worker{i}",
                enforce_timeout=enforce_timeout,
            )
            for i in range(workers)
        ]
        self.triggers = [
            SqsTrigger(sqs, queues.url, w, batch_size=batch_size) for w in self.workers
        ]
        if dead_letters:
            consumer = make_function(
                "fault_dead_letter_handler", {**env, **timing}, timeout_s=timeout_s, name="dlq"
            )
            self.triggers.append(SqsTrigger(sqs, queues.dlq_url, consumer))

    async def send(self, text: str) -> str:
        params = {"message": user_message(text), "configuration": {"blocking": False}}
        task = await asyncio.to_thread(call, self.http, "message/send", params)
        return str(task["id"])

    async def get(self, task_id: str) -> dict[str, Any]:
        task: dict[str, Any] = await asyncio.to_thread(
            call, self.http, "tasks/get", {"id": task_id}
        )
        return task

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The triggers poll, each in its own thread, until the block ends."""
        stop = threading.Event()

        def poll(trigger: SqsTrigger) -> None:
            while not stop.is_set():
                trigger.poll()

        threads = [threading.Thread(target=poll, args=(t,), daemon=True) for t in self.triggers]
        for thread in threads:
            thread.start()
        try:
            yield
        finally:
            stop.set()
            for thread in threads:
                await asyncio.to_thread(thread.join, 30)

    @property
    def polls(self) -> list[PollResult]:
        return [r for t in self.triggers for r in t.results]

    def logs(self) -> str:
        return "\n".join(w.logs() for w in self.workers)


async def wait_for(
    condition: Callable[[], Awaitable[bool]], what: str, timeout_s: float, stack: Stack
) -> None:
    deadline = time.monotonic() + timeout_s
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{what}: not reached in {timeout_s} s; polls: {stack.polls}\n"
                f"{stack.logs()[-6000:]}"
            )
        await asyncio.sleep(0.1)


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    opened = open_store(store_url)
    yield opened
    await opened.close()


def dumped(events: list[TaskEvent]) -> list[Any]:
    return [(e.seq, e.payload.model_dump()) for e in events]


def shape(events: list[TaskEvent]) -> list[str]:
    """Each event as `state` or `artifact[+][!]` (+ append, ! last chunk)."""
    kinds = []
    for event in events:
        payload = event.payload
        if isinstance(payload, TaskStatusUpdateEvent):
            kinds.append(payload.status.state.value)
        else:
            assert isinstance(payload, TaskArtifactUpdateEvent)
            kinds.append(
                "artifact" + ("+" if payload.append else "") + ("!" if payload.last_chunk else "")
            )
    return kinds


# What one uninterrupted run of a turn writes, and how far each stop point got.
ONE_RUN = ["working", "working", "artifact", "artifact+", "artifact+", "artifact+!", "completed"]
WRITTEN_AT = {"claimed": 0, "working": 2, "partial": 3, "streamed": 6, "completed": 7}


async def test_workers_killed_at_each_point_of_a_turn_complete_every_task_exactly_once(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store: Store,
    runs_dir: Path,
) -> None:
    """Five tasks, each stopped at another point of its turn, and the worker process SIGKILLed
    with all five inside it (as often as the queue split them into batches)."""
    queues = make_queues(max_receive_count=5, visibility_timeout_s=5)
    stack = Stack(make_function, function_env, queues, sqs, timing=KILL_TIMING)
    tasks = {point: await stack.send(f"stop {point} {CHUNKS}") for point in POINTS}
    stopped: dict[str, list[TaskEvent]] = {}
    kills = 0

    async def at_stops() -> list[str]:
        return [p for p in POINTS if (runs_dir / f"{tasks[p]}.at-{p}").exists()]

    async def all_ended() -> bool:
        for task_id in tasks.values():
            record = await store.get_task(task_id)
            if record is None or not record.task.status.state.is_terminal:
                return False
        return True

    async with stack.running():
        while len(stopped) < len(POINTS):
            # Kill when every turn in the worker has reached its stop (none new for 1 s).
            await wait_for(lambda: _has_new(at_stops, stopped), "a turn at its stop", 60, stack)
            seen = await at_stops()
            await asyncio.sleep(1.0)
            if await at_stops() != seen:
                continue
            for point in seen:
                if point in stopped:
                    continue
                record = await store.get_task(tasks[point])
                assert record is not None
                events = await store.read_events(tasks[point])
                # What the kill leaves: the claim (unless the turn ended) and the events so far.
                assert shape(events) == ["submitted", *ONE_RUN[: WRITTEN_AT[point]]], point
                assert (record.claim is None) == (point == "completed"), point
                stopped[point] = events
            stack.workers[0].kill()
            kills += 1
            killed_at = time.monotonic()
        await wait_for(all_ended, "every task ended", 90, stack)
        recovered_s = time.monotonic() - killed_at

    assert 1 <= kills <= len(POINTS)
    assert sum(p.crashed for p in stack.polls) == kills
    for point, task_id in tasks.items():
        record = await store.get_task(task_id)
        assert record is not None
        events = await store.read_events(task_id)
        assert log_problems(record, events) == [], point
        assert record.task.status.state.value == "completed", (point, stack.logs())
        # The dead run's events are still there, unchanged, and the new run's follow them: a
        # whole run, from its start (or nothing, when the dead run had completed).
        before = stopped[point]
        assert dumped(events[: len(before)]) == dumped(before), point
        rerun = point != "completed"
        assert shape(events[len(before) :]) == (ONE_RUN if rerun else []), point
        assert status_states(events).count("completed") == 1, point
        runs = (runs_dir / task_id).read_text().count("run")
        assert runs == (2 if rerun else 1), point
        # One artifact, whole: the new run's first chunk replaced the dead run's partial one.
        assert artifact_texts(record.task) == [ANSWER], point
        fetched = await stack.get(task_id)
        assert fetched["status"]["state"] == "completed"
        assert [a["artifactId"] for a in fetched["artifacts"]] == [
            a.artifact_id for a in record.task.artifacts or []
        ]
    print(f"\nkill points: {kills} SIGKILL(s); every task completed {recovered_s:.1f} s after")


def _faults_seed() -> int:
    given = os.environ.get("FAULTS_SEED")
    if given:
        return int(given)
    if os.environ.get(hypothesis_profiles.ENV, "ci") == "ci":
        return FAULTS_FIXED_SEED
    return random.randrange(1 << 30)


async def _has_new(at_stops: Callable[[], Awaitable[list[str]]], known: dict[str, Any]) -> bool:
    return any(p not in known for p in await at_stops())


async def test_workers_killed_at_random_moments_lose_and_duplicate_nothing(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store: Store,
    runs_dir: Path,
) -> None:
    """Six streaming tasks on two worker environments; a killer SIGKILLs an environment at a
    random moment of an invocation, up to four times. FAULTS_SEED=<n> replays a run's choices;
    without it the draws are fixed under the default `ci` profile, fresh under `explore`."""
    seed = _faults_seed()
    rng = random.Random(seed)
    queues = make_queues(max_receive_count=10, visibility_timeout_s=5)
    stack = Stack(
        make_function,
        function_env,
        queues,
        sqs,
        timing=KILL_TIMING,
        workers=2,
        batch_size=3,
        extra_env={"A2A_WORKER_MAX_ATTEMPTS": "10"},
    )
    chunks = 8
    tasks = [await stack.send(f"stream {chunks} 0.25") for _ in range(6)]
    answer = "".join(f"chunk {i} " for i in range(chunks))
    kills: list[tuple[str, float]] = []

    async def all_ended() -> bool:
        for task_id in tasks:
            record = await store.get_task(task_id)
            if record is None or not record.task.status.state.is_terminal:
                return False
        return True

    began = time.monotonic()
    async with stack.running():
        worker, after_s = rng.choice(stack.workers), rng.uniform(0.2, KILL_WITHIN_S)
        killed: set[float] = set()  # the invocations already killed (when they began)
        while len(kills) < 4 and not await all_ended():
            since = worker.running_since()
            if since is None or since in killed or time.monotonic() - since < after_s:
                await asyncio.sleep(0.02)
                continue
            worker.kill()
            killed.add(since)
            kills.append((worker.name, round(time.monotonic() - since, 2)))
            worker, after_s = rng.choice(stack.workers), rng.uniform(0.2, KILL_WITHIN_S)
        await wait_for(all_ended, f"every task ended (seed {seed}, kills {kills})", 120, stack)
    elapsed = time.monotonic() - began

    runs = 0
    for task_id in tasks:
        record = await store.get_task(task_id)
        assert record is not None
        events = await store.read_events(task_id)
        assert log_problems(record, events) == [], (seed, kills)
        assert record.task.status.state.value == "completed", (seed, kills)
        assert status_states(events).count("completed") == 1
        assert artifact_texts(record.task) == [answer], (seed, kills)
        runs += (runs_dir / task_id).read_text().count("run")
    # Up to four: the tasks may all end first when the draws wait long (a loaded machine).
    assert 1 <= len(kills) <= 4, (seed, kills)
    print(
        f"\nrandom kills (seed {seed}): {kills} (environment, seconds into its invocation); "
        f"agent runs {runs} for {len(tasks)} tasks; all completed after {elapsed:.1f} s"
    )


# --- Lambda's timeout -----------------------------------------------------------------------------


def timeout_timing(*, visibility_s: int, lease_s: int) -> dict[str, str]:
    """A 4 s function whose agent's budget is 2 s (a margin of 2 s to record a failure, on two
    cores shared by several processes), and the given lease and visibility timeout."""
    return {
        "A2A_LAMBDA_TIMEOUT_S": "4",
        "A2A_LAMBDA_TIMEOUT_MARGIN_S": "2",
        "A2A_WORKER_LEASE_S": str(lease_s),
        "A2A_PUSH_TIMEOUT_S": "1",
        "A2A_SQS_VISIBILITY_TIMEOUT_S": str(visibility_s),
    }


def status_text(task: dict[str, Any]) -> str:
    message = task["status"].get("message") or {}
    return " ".join(p.get("text", "") for p in message.get("parts", []))


async def test_lambda_timeouts_end_in_a_failed_task_with_a_reason_or_a_completed_retry(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store: Store,
    runs_dir: Path,
) -> None:
    """The harness kills a worker at its 4 s deadline, as Lambda does. Three agents, each in an
    environment of its own: one that blocks its event loop past the deadline on every run (no
    budget can stop it), one that does so on its first run only, and one that overruns its budget
    politely (asyncio can interrupt it). The queue gives up after 2 receives and its
    dead-letter queue has its consumer; the visibility timeout (9 s) outlasts a dead worker's
    lease (5 s after its last write), so each redelivery takes the turn over at once."""
    queues = make_queues(max_receive_count=2, visibility_timeout_s=9)
    stack = Stack(
        make_function,
        function_env,
        queues,
        sqs,
        timing=timeout_timing(visibility_s=9, lease_s=5),
        workers=3,
        batch_size=1,
        enforce_timeout=True,
        dead_letters=True,
    )
    always = await stack.send("hang always 30")
    once = await stack.send("hang once 30")
    overrun = await stack.send("overrun 10")

    async def all_ended() -> bool:
        for task_id in (always, once, overrun):
            record = await store.get_task(task_id)
            if record is None or not record.task.status.state.is_terminal:
                return False
        return True

    began = time.monotonic()
    async with stack.running():
        await wait_for(all_ended, "every task ended", 90, stack)
    timed_out = sum(p.timed_out for p in stack.polls)
    print(f"\ntimeouts: all ended after {time.monotonic() - began:.1f} s, {timed_out} timed out")

    def runs(task_id: str) -> int:
        return (runs_dir / task_id).read_text().count("run")

    # Killed at the deadline on both deliveries; the dead-letter consumer failed the task.
    task = await stack.get(always)
    assert task["status"]["state"] == "failed"
    assert "dead-letter queue" in status_text(task), status_text(task)
    assert runs(always) == 2
    # Killed once, completed on the retry.
    task = await stack.get(once)
    assert task["status"]["state"] == "completed", (status_text(task), stack.polls)
    assert [p["text"] for a in task["artifacts"] for p in a["parts"]] == ["chunk 0 "]
    assert runs(once) == 2
    # The budget stopped it: failed on its first delivery, with the budget in the reason.
    task = await stack.get(overrun)
    assert task["status"]["state"] == "failed"
    assert "did not finish within its time budget of 2 s" in status_text(task)
    assert runs(overrun) == 1
    assert sum(p.timed_out for p in stack.polls) == 3  # always twice, once once
    for task_id in (always, once, overrun):
        record = await store.get_task(task_id)
        assert record is not None
        assert log_problems(record, await store.read_events(task_id)) == []


async def test_a_turn_that_always_times_out_is_not_started_again_forever(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store: Store,
    runs_dir: Path,
) -> None:
    """With a visibility timeout (4 s) shorter than the lease (8 s), the killed job comes back
    while the dead worker's lease still holds, and the worker sends it
    again with a delay: a new SQS message whose receive count starts from 1, so SQS alone never
    dead-letters it (without a limit the turn was started 7 times in 60 s, with no end). The
    worker ends it after A2A_WORKER_MAX_ATTEMPTS starts."""
    queues = make_queues(max_receive_count=3, visibility_timeout_s=4)
    stack = Stack(
        make_function,
        function_env,
        queues,
        sqs,
        timing=timeout_timing(visibility_s=4, lease_s=8),
        enforce_timeout=True,
        extra_env={"A2A_WORKER_MAX_ATTEMPTS": "2"},
    )
    task_id = await stack.send("hang always 30")

    async def ended() -> bool:
        record = await store.get_task(task_id)
        return record is not None and record.task.status.state.is_terminal

    async with stack.running():
        await wait_for(ended, "the task ended", 60, stack)

    task = await stack.get(task_id)
    assert task["status"]["state"] == "failed"
    assert "its worker stopped 2 times" in status_text(task), status_text(task)
    assert (runs_dir / task_id).read_text().count("run") == 2
    assert sum(p.timed_out for p in stack.polls) == 2
    # Deliveries that found the lease held re-sent the job rather than failing it.
    assert len(stack.polls) > 3 and not any(p.failed for p in stack.polls)
    dead = sqs.receive_message(QueueUrl=queues.dlq_url, WaitTimeSeconds=0).get("Messages", [])
    assert dead == []
    record = await store.get_task(task_id)
    assert record is not None
    assert log_problems(record, await store.read_events(task_id)) == []


# --- DynamoDB restarted under traffic -------------------------------------------------------------


@pytest.fixture
def own_dynamodb(tmp_path: Path) -> Iterator[RestartableDynamoDB]:
    """A DynamoDB Local of this test's own, on a file (the session's is in memory)."""
    jar = _find_jar()
    if jar is None or shutil.which("java") is None:
        pytest.fail(f"DynamoDB Local or java is missing.\n{INSTALL_HINT}")
    (tmp_path / "dynamodb").mkdir()
    db = RestartableDynamoDB(jar, tmp_path / "dynamodb", free_port(), tmp_path / "dynamodb.log")
    db.start()
    try:
        yield db
    finally:
        db.stop()


UNAVAILABLE = "unavailable"
# The workers: a turn's budget (7 s) well above what a turn takes even with the store frozen
# for a while (a turn past its budget fails by design); lease 9 s, visibility 8 s.
OUTAGE_TIMING = {
    "A2A_LAMBDA_TIMEOUT_S": "8",
    "A2A_LAMBDA_TIMEOUT_MARGIN_S": "1",
    "A2A_WORKER_LEASE_S": "9",
    "A2A_PUSH_TIMEOUT_S": "2",
    "A2A_SQS_VISIBILITY_TIMEOUT_S": "8",
}


def classify(response: dict[str, Any], *, rest: bool) -> tuple[str, Any]:
    """("ok", body), (UNAVAILABLE, body) for the store-outage answer each transport must give,
    or ("unexpected <status>", body) for anything else."""
    status = response["statusCode"]
    body = response_json(response) if response.get("body") else None
    retry_after = header(response, "Retry-After")
    if rest:
        if status == 200:
            return "ok", body
        error = (body or {}).get("error") or {}
        reason = (error.get("data") or {}).get("reason")
        if status == 503 and retry_after == "5" and reason == "store-unavailable":
            return UNAVAILABLE, body
        return f"unexpected {status}", body
    if status == 200 and "result" in (body or {}):
        return "ok", body
    error = (body or {}).get("error") or {}
    if status == 200 and retry_after == "5" and error.get("code") == -32603:
        data = error.get("data") or {}
        if data.get("reason") == "store-unavailable" and data.get("retryAfterSeconds") == 5:
            return UNAVAILABLE, body
    return f"unexpected {status}", body


class Client:
    """One client on its own HTTP function environment: sends a message (REST and JSON-RPC in
    turn), sending it again as it was after an outage answer until it is accepted (message/send
    is idempotent by messageId), then reads a task it knows. Records every answer."""

    def __init__(self, http: LambdaFunction, outcomes: Outcomes, number: int) -> None:
        self.http = http
        self.outcomes = outcomes
        self.number = number
        self.accepted: dict[str, str] = {}  # messageId -> task id
        self.resent = 0
        # (sent, answered, kind) of each request, times from time.monotonic().
        self.answers: list[tuple[float, float, str]] = []

    def invoke(self, event: dict[str, Any], *, rest: bool, what: str) -> tuple[str, Any]:
        began = time.monotonic()
        try:
            response = self.http.invoke(event, wait_s=30)
        except TimeoutError:
            self.outcomes.add(f"{what} hang", what)
            return "hang", None
        kind, body = classify(response, rest=rest)
        self.outcomes.add(f"{what} {kind}", str(response))
        self.answers.append((began, time.monotonic(), f"{what} {kind}"))
        return kind, body

    def run(self, stop: threading.Event) -> None:
        turn = 0
        while not stop.is_set():
            turn += 1
            rest = (turn + self.number) % 2 == 0
            message = user_message("stream 3 0.1")
            while not stop.is_set():
                kind, answer = self.invoke(self._send(message, rest), rest=rest, what="send")
                if kind == "ok":
                    task = answer["task"] if rest else answer["result"]
                    self.accepted[message["messageId"]] = task["id"]
                    break
                self.resent += 1
                self.read(rest)  # reads go on while sends are refused
                time.sleep(0.2)
            self.read(rest)
            time.sleep(0.05)

    def _send(self, message: dict[str, Any], rest: bool) -> dict[str, Any]:
        if not rest:
            params = {"message": message, "configuration": {"blocking": False}}
            return rpc("message/send", params, request_id=message["messageId"])
        content = [{"text": part["text"]} for part in message["parts"]]
        proto = {"messageId": message["messageId"], "role": "ROLE_USER", "content": content}
        body = {"message": proto, "configuration": {"blocking": False}}
        return http_api_event("POST", "/v1/message:send", body)

    def read(self, rest: bool) -> None:
        if not self.accepted:
            return
        task_id = random.choice(list(self.accepted.values()))
        if rest:
            self.invoke(http_api_event("GET", f"/v1/tasks/{task_id}"), rest=True, what="get")
        else:
            event = rpc("tasks/get", {"id": task_id}, request_id=task_id)
            self.invoke(event, rest=False, what="get")


async def test_dynamodb_killed_and_restarted_under_traffic(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    own_dynamodb: RestartableDynamoDB,
) -> None:
    """Two clients (each its own HTTP function) send and read tasks while two worker
    environments run them; DynamoDB Local is SIGKILLed and, after 3 s, started again on the same
    port and file. During the outage every request gets the outage answer at once (HTTP 503 +
    Retry-After over REST, -32603 with data over JSON-RPC), never a 500 or a hang; what was
    stored survives; every message accepted is one task that completes, whole."""
    from a2a_serverless_aws.dynamodb import create_table

    table = new_table_name()
    create_table(table, region=DYNAMODB_TEST_REGION, endpoint_url=own_dynamodb.endpoint)
    endpoint = quote(own_dynamodb.endpoint, safe="")
    store_url = f"dynamodb://{table}?region={DYNAMODB_TEST_REGION}&endpoint={endpoint}"
    queues = make_queues(max_receive_count=20, visibility_timeout_s=8)
    env = {
        **function_env,
        "A2A_STORE_URL": store_url,
        "A2A_SQS_QUEUE_URL": queues.url,
        "A2A_SQS_MAX_RECEIVE_COUNT": "20",
        "A2A_WORKER_MAX_ATTEMPTS": "20",
    }
    https = [
        make_function("http_handler", {**env, **HTTP_TIMING}, timeout_s=10, name=f"http{i}")
        for i in range(2)
    ]
    workers = [
        make_function(
            "fault_worker_handler", {**env, **OUTAGE_TIMING}, timeout_s=8, name=f"worker{i}"
        )
        for i in range(2)
    ]
    triggers = [SqsTrigger(sqs, queues.url, w, batch_size=5) for w in workers]
    outcomes = Outcomes()
    clients = [Client(http, outcomes, i) for i, http in enumerate(https)]
    stop_clients, stop_workers = threading.Event(), threading.Event()

    def work(trigger: SqsTrigger) -> None:
        while not stop_workers.is_set():
            trigger.poll()

    threads = [threading.Thread(target=c.run, args=(stop_clients,)) for c in clients]
    threads += [threading.Thread(target=work, args=(t,)) for t in triggers]
    for thread in threads:
        thread.daemon = True
        thread.start()
    store = open_store(store_url)

    def answered(kind: str, since: float = 0.0) -> int:
        return sum(1 for c in clients for _, t, k in c.answers if t >= since and k == kind)

    async def until(condition: Callable[[], Awaitable[bool]], what: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not await condition():
            assert time.monotonic() < deadline, f"{what}: not in {timeout_s} s; {outcomes}"
            await asyncio.sleep(0.1)

    async def traffic_flows() -> bool:
        accepted = [t for c in clients for t in c.accepted.values()]
        records = [await store.get_task(t) for t in accepted[:4]]
        done = [r for r in records if r is not None and r.task.status.state.is_terminal]
        return len(accepted) >= 6 and len(done) >= 2

    async def all_ended() -> bool:
        for task_id in {t for c in clients for t in c.accepted.values()}:
            record = await store.get_task(task_id)
            if record is None or not record.task.status.state.is_terminal:
                return False
        return True

    try:
        # Phases by what happened, not by the clock: the machine may be slow.
        await until(traffic_flows, "tasks accepted and completed before the outage", 120)
        before = {t for c in clients for t in c.accepted.values()}
        own_dynamodb.kill()
        killed = time.monotonic()

        async def outage_seen() -> bool:
            return (
                time.monotonic() - killed >= 3
                and answered(f"send {UNAVAILABLE}", killed) >= 4
                and answered(f"get {UNAVAILABLE}", killed) >= 2
            )

        await until(outage_seen, "outage answers", 60)
        restart_s = await asyncio.to_thread(own_dynamodb.start)
        up = time.monotonic()
        outage_s = up - killed

        async def accepted_again() -> bool:
            return answered("send ok", up) >= 6

        await until(accepted_again, "messages accepted after the restart", 120)
        # A stall rather than a crash: frozen for 2 s, requests wait and then succeed.
        own_dynamodb.freeze()
        frozen = time.monotonic()
        await asyncio.sleep(2)
        own_dynamodb.thaw()
        thawed = time.monotonic()

        async def accepted_after_thaw() -> bool:
            return answered("send ok", thawed) >= 3

        await until(accepted_after_thaw, "messages accepted after the freeze", 120)
        stop_clients.set()
        for thread in threads[: len(clients)]:
            await asyncio.to_thread(thread.join, 60)
        accepted = {m: t for c in clients for m, t in c.accepted.items()}
        await until(all_ended, "every accepted task ended", 120)
        stop_workers.set()
        for thread in threads[len(clients) :]:
            await asyncio.to_thread(thread.join, 60)

        # Only the two answers; the outage was seen on both transports' sends and reads.
        phases, slowest = {}, {}
        for name, start, end in (
            ("before", 0.0, killed),
            ("down", killed, up),
            ("after", up, thawed),
            ("thawed", thawed, 1e12),
        ):
            sent = [(t1 - t0, k) for c in clients for t0, t1, k in c.answers if start <= t0 < end]
            phases[name] = dict(collections.Counter(k for _, k in sent))
            slowest[name] = round(max((d for d, _ in sent), default=0.0), 2)
        kinds = {kind.split(" ", 1)[1] for kind in outcomes.counts}
        # The requests in flight while the store was frozen waited for it, then succeeded.
        stalled = [
            (round(t1 - t0, 2), k)
            for c in clients
            for t0, t1, k in c.answers
            if t0 < thawed and t1 > frozen
        ]
        assert stalled and all(k.endswith(" ok") for _, k in stalled), stalled
        assert kinds <= {"ok", UNAVAILABLE}, "\n".join(
            f"{k}: {v}" for k, v in outcomes.examples.items()
        )
        assert outcomes.counts["send unavailable"] > 0, outcomes
        # What was stored before the outage is still there; every accepted message is one task
        # (messageIds re-sent after an outage answer were not run twice), completed, whole.
        assert before and before <= set(accepted.values())
        assert len(set(accepted.values())) == len(accepted)
        for task_id in accepted.values():
            record = await store.get_task(task_id)
            assert record is not None
            events = await store.read_events(task_id)
            assert log_problems(record, events) == [], task_id
            message = record.task.status.message
            reason = [getattr(part, "text", "") for part in message.parts] if message else []
            assert record.task.status.state.value == "completed", (reason, shape(events))
            assert status_states(events).count("completed") == 1
            assert artifact_texts(record.task) == ["chunk 0 chunk 1 chunk 2 "], task_id
        # An outage is not a bug: no ERROR and no traceback in the HTTP functions' logs.
        http_logs = "\n".join(h.logs() for h in https)
        assert '"level":"ERROR"' not in http_logs and "Traceback" not in http_logs
        assert "answering that the service is unavailable" in http_logs
        failed_records = sum(len(p.failed) for t in triggers for p in t.results)
        print(
            f"\nDynamoDB down {outage_s:.1f} s (restart took {restart_s:.1f} s); answers "
            f"{phases}; {len(accepted)} tasks, "
            f"{len(before)} stored before the kill, all completed; messages re-sent "
            f"{sum(c.resent for c in clients)}; slowest answer by phase (s) {slowest}; worker "
            f"records failed and retried {failed_records}; in flight during the freeze {stalled}"
        )
    finally:
        stop_clients.set()
        stop_workers.set()
        await store.close()
