"""Webhook receivers that are down for a while, slow, or always failing, end to end.

The deployment is what `a2a-serverless dev` runs: `create_app` on a SQLite file store with the
in-process queue, called over JSON-RPC (httpx, in process: requests, turns and deliveries share
the test's event loop, as they share the dev server's). The receivers are real HTTP servers on
loopback (`DedupingEndpoint`): each verifies a notification's JWT against the JWKS the app
serves, then de-duplicates on X-A2A-Notification-Id, as docs/security.md tells receivers to.

The push settings are the defaults scaled down (back-off from 0.02-0.1 s instead of 1 s,
timeouts of 1-2 s instead of 10 s) so that a run takes seconds. What the tests check is how
they are used — attempts, back-off ceilings, order, duplicates, dead letters, concurrency —
never how long something took. Each test prints its figures (`-s` shows them):

    .venv/bin/pytest tests/push/test_receiver_faults.py -s
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import logging
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from a2a_serverless import Context, InputRequired, Settings, agent, create_app, progress
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.observability import Signal
from a2a_serverless.push import PushNotifier
from a2a_serverless.push.delivery import loggable_url
from a2a_serverless.queue import JobRoute, JobRouter
from a2a_serverless.queue.base import RUN_AGENT, WEBHOOK_JOB, Job, RetryJob
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.store.base import TaskRecord
from a2a_serverless.store.bookkeeping import DeadLetteredNotification

from .webhook_server import DedupingEndpoint, Received, Reply

SETTINGS: dict[str, Any] = {
    "dev_mode": True,  # loopback receivers pass the SSRF guard
    "blocking_timeout_s": 10.0,
    "poll_interval_s": 0.02,
    "push_timeout_s": 2.0,
    "push_backoff_base_s": 0.05,
    "push_backoff_max_s": 0.4,
    "push_max_attempts": 8,
    "push_deadline_s": 60.0,
}
TIMEOUT_S = 20.0  # only against hangs

# Turns of the "gate <key> ..." messages wait for GATES[key] (created by the test).
GATES: dict[str, asyncio.Event] = {}


@agent(name="Receiver faults agent", description="Works in steps; can wait for the test.")
async def steps_agent(context: Context) -> AsyncIterator[Any]:
    """'[gate KEY] steps N' -> N progress updates, then done; 'ask' -> input-required."""
    words = context.text.split()
    if words == ["ask"]:
        yield InputRequired("Which one?")
        return
    if words[:1] == ["gate"]:
        await GATES[words[1]].wait()
        words = words[2:]
    for i in range(int(words[1]) if words[:1] == ["steps"] else 0):
        yield progress(f"step {i + 1}")
    yield f"done: {context.text}"


def figures(title: str, **values: Any) -> None:
    """Print one test's figures (pytest -s shows them)."""
    print(f"\n[receiver faults] {title}")
    for name, value in values.items():
        print(f"    {name.replace('_', ' ')}: {value}")


def ceiling(settings: Settings, attempt: int) -> float:
    """The documented back-off ceiling after failed attempt `attempt`."""
    return min(settings.push_backoff_max_s, settings.push_backoff_base_s * 2.0 ** (attempt - 1))


class SignalLog:
    """An observer keeping every signal (webhook attempts carry their duration)."""

    def __init__(self) -> None:
        self.signals: list[Signal] = []

    def observe(self, signal: Signal) -> None:
        self.signals.append(signal)

    def durations(self, name: str) -> list[float]:
        return [s.duration_s for s in self.signals if s.name == name and s.duration_s is not None]


class JobCounter:
    """Wraps the notifier's job handler: counts webhook job runs and what came of them."""

    def __init__(self, handler: Callable[[Job], Awaitable[None]]) -> None:
        self.handler = handler
        self.outcomes: Counter[str] = Counter()

    async def __call__(self, job: Job) -> None:
        try:
            await self.handler(job)
        except RetryJob as retry:
            # A notification behind an undelivered earlier one waits; others were attempted.
            self.outcomes["waited" if retry.reason.startswith("waiting") else "retry"] += 1
            raise
        self.outcomes["done"] += 1


