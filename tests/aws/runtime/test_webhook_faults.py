"""Webhook receivers that are down, slow or always failing, on Lambda + SQS + DynamoDB Local.

The deployment of test_lambda_e2e.py: the HTTP and worker functions under the real Lambda
runtime client (awslambdaric), tasks in DynamoDB Local, jobs in SQS (moto server), the test
playing Lambda's event source mapping (`SqsTrigger`). Webhook back-off goes through SQS: a
failed attempt raises `RetryJob`, and the worker sends the job again with `DelaySeconds` (whole
seconds, rounded up). The receivers are `DedupingEndpoint`s on loopback: they verify each JWT
against the JWKS the HTTP function publishes and de-duplicate on X-A2A-Notification-Id.

What is checked is what happened — attempts, order, duplicates, dead letters, SQS failures —
never how long it took. Figures come from the receivers, the worker's JSON logs and its EMF
metrics (`WebhookAttemptDuration`); `-s` prints them:

    .venv/bin/pytest tests/aws/runtime/test_webhook_faults.py -s
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import math
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from a2a_serverless.models import TaskStatusUpdateEvent
from a2a_serverless.push.delivery import loggable_url
from a2a_serverless.store import open_store
from a2a_serverless.store.base import TaskEvent, TaskRecord
from a2a_serverless.store.bookkeeping import DeadLetteredNotification
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import SqsTrigger, http_api_event, response_json
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.aws.runtime.test_lambda_e2e import HTTP_TIMING, call
from tests.integration.jsonrpc_agents import user_message
from tests.push.webhook_server import DedupingEndpoint, Received, Reply

pytestmark = pytest.mark.aws

# The worker: an 8 s function with a 1 s margin (a turn may take 7 s on a busy machine, and a
# webhook attempt must fit in an invocation, see a2a_serverless_aws.config).
WORKER_TIMING = {
    "A2A_LAMBDA_TIMEOUT_S": "8",
    "A2A_LAMBDA_TIMEOUT_MARGIN_S": "1",
    "A2A_WORKER_LEASE_S": "10",
    "A2A_SQS_VISIBILITY_TIMEOUT_S": "8",
}
PUSH = {
    "A2A_PUSH_TIMEOUT_S": "2",
    "A2A_PUSH_BACKOFF_BASE_S": "1",
    "A2A_PUSH_BACKOFF_MAX_S": "2",
    "A2A_PUSH_DEADLINE_S": "600",
}
TIMEOUT_S = 60.0  # only against hangs

FAILED_ATTEMPT = re.compile(
    r"notification (?P<nid>\S+) attempt (?P<n>\d+) to \S+ failed \((?P<reason>.*)\); "
    r"next in (?P<delay>\S+) s$"
)


class Deployment:
    """The two functions of one deployment, its queues, and the trigger between them."""

    def __init__(
        self,
        make_function: Callable[..., LambdaFunction],
        function_env: dict[str, str],
        queues: Queues,
        sqs: Any,
        store_url: str,
        push: dict[str, str],
    ) -> None:
        env = {
            **function_env,
            "A2A_SQS_QUEUE_URL": queues.url,
            "A2A_SQS_MAX_RECEIVE_COUNT": str(queues.max_receive_count),
            **PUSH,
            **push,
        }
        self.http = make_function("http_handler", {**env, **HTTP_TIMING}, timeout_s=10, name="http")
        self.worker = make_function(
            "worker_handler", {**env, **WORKER_TIMING}, timeout_s=8, name="worker"
        )
        self.trigger = SqsTrigger(sqs, queues.url, self.worker)
        self.queues = queues
        self.sqs = sqs
        self.store_url = store_url
        self.notify_all = push.get("A2A_PUSH_NOTIFY_ON") == "all"

    # --- the A2A side ---------------------------------------------------------------------------

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        return await asyncio.to_thread(call, self.http, method, params)

    async def jwks(self) -> dict[str, Any]:
        response = await asyncio.to_thread(
            self.http.invoke, http_api_event("GET", "/.well-known/jwks.json")
        )
        document: dict[str, Any] = response_json(response)
        return document

    async def send(self, text: str, push: dict[str, Any] | None = None) -> str:
        configuration: dict[str, Any] = {"blocking": False}
        if push is not None:
            configuration["pushNotificationConfig"] = push
        params = {"message": user_message(text), "configuration": configuration}
        task = await self.call("message/send", params)
        return str(task["id"])

    # --- the store --------------------------------------------------------------------------------

    async def read(self, task_id: str) -> tuple[TaskRecord, list[TaskEvent]]:
        store = open_store(self.store_url)
        try:
            record = await store.get_task(task_id)
            assert record is not None
            return record, await store.read_events(task_id)
        finally:
            await store.close()

    async def state(self, task_id: str) -> str:
        record, _ = await self.read(task_id)
        return record.task.status.state.value

    async def dead_letters(self, task_id: str) -> list[DeadLetteredNotification]:
        record, _ = await self.read(task_id)
        return [
            DeadLetteredNotification.from_dict(d)
            for d in record.internal.get("pushDeadLetters", [])
        ]

    async def expected(self, task_id: str, config_id: str) -> list[int]:
        """The seqs `config_id` is due a notification for (qualifying events after its floor)."""
        record, events = await self.read(task_id)
        floor = int(record.internal.get("pushFloor", {}).get(config_id, 0))
        return [e.seq for e in events if e.seq > floor and self._qualifies(e)]

    def _qualifies(self, event: TaskEvent) -> bool:
        if self.notify_all:
            return True
        payload = event.payload
        if not isinstance(payload, TaskStatusUpdateEvent):
            return False
        return payload.status.state.is_terminal or payload.status.state.is_interrupted

    # --- the queue --------------------------------------------------------------------------------

    def poll_until(self, done: Callable[[], bool]) -> None:
        """Play the event source mapping until `done()` (run in a thread)."""
        self.trigger.run_until(done, timeout_s=TIMEOUT_S)

    def queue_empty(self) -> bool:
        names = [
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ]
        attributes = self.sqs.get_queue_attributes(QueueUrl=self.queues.url, AttributeNames=names)[
            "Attributes"
        ]
        return sum(int(attributes.get(name, 0)) for name in names) == 0

    def dead_letter_queue(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self.sqs.receive_message(
            QueueUrl=self.queues.dlq_url, VisibilityTimeout=0
        ).get("Messages", [])
        return messages

    # --- what the worker logged -------------------------------------------------------------------

    async def explain(self, task_ids: list[str]) -> str:
        """For a failure message: each task's state and status text, the worker's ERRORs."""
        parts = []
        for task_id in task_ids:
            record, _ = await self.read(task_id)
            status = record.task.status
            message = json.dumps(status.message.model_dump()) if status.message else ""
            parts.append(f"task {task_id}: {status.state.value} {message}")
        errors = [line for line in self.log_lines() if line.get("level") == "ERROR"]
        return "\n".join([*parts, *(json.dumps(line)[:2000] for line in errors)])

    def log_lines(self, function: LambdaFunction | None = None) -> list[dict[str, Any]]:
        text = (function or self.worker).logs()
        lines = []
        for line in text.splitlines():
            if line.startswith("{"):
                try:
                    lines.append(json.loads(line))
                except ValueError:
                    continue
        return lines

    def messages(self) -> list[str]:
        return [str(line["message"]) for line in self.log_lines() if "message" in line]

    def failed_attempts(self) -> list[tuple[str, int, str, float]]:
        """(notification id, attempt, reason, next delay) of each failed attempt logged."""
        found = []
        for message in self.messages():
            match = FAILED_ATTEMPT.search(message)
            if match:
                found.append(
                    (
                        match["nid"],
                        int(match["n"]),
                        match["reason"],
                        float(match["delay"]),
                    )
                )
        return found

    def metric(self, name: str) -> list[float]:
        """The values of metric `name` (e.g. WebhookAttemptDuration) in the worker's EMF lines."""
        values: list[float] = []
        for line in self.log_lines():
            if "_aws" in line and name in line:
                value = line[name]
                values.extend(value if isinstance(value, list) else [value])
        return values

    def waits(self) -> int:
        """How often a notification was sent on to wait for an earlier one."""
        return sum("waiting for the notification of seq" in m for m in self.messages())


@pytest.fixture
def deploy(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store_url: str,
) -> Callable[..., Deployment]:
    def make(**push: str) -> Deployment:
        return Deployment(make_function, function_env, make_queues(), sqs, store_url, push)

    return make


def figures(title: str, **values: Any) -> None:
    print(f"\n[webhook faults, Lambda + SQS] {title}")
    for name, value in values.items():
        print(f"    {name.replace('_', ' ')}: {value}")


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return (
        f"min {min(values):.3f} s, median {statistics.median(values):.3f} s, "
        f"max {max(values):.3f} s (n={len(values)})"
    )


def no_sqs_failures(trigger: SqsTrigger) -> bool:
    return all(not r.failed and not r.crashed and r.error is None for r in trigger.results)


# --- 1. down for a while -----------------------------------------------------------------------


async def test_a_receiver_down_for_a_while_gets_every_notification_once_in_order(
    deploy: Callable[..., Deployment],
) -> None:
    down_attempts = 3
    d = deploy(A2A_PUSH_NOTIFY_ON="all", A2A_PUSH_MAX_ATTEMPTS="20")
    endpoint = await DedupingEndpoint(await d.jwks()).start()
    await endpoint.stop()  # down: connections to its port are refused
    push = {"url": endpoint.url(), "token": "outage-t0ken", "id": "hook"}
    try:
        tasks = [await d.send("hello", push) for _ in range(2)]
        down_at = time.monotonic()

        def outage_over() -> bool:
            # Down until the first notification of each task has failed `down_attempts` times.
            counts = Counter(nid for nid, *_ in d.failed_attempts())
            return sum(1 for c in counts.values() if c >= down_attempts) == len(tasks)

        await asyncio.to_thread(d.poll_until, outage_over)
        # Both tasks ended while the receiver was unreachable.
        states = {t: await d.state(t) for t in tasks}
        assert set(states.values()) == {"completed"}, await d.explain(tasks)
        down_s = time.monotonic() - down_at
        polls_down = len(d.trigger.results)
        attempts_down = len(d.failed_attempts())
        waits_down = d.waits()

        await endpoint.start(endpoint.server.port)  # up again, same port
        up_at = time.monotonic()
        expected = {t: await d.expected(t, "hook") for t in tasks}
        total = sum(len(seqs) for seqs in expected.values())
        await asyncio.to_thread(
            d.poll_until, lambda: len(endpoint.accepted) >= total and d.queue_empty()
        )
    finally:
        await endpoint.stop()

    for task_id in tasks:
        # Per task and config: the first copies arrive in the order of the task's events.
        assert [a.seq for a in endpoint.for_task(task_id)] == expected[task_id]
        assert await d.dead_letters(task_id) == []
    assert endpoint.duplicates == [] and endpoint.rejected == []
    attempts = d.failed_attempts()
    assert attempts and all("connection failed" in reason for _, _, reason, _ in attempts)
    # Full jitter under min(max, base * 2^(n-1)), sent as whole DelaySeconds, rounded up.
    assert all(0 <= delay <= min(2.0, 2 ** (n - 1)) for _, n, _, delay in attempts)
    # Planned retries are new SQS messages: no record failed, nothing reached the job DLQ.
    assert no_sqs_failures(d.trigger)
    assert d.dead_letter_queue() == []
    after_up = sorted(a.at - up_at for a in endpoint.accepted)
    gaps = []
    for task_id in tasks:
        times = [a.at for a in endpoint.for_task(task_id)]
        gaps += [later - earlier for earlier, later in itertools.pairwise(times)]
    figures(
        "receiver down for a while, then up",
        settings="notify on all events, back-off base 1 s, cap 2 s, 20 attempts, timeout 2 s",
        outage=f"{down_s:.1f} s (until each task's first notification failed {down_attempts} "
        f"times); 2 tasks x {len(expected[tasks[0]])} notifications sent into it",
        tasks=f"both completed during the outage; TaskDuration {spread(d.metric('TaskDuration'))}",
        sqs_polls_during_the_outage=polls_down,
        failed_attempts_during_the_outage=f"{attempts_down} (the head of each task's line)",
        failed_attempts_per_notification=dict(Counter(Counter(a[0] for a in attempts).values())),
        waiting_notifications_sent_again=f"{waits_down} during the outage, {d.waits()} in all",
        delays_drawn=", ".join(f"{a[3]:.2f}" for a in attempts),
        first_delivery_after_up=f"{after_up[0]:.2f} s",
        all_delivered_after_up=f"{after_up[-1]:.2f} s ({total} notifications)",
        gap_between_notifications_of_one_task=spread(gaps),
        duplicates=len(endpoint.duplicates),
        dead_letters="0 (notifier), 0 (SQS DLQ)",
    )