class Deployment:
    """The app over JSON-RPC, its store and notifier, and what it logged and signalled."""

    def __init__(self, app: A2AApplication, client: httpx.AsyncClient, signals: SignalLog) -> None:
        self.app = app
        self.client = client
        self.signals = signals
        self.runtime = app.runtime
        self.store = app.runtime.store
        self.settings = app.runtime.settings
        notifier = app.runtime.notifier
        assert notifier is not None, "dev mode offers push"
        self.notifier: PushNotifier = notifier
        self.jobs = JobCounter(notifier.handle)
        # The runtime's routes, with the webhook deliveries counted.
        worker = app.runtime.worker
        queue = app.runtime.queue
        assert isinstance(queue, InProcessQueue)
        queue.bind(
            JobRouter(
                {
                    RUN_AGENT: JobRoute(worker.handle, worker.abandon),
                    WEBHOOK_JOB: JobRoute(self.jobs, notifier.abandon),
                }
            )
        )
        self._ids = 0

    async def rpc(self, method: str, params: dict[str, Any]) -> Any:
        self._ids += 1
        body = {"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params}
        response = await self.client.post("/", json=body)
        assert response.status_code == 200, response.text
        answer = response.json()
        assert "result" in answer, answer
        return answer["result"]

    async def jwks(self) -> dict[str, Any]:
        document: dict[str, Any] = (await self.client.get("/.well-known/jwks.json")).json()
        return document

    async def send(
        self,
        text: str,
        push: dict[str, Any] | None = None,
        *,
        blocking: bool = False,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        self._ids += 1
        message: dict[str, Any] = {
            "kind": "message",
            "role": "user",
            "messageId": f"m-{self._ids}-{time.monotonic_ns()}",
            "parts": [{"kind": "text", "text": text}],
        }
        if task_id is not None:
            message["taskId"] = task_id
        configuration: dict[str, Any] = {"blocking": blocking}
        if push is not None:
            configuration["pushNotificationConfig"] = push
        task: dict[str, Any] = await self.rpc(
            "message/send", {"message": message, "configuration": configuration}
        )
        return task

    async def set_config(self, task_id: str, config: dict[str, Any]) -> None:
        await self.rpc(
            "tasks/pushNotificationConfig/set",
            {"taskId": task_id, "pushNotificationConfig": config},
        )

    async def get(self, task_id: str) -> dict[str, Any]:
        task: dict[str, Any] = await self.rpc("tasks/get", {"id": task_id})
        return task

    async def wait_for_state(self, task_id: str, state: str) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        while (task := await self.get(task_id))["status"]["state"] != state:
            assert time.monotonic() < deadline, f"task {task_id} is {task['status']['state']}"
            await asyncio.sleep(0.02)
        return task

    async def record(self, task_id: str) -> TaskRecord:
        record = await self.store.get_task(task_id)
        assert record is not None
        return record

    async def dead_letters(
        self, task_id: str, config_id: str | None = None
    ) -> list[DeadLetteredNotification]:
        letters = await self.notifier.dead_letters(task_id)
        return [d for d in letters if config_id is None or d.config_id == config_id]

    async def expected(self, task_id: str, config_id: str) -> list[int]:
        """The seqs this config is due a notification for: qualifying events after its floor."""
        record = await self.record(task_id)
        floor = int(record.internal.get("pushFloor", {}).get(config_id, 0))
        events = await self.store.read_events(task_id)
        return [e.seq for e in events if e.seq > floor and self.notifier.qualifies(e.payload)]

    async def drain(self) -> None:
        queue = self.runtime.queue
        assert isinstance(queue, InProcessQueue)
        await asyncio.wait_for(queue.drain(), TIMEOUT_S)


DeploymentFactory = Callable[..., Awaitable[Deployment]]


@pytest.fixture
async def deploy(tmp_path: Path) -> AsyncIterator[DeploymentFactory]:
    """`await deploy(**settings)`: the app on a fresh SQLite file; `queue=` swaps the queue."""
    made: list[Deployment] = []
    clients: list[httpx.AsyncClient] = []

    async def factory(*, queue: InProcessQueue | None = None, **overrides: Any) -> Deployment:
        db = tmp_path / f"tasks-{len(made)}.db"
        settings = Settings(**{**SETTINGS, "store_url": f"sqlite:///{db}", **overrides})
        signals = SignalLog()
        options: dict[str, Any] = {"observers": [signals]}
        if queue is not None:
            options["queue"] = queue
        app = create_app(steps_agent, settings, **options)
        if queue is not None:
            queue.bind(app.runtime.jobs)
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://testserver", timeout=30
        )
        clients.append(client)
        made.append(Deployment(app, client, signals))
        return made[-1]

    yield factory
    for client in clients:
        await client.aclose()
    for deployment in made:
        await deployment.runtime.aclose()


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    return caplog


def failed_attempts(logs: pytest.LogCaptureFixture) -> list[tuple[str, int, str, float]]:
    """(notification id, attempt, reason, next delay) of every logged failed attempt."""
    found = []
    for record in logs.records:
        if record.name == "a2a_serverless.push" and "attempt %d to %s failed" in str(record.msg):
            nid, attempt, _url, reason, delay = cast(tuple[str, int, str, str, float], record.args)
            found.append((nid, attempt, reason, delay))
    return found


async def wait_until(condition: Callable[[], Awaitable[bool] | bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        result = condition()
        if not isinstance(result, bool):
            result = await result
        if result:
            return
        assert time.monotonic() < deadline, f"not reached in {TIMEOUT_S} s: {what}"
        await asyncio.sleep(0.02)


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return (
        f"min {min(values):.3f} s, median {statistics.median(values):.3f} s, "
        f"max {max(values):.3f} s (n={len(values)})"
    )


# --- 1. down for a while -----------------------------------------------------------------------


async def test_a_receiver_down_for_a_while_gets_every_notification_once_in_order(
    deploy: DeploymentFactory, logs: pytest.LogCaptureFixture
) -> None:
    down_s = 2.0
    d = await deploy(
        push_notify_on="all",
        push_backoff_base_s=0.1,
        push_backoff_max_s=0.8,
        push_max_attempts=40,
    )
    endpoint = await DedupingEndpoint(await d.jwks()).start()
    push = {"url": endpoint.url(), "token": "outage-token", "id": "hook"}
    try:
        # Baseline: the same work with the receiver up.
        baseline = [(await d.send("steps 3", push))["id"] for _ in range(4)]
        for task_id in baseline:
            await d.wait_for_state(task_id, "completed")
        baseline_s = d.signals.durations("task.completed")
        await d.drain()

        await endpoint.stop()  # down: connections to its port are refused
        down_at = time.monotonic()
        tasks = [(await d.send("steps 3", push))["id"] for _ in range(4)]
        for task_id in tasks:
            await d.wait_for_state(task_id, "completed")
        # Every task ended while its receiver could not be reached.
        completed_while_down = time.monotonic() - down_at
        outage_s = d.signals.durations("task.completed")[len(baseline_s) :]
        await asyncio.sleep(max(0.0, down_s - (time.monotonic() - down_at)))
        attempts_while_down = len(failed_attempts(logs))
        accepted_before = len(endpoint.accepted)

        await endpoint.start(endpoint.server.port)  # up again, same port
        up_at = time.monotonic()
        expected = {t: await d.expected(t, "hook") for t in tasks}
        total = accepted_before + sum(len(seqs) for seqs in expected.values())
        await wait_until(lambda: len(endpoint.accepted) >= total, "every notification accepted")
        recovered_s = max(a.at for a in endpoint.accepted) - up_at
        first_s = min(a.at for a in endpoint.accepted[accepted_before:]) - up_at
        await d.drain()
    finally:
        await endpoint.stop()

    for task_id in tasks:
        # Per task and config: the first copies arrive in the order of the task's events.
        assert [a.seq for a in endpoint.for_task(task_id)] == expected[task_id]
        assert await d.dead_letters(task_id) == []
        assert (await d.get(task_id))["status"]["state"] == "completed"
    assert endpoint.duplicates == [] and endpoint.rejected == []

    attempts = failed_attempts(logs)
    assert attempts, "deliveries were attempted while the receiver was down"
    assert all("connection failed" in reason for _, _, reason, _ in attempts)
    # Full jitter: each wait is drawn from [0, min(max, base * 2^(attempt-1))].
    assert all(0 <= delay <= ceiling(d.settings, n) for _, n, _, delay in attempts)
    per_notification = Counter(nid for nid, *_ in attempts)
    assert max(per_notification.values()) >= 3
    # Behind the head of each line, a backlog goes out one at a time.
    gaps = []
    for task_id in tasks:
        times = [a.at for a in endpoint.for_task(task_id)]
        gaps += [later - earlier for earlier, later in itertools.pairwise(times)]
    by_attempt: dict[int, list[float]] = defaultdict(list)
    for _, n, _, delay in attempts:
        by_attempt[n].append(delay)
    figures(
        "receiver down for a while, then up",
        settings="notify on all events, back-off base 0.1 s, cap 0.8 s, 40 attempts",
        outage=f"{down_s:g} s; 4 tasks x {len(expected[tasks[0]])} notifications sent into it",
        tasks_completed_during_the_outage=f"all 4, within {completed_while_down:.2f} s",
        task_duration_receiver_up=spread(baseline_s),
        task_duration_receiver_down=spread(outage_s),
        failed_attempts_while_down=f"{attempts_while_down} (heads of line only)",
        failed_attempts_per_notification=dict(sorted(Counter(per_notification.values()).items())),
        webhook_job_runs=dict(d.jobs.outcomes),
        mean_wait_after_attempt_n=", ".join(
            f"{n}: {statistics.mean(v):.3f} s (ceiling {ceiling(d.settings, n):g})"
            for n, v in sorted(by_attempt.items())
        ),
        first_delivery_after_up=f"{first_s:.2f} s",
        all_delivered_after_up=f"{recovered_s:.2f} s ({total - accepted_before} notifications)",
        gap_between_notifications_of_one_task=f"{spread(gaps)}; they look again every "
        f"{d.notifier.wait_s:g} s",
        duplicates=len(endpoint.duplicates),
        dead_letters=0,
    )


async def test_a_receiver_down_longer_than_the_retry_budget_loses_only_that_notification(
    deploy: DeploymentFactory, logs: pytest.LogCaptureFixture
) -> None:
    d = await deploy(push_max_attempts=4, push_backoff_base_s=0.05, push_backoff_max_s=0.2)
    endpoint = await DedupingEndpoint(await d.jwks()).start()
    await endpoint.stop()
    try:
        task_id = (await d.send("ask", {"url": endpoint.url(), "id": "hook"}))["id"]
        await d.wait_for_state(task_id, "input-required")

        async def lettered() -> bool:
            return bool(await d.dead_letters(task_id))

        await wait_until(lettered, "the notification dead-lettered")
        [letter] = await d.dead_letters(task_id)

        await endpoint.start(endpoint.server.port)
        await d.send("the blue one", task_id=task_id)
        await d.wait_for_state(task_id, "completed")
        await wait_until(lambda: bool(endpoint.accepted), "the next notification")
        await d.drain()
    finally:
        await endpoint.stop()

    assert letter.attempts == 4
    assert letter.reason.startswith("gave up after 4 attempts; last error: connection failed")
    # Nothing replays a dead letter: the receiver sees the notifications after it.
    assert [a.state for a in endpoint.accepted] == ["completed"]
    assert endpoint.accepted[0].seq > letter.seq
    waits = [delay for nid, _, _, delay in failed_attempts(logs) if nid == letter.notification_id]
    assert len(waits) == 3
    budget = sum(ceiling(d.settings, n) for n in range(1, 4))
    figures(
        "receiver down for longer than the retry budget",
        settings="4 attempts, back-off base 0.05 s, cap 0.2 s",
        retry_budget=f"3 waits, at most {budget:g} s in all (mean {budget / 2:g} s)",
        waits_drawn=", ".join(f"{w:.3f} s" for w in waits),
        dead_letter=f"seq {letter.seq}, {letter.attempts} attempts: {letter.reason}",
        after_the_receiver_came_back="the next notification (completed) delivered; the lost "
        "one is only in dead_letters()",
    )


# --- 2. slow -----------------------------------------------------------------------------------


async def test_a_slow_receiver_times_out_and_is_retried_one_just_under_is_not(
    deploy: DeploymentFactory, logs: pytest.LogCaptureFixture
) -> None:
    timeout_s, over_s, under_s = 1.0, 2.0, 0.4
    d = await deploy(push_timeout_s=timeout_s)
    copies: Counter[str] = Counter()

    def behaviour(request: Received) -> Reply:
        copies[str(request.notification_id)] += 1
        if request.path == "/under":
            return Reply(200, delay_s=under_s)
        # The first copy is taken in, but answered after the timeout; later ones at once.
        return Reply(200, delay_s=over_s if copies[str(request.notification_id)] == 1 else 0)

    endpoint = await DedupingEndpoint(await d.jwks(), behaviour).start()
    try:
        over = [(await d.send("x", {"url": endpoint.url("/over")}))["id"] for _ in range(3)]
        under = [(await d.send("x", {"url": endpoint.url("/under")}))["id"] for _ in range(3)]
        for task_id in over + under:
            await d.wait_for_state(task_id, "completed")
        await wait_until(lambda: len(endpoint.accepted) == 6, "six notifications accepted")
        await d.drain()
    finally:
        await endpoint.stop()

    over_requests = endpoint.server.notifications("/over")
    under_requests = endpoint.server.notifications("/under")
    assert len(under_requests) == 3, "answered within the timeout: one attempt each"
    assert len(over_requests) == 6, "answered after the timeout: retried once each"
    assert len({r.notification_id for r in over_requests}) == 3
    # At least once: each retried notification reached the receiver twice, same id.
    assert sorted(a.path for a in endpoint.duplicates) == ["/over"] * 3
    assert {a.task_id for a in endpoint.accepted} == set(over + under)
    reasons = {reason for _, _, reason, _ in failed_attempts(logs)}
    assert reasons == {f"no complete response within {timeout_s:g} s"}
    for task_id in over + under:
        assert await d.dead_letters(task_id) == []
    figures(
        "slow receiver",
        settings=f"A2A_PUSH_TIMEOUT_S={timeout_s:g}; receivers answer after {over_s:g} s "
        f"(first copy) or {under_s:g} s",
        over_the_timeout="3 notifications, 6 requests, 3 duplicates seen by the receiver, "
        "0 dead letters",
        just_under="3 notifications, 3 requests, 0 duplicates",
        attempt_held_when_timed_out=spread(d.signals.durations("webhook.retrying")),
        attempt_held_when_answered=spread(d.signals.durations("webhook.delivered")),
    )


async def test_slow_deliveries_hold_bounded_slots_and_never_hold_up_a_turn(
    deploy: DeploymentFactory,
) -> None:
    slots = 4
    release = asyncio.Event()

    async def held(request: Received) -> Reply:
        # A receiver that takes its time: every request waits for the test to let it go.
        await asyncio.wait_for(release.wait(), TIMEOUT_S)
        return Reply(200)

    d = await deploy(queue=InProcessQueue(concurrency=slots), push_timeout_s=TIMEOUT_S)
    endpoint = await DedupingEndpoint(await d.jwks(), held).start()
    try:
        pushed = [(await d.send("x", {"url": endpoint.url()}))["id"] for _ in range(slots + 3)]
        await wait_until(lambda: endpoint.server.in_flight == slots, "every webhook slot held")
        # The turns whose notifications hang are over; a new task runs while they hang.
        for task_id in pushed:
            assert (await d.get(task_id))["status"]["state"] == "completed"
        started = time.monotonic()
        answer = await d.send("steps 2", blocking=True)
        blocking_send_s = time.monotonic() - started
        assert answer["status"]["state"] == "completed"
        assert endpoint.server.in_flight == slots, "still hanging"
        late = (await d.send("y", {"url": endpoint.url()}))["id"]
        await d.wait_for_state(late, "completed")
        assert len(endpoint.server.requests) == slots

        release.set()
        await wait_until(lambda: len(endpoint.accepted) == slots + 4, "every notification")
        await d.drain()
    finally:
        release.set()
        await endpoint.stop()

    assert endpoint.server.max_in_flight == slots
    assert endpoint.duplicates == []
    figures(
        "slow receivers and concurrency (in-process queue)",
        settings=f"queue concurrency {slots}; {slots + 4} notifications to a receiver that "
        "holds every request until released",
        deliveries_in_flight_at_most=endpoint.server.max_in_flight,
        blocking_message_send_while_every_webhook_slot_was_held=f"completed in "
        f"{blocking_send_s:.3f} s",
    )


# --- 3. always failing -------------------------------------------------------------------------


async def test_an_always_failing_receiver_is_dead_lettered_and_the_others_still_flow(
    deploy: DeploymentFactory, logs: pytest.LogCaptureFixture
) -> None:
    attempts = 3
    d = await deploy(
        push_notify_on="all",
        push_max_attempts=attempts,
        push_backoff_base_s=0.02,
        push_backoff_max_s=0.1,
    )
    failing = {"e500": 500, "e401": 401, "e404": 404, "e410": 410}

    def behaviour(request: Received) -> Reply:
        status = failing.get(request.path.strip("/"), 200)
        return Reply(status, body=b"nope" if status != 200 else b"ok")

    secrets = {
        "healthy": "tok-healthy-s3cr3t",
        "e500": "tok-500-s3cr3t",
        "e401": "tok-401-s3cr3t",
        "basic": "receiver-user:pa55-s3cr3t",
        "bearer": "bearer-cred-s3cr3t",
    }
    endpoint = await DedupingEndpoint(
        await d.jwks(), behaviour, tokens={"/healthy": secrets["healthy"]}
    ).start()
    GATES["failing"] = asyncio.Event()
    configs: dict[str, dict[str, Any]] = {
        "healthy": {"url": endpoint.url("/healthy"), "id": "healthy", "token": secrets["healthy"]},
        "e500": {
            "url": endpoint.url("/e500"),
            "id": "e500",
            "token": secrets["e500"],
            "authentication": {"schemes": ["Basic"], "credentials": secrets["basic"]},
        },
        "e401": {
            "url": endpoint.url("/e401"),
            "id": "e401",
            "token": secrets["e401"],
            "authentication": {"schemes": ["Bearer"], "credentials": secrets["bearer"]},
        },
        "e404": {"url": endpoint.url("/e404"), "id": "e404"},
        "e410": {"url": endpoint.url("/e410"), "id": "e410"},
    }
    try:
        task_id = (await d.send("gate failing steps 2", configs["healthy"]))["id"]
        await d.wait_for_state(task_id, "working")
        for config_id in failing:
            await d.set_config(task_id, configs[config_id])
        GATES["failing"].set()
        done = await d.wait_for_state(task_id, "completed")
        expected = {c: await d.expected(task_id, c) for c in configs}
        letters_due = sum(len(expected[c]) for c in failing)

        async def settled() -> bool:
            return len(await d.dead_letters(task_id)) >= letters_due and len(
                endpoint.accepted
            ) >= len(expected["healthy"])

        await wait_until(settled, "every notification delivered or dead-lettered")
        await d.drain()
    finally:
        GATES.pop("failing").set()
        await endpoint.stop()

    # The healthy config got every notification, in order, none dead-lettered.
    assert [a.seq for a in endpoint.for_task(task_id, "/healthy")] == expected["healthy"]
    assert await d.dead_letters(task_id, "healthy") == []
    first_at: dict[str, float] = {}
    for config_id, status in failing.items():
        requests = endpoint.server.notifications(f"/{config_id}")
        first_at[config_id] = requests[0].at
        per_notification = Counter(r.seq for r in requests)
        letters = await d.dead_letters(task_id, config_id)
        # Each of its notifications was tried, in order, then dead-lettered; then the next.
        assert [letter.seq for letter in letters] == expected[config_id]
        assert list(per_notification) == expected[config_id]
        if status >= 500:
            assert set(per_notification.values()) == {attempts}
            assert all(letter.attempts == attempts for letter in letters)
            assert all(
                letter.reason
                == f"gave up after {attempts} attempts; last error: HTTP 500 (4 bytes of body)"
                for letter in letters
            )
        else:  # a 4xx is not retried
            assert set(per_notification.values()) == {1}
            assert all(letter.attempts == 1 for letter in letters)
            assert all(letter.reason == f"HTTP {status} (4 bytes of body)" for letter in letters)

    # The task is as its turn left it: deliveries write bookkeeping, never events.
    after = await d.get(task_id)
    assert after["status"] == done["status"] and after["artifacts"] == done["artifacts"]
    assert after["artifacts"][0]["parts"][0]["text"] == "done: gate failing steps 2"
    record = await d.record(task_id)
    assert record.last_seq == max(expected["healthy"])
    assert "pushDeadLetters" not in str(after)

    # One clear WARNING per dead letter; no ERROR; no secret anywhere in the logs.
    letters = await d.dead_letters(task_id)
    warnings = [
        r for r in logs.records if r.name == "a2a_serverless.push" and "dead-lettered" in r.msg
    ]
    assert len(warnings) == len(letters) == letters_due
    for letter in letters:
        [line] = [w.getMessage() for w in warnings if letter.notification_id in w.getMessage()]
        assert f"task {task_id} seq {letter.seq}" in line
        assert loggable_url(letter.url) in line and letter.reason in line
        assert f"after {letter.attempts} attempt(s)" in line
    assert [r.getMessage() for r in logs.records if r.levelno >= logging.ERROR] == []
    basic = base64.b64encode(secrets["basic"].encode()).decode()
    jwts = set()
    for request in endpoint.server.requests:
        for header in ("authorization", "x-a2a-notification-jwt"):
            value = request.headers.get(header, "")
            jwts.add(value.split(" ", 1)[-1])
    searched = {*secrets.values(), basic, *(j for j in jwts if j)}
    formatter = logging.Formatter()
    text = "\n".join(formatter.format(r) for r in logs.records)
    assert [s for s in searched if s in text] == []

    last_letter_at = {c: max(r.at for r in endpoint.server.notifications(f"/{c}")) for c in failing}
    figures(
        "receivers always failing, next to a healthy one on the same task",
        settings=f"notify on all events, {attempts} attempts, back-off base 0.02 s, cap 0.1 s",
        healthy=f"{len(expected['healthy'])} notifications delivered in order, 0 dead letters",
        **{
            f"HTTP {status}": (
                f"{len(expected[c])} notifications, "
                f"{len(endpoint.server.notifications(f'/{c}'))} requests, "
                f"{len(expected[c])} dead letters, first attempt to last "
                f"{last_letter_at[c] - first_at[c]:.3f} s"
            )
            for c, status in failing.items()
        },
        task="completed, events and artifacts untouched",
        logs=f"{len(warnings)} WARNING lines (one per dead letter), 0 ERROR; "
        f"{len(searched)} secret values searched in {len(logs.records)} records, none found",
    )


async def test_a_secret_in_a_webhook_query_string_stays_out_of_every_log(
    deploy: DeploymentFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # INFO, as on Lambda with AWS_LAMBDA_LOG_LEVEL=INFO (the runtime then sets the root logger).
    caplog.set_level(logging.INFO)
    d = await deploy()
    endpoint = await DedupingEndpoint(await d.jwks(), lambda r: Reply(404)).start()
    try:
        task_id = (await d.send("x", {"url": endpoint.url() + "?key=query-s3cr3t"}))["id"]
        await wait_until(lambda: bool(endpoint.server.requests), "the attempt")
        await d.drain()
    finally:
        await endpoint.stop()
    [letter] = await d.dead_letters(task_id)
    assert "query-s3cr3t" in letter.url  # kept with the dead letter, for its owner
    leaks = [
        f"{r.name}: {r.getMessage()}" for r in caplog.records if "query-s3cr3t" in r.getMessage()
    ]
    assert leaks == []