# --- 2. slow -----------------------------------------------------------------------------------


async def test_a_slow_receiver_times_out_and_is_retried_one_just_under_is_not(
    deploy: Callable[..., Deployment],
) -> None:
    timeout_s, over_s, under_s = 2.0, 3.0, 1.0
    d = deploy(A2A_PUSH_TIMEOUT_S=f"{timeout_s:g}")
    copies: Counter[str] = Counter()

    def behaviour(request: Received) -> Reply:
        copies[str(request.notification_id)] += 1
        if request.path == "/under":
            return Reply(200, delay_s=under_s)
        # The first copy is taken in but answered after the timeout; later ones at once.
        return Reply(200, delay_s=over_s if copies[str(request.notification_id)] == 1 else 0)

    endpoint = await DedupingEndpoint(await d.jwks(), behaviour).start()
    try:
        over = await d.send("slow", {"url": endpoint.url("/over")})
        under = await d.send("slow", {"url": endpoint.url("/under")})
        await asyncio.to_thread(
            d.poll_until, lambda: len(endpoint.accepted) == 2 and d.queue_empty()
        )
    finally:
        await endpoint.stop()

    over_requests = endpoint.server.notifications("/over")
    assert len(endpoint.server.notifications("/under")) == 1, "answered in time: one attempt"
    assert len(over_requests) == 2, "answered too late: retried once"
    assert over_requests[0].notification_id == over_requests[1].notification_id
    assert [a.task_id for a in endpoint.duplicates] == [over]
    assert {a.task_id for a in endpoint.accepted} == {over, under}
    [(_, attempt, reason, delay)] = d.failed_attempts()
    assert attempt == 1 and reason == f"no complete response within {timeout_s:g} s"
    assert await d.dead_letters(over) == [] and await d.dead_letters(under) == []
    assert no_sqs_failures(d.trigger)
    durations = sorted(d.metric("WebhookAttemptDuration"))
    figures(
        "slow receiver",
        settings=f"A2A_PUSH_TIMEOUT_S={timeout_s:g}; receivers answer after {over_s:g} s "
        f"(first copy) or {under_s:g} s",
        over_the_timeout=f"1 notification, 2 requests (retry after {delay:.2f} s drawn, "
        f"{math.ceil(delay)} s as DelaySeconds), 1 duplicate at the receiver",
        just_under="1 notification, 1 request, no duplicate",
        attempt_durations_from_EMF=", ".join(f"{v:.3f} s" for v in durations),
    )


async def test_a_delivery_held_by_its_receiver_does_not_hold_up_a_turn_in_the_same_batch(
    deploy: Callable[..., Deployment],
) -> None:
    d = deploy(A2A_PUSH_TIMEOUT_S="3")
    other: list[str] = []
    held: dict[str, Any] = {}

    async def hold_until_the_other_task_completes(request: Received) -> Reply:
        # Answer only once the other task's turn, in the same SQS batch, has completed: if the
        # worker ran the batch's records one after another, that could not happen before the
        # attempt timed out, and the notification would be retried.
        started = time.monotonic()
        while time.monotonic() - started < 10:
            if other and await d.state(other[0]) == "completed":
                held["seconds"] = time.monotonic() - started
                break
            await asyncio.sleep(0.05)
        return Reply(200)

    endpoint = await DedupingEndpoint(await d.jwks(), hold_until_the_other_task_completes).start()
    try:
        pushed = await d.send("held", {"url": endpoint.url()})
        # Its turn runs; its notification's job is queued.
        await asyncio.to_thread(d.poll_until, lambda: asyncio.run(d.state(pushed)) == "completed")
        other.append(await d.send("meanwhile"))
        batch = await asyncio.to_thread(d.trigger.poll)
        await asyncio.to_thread(d.poll_until, d.queue_empty)
    finally:
        await endpoint.stop()

    assert batch.received == 2, "the webhook job and the other task's turn came in one batch"
    assert "seconds" in held, "the other task completed while the delivery was held"
    assert [a.task_id for a in endpoint.accepted] == [pushed]
    assert len(endpoint.server.notifications()) == 1, "delivered on its first attempt"
    assert d.failed_attempts() == []
    assert await d.state(other[0]) == "completed"
    figures(
        "a delivery held open next to a turn in one batch",
        settings="A2A_PUSH_TIMEOUT_S=3; the receiver holds the request until the other "
        "task is completed",
        batch="2 records (the webhook job, the other task's turn), run concurrently",
        delivery_held_for=f"{held['seconds']:.2f} s, while the other task's turn completed",
        result="delivered on the first attempt; the turn was not held up",
    )


# --- 3. always failing -------------------------------------------------------------------------


async def test_an_always_failing_receiver_is_dead_lettered_and_the_others_still_flow(
    deploy: Callable[..., Deployment],
) -> None:
    attempts = 3
    d = deploy(A2A_PUSH_MAX_ATTEMPTS=str(attempts), A2A_PUSH_BACKOFF_MAX_S="1")
    failing = {"e500": 500, "e401": 401, "e410": 410}

    def behaviour(request: Received) -> Reply:
        status = failing.get(request.path.strip("/"), 200)
        return Reply(status, body=b"nope" if status != 200 else b"ok")

    secrets = {
        "healthy": "tok-healthy-s3cr3t",
        "e500": "tok-500-s3cr3t",
        "basic": "receiver-user:pa55-s3cr3t",
        "bearer": "bearer-cred-s3cr3t",
        "query": "query-s3cr3t",
    }
    endpoint = await DedupingEndpoint(
        await d.jwks(), behaviour, tokens={"/healthy": secrets["healthy"]}
    ).start()
    configs: dict[str, dict[str, Any]] = {
        "e500": {
            "url": endpoint.url("/e500"),
            "id": "e500",
            "token": secrets["e500"],
            "authentication": {"schemes": ["Basic"], "credentials": secrets["basic"]},
        },
        "e401": {
            "url": endpoint.url("/e401"),
            "id": "e401",
            "authentication": {"schemes": ["Bearer"], "credentials": secrets["bearer"]},
        },
        "e410": {"url": endpoint.url("/e410") + f"?key={secrets['query']}", "id": "e410"},
    }
    healthy = {"url": endpoint.url("/healthy"), "id": "healthy", "token": secrets["healthy"]}
    try:
        task_id = await d.send("fails elsewhere", healthy)
        # Before any worker ran: the task's turn has not started, so every config is due the
        # `completed` notification.
        for config in configs.values():
            params = {"taskId": task_id, "pushNotificationConfig": config}
            await d.call("tasks/pushNotificationConfig/set", params)

        def settled() -> bool:
            letters = asyncio.run(d.dead_letters(task_id))
            return len(letters) == len(failing) and bool(endpoint.accepted) and d.queue_empty()

        await asyncio.to_thread(d.poll_until, settled)
        task = await d.call("tasks/get", {"id": task_id})
    finally:
        await endpoint.stop()

    assert task["status"]["state"] == "completed"
    assert task["artifacts"][0]["parts"][0]["text"] == "done: fails elsewhere"
    [accepted] = endpoint.accepted
    assert accepted.path == "/healthy" and accepted.state == "completed"
    letters = {letter.config_id: letter for letter in await d.dead_letters(task_id)}
    assert set(letters) == set(failing)
    for config_id, status in failing.items():
        requests = endpoint.server.notifications(f"/{config_id}")
        assert len({r.notification_id for r in requests}) == 1
        letter = letters[config_id]
        assert letter.seq == accepted.seq
        if status >= 500:
            assert len(requests) == letter.attempts == attempts
            assert letter.reason == (
                f"gave up after {attempts} attempts; last error: HTTP 500 (4 bytes of body)"
            )
        else:  # a 4xx is not retried
            assert len(requests) == letter.attempts == 1
            assert letter.reason == f"HTTP {status} (4 bytes of body)"
    # Webhook failures never fail an SQS record: the job DLQ stays empty.
    assert no_sqs_failures(d.trigger)
    assert d.dead_letter_queue() == []

    # One WARNING per dead letter, no ERROR, and no secret in either function's logs.
    lines = d.log_lines()
    warnings = [line for line in lines if "dead-lettered" in str(line.get("message"))]
    assert len(warnings) == len(failing)
    assert all(line["level"] == "WARNING" and line.get("task_id") == task_id for line in warnings)
    for letter in letters.values():
        [line] = [w for w in warnings if letter.notification_id in w["message"]]
        assert loggable_url(letter.url) in line["message"] and letter.reason in line["message"]
    assert [line for line in lines if line.get("level") == "ERROR"] == []
    jwts = {
        r.headers.get(h, "").split(" ", 1)[-1]
        for r in endpoint.server.requests
        for h in ("authorization", "x-a2a-notification-jwt")
    }
    basic = base64.b64encode(secrets["basic"].encode()).decode()
    searched = {*secrets.values(), basic, *(j for j in jwts if j)}
    text = d.worker.logs() + d.http.logs()
    assert [s for s in searched if s in text] == []

    e500 = endpoint.server.notifications("/e500")
    figures(
        "receivers always failing, next to a healthy one on the same task",
        settings=f"{attempts} attempts, back-off base 1 s, cap 1 s (SQS delays of 1 s)",
        healthy="delivered once",
        HTTP_500=f"{len(e500)} requests, then dead-lettered "
        f"{e500[-1].at - e500[0].at:.2f} s after the first",
        HTTP_401_and_410="1 request each, dead-lettered at once",
        sqs="no record failed, job DLQ empty",
        logs=f"{len(warnings)} WARNING lines, 0 ERROR; {len(searched)} secret values searched, "
        "none found",
        task="completed, its answer intact",
    )
