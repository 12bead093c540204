"""End to end under the real Lambda runtime client: HTTP function -> SQS -> worker -> webhook.

Both functions run as `python -m awslambdaric tests.aws.runtime.functions.<handler>` against a
local Runtime API; the queue is a moto server; the test plays Lambda's SQS event source mapping
(receive a batch, invoke the worker, delete what succeeded) and the webhook receiver.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.models import TaskStatusUpdateEvent
from a2a_serverless.push import WebhookVerifier
from a2a_serverless.store import open_store
from a2a_serverless.store.base import TaskEvent
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import SqsTrigger, http_api_event, response_json, sqs_event
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.integration.jsonrpc_agents import user_message
from tests.push.webhook_server import WebhookServer

pytestmark = pytest.mark.aws

# The worker: a 4 s function, 1 s margin (the agent's budget defaults to 3 s), a 5 s lease
# (longer than the function's timeout), visibility 4 s (not shorter than the timeout).
WORKER_TIMING = {
    "A2A_LAMBDA_TIMEOUT_S": "4",
    "A2A_LAMBDA_TIMEOUT_MARGIN_S": "1",
    "A2A_WORKER_LEASE_S": "5",
    "A2A_PUSH_TIMEOUT_S": "2",
    "A2A_SQS_VISIBILITY_TIMEOUT_S": "4",
}
HTTP_TIMING = {"A2A_LAMBDA_TIMEOUT_S": "10", "A2A_BLOCKING_TIMEOUT_S": "5"}


def rpc(method: str, params: Any, request_id: Any = 1) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return http_api_event("POST", "/", body)


def call(function: LambdaFunction, method: str, params: Any) -> Any:
    response = function.invoke(rpc(method, params))
    assert response["statusCode"] == 200, response
    payload = response_json(response)
    assert "result" in payload, payload
    return payload["result"]


def status_states(events: list[TaskEvent]) -> list[str]:
    return [
        e.payload.status.state.value for e in events if isinstance(e.payload, TaskStatusUpdateEvent)
    ]


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


async def read_events(store_url: str, task_id: str) -> list[TaskEvent]:
    store = open_store(store_url)
    try:
        return await store.read_events(task_id)
    finally:
        await store.close()


class Deployment:
    """The two functions of one deployment and the queue between them."""

    def __init__(
        self,
        make_function: Callable[..., LambdaFunction],
        function_env: dict[str, str],
        queues: Queues,
        sqs: Any,
        *,
        worker_handler: str = "worker_handler",
        worker_timing: dict[str, str] | None = None,
    ) -> None:
        env = {
            **function_env,
            "A2A_SQS_QUEUE_URL": queues.url,
            "A2A_SQS_MAX_RECEIVE_COUNT": str(queues.max_receive_count),
        }
        self.env = env
        self.http = make_function("http_handler", {**env, **HTTP_TIMING}, timeout_s=10, name="http")
        timing = {**WORKER_TIMING, **(worker_timing or {})}
        self.worker = make_function(
            worker_handler,
            {**env, **timing},
            timeout_s=float(timing["A2A_LAMBDA_TIMEOUT_S"]),
            name="worker",
        )
        self.trigger = SqsTrigger(sqs, queues.url, self.worker)


@pytest.fixture
def deployment(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
) -> Deployment:
    return Deployment(make_function, function_env, make_queues(), sqs)


async def test_a_non_blocking_send_runs_in_the_worker_and_notifies(
    deployment: Deployment, store_url: str, runs_dir: Path
) -> None:
    receiver = await WebhookServer().start()
    try:
        params = {
            "message": user_message("hello"),
            "configuration": {
                "blocking": False,
                "pushNotificationConfig": {"url": receiver.url(), "token": "t0k3n"},
            },
        }
        task = await asyncio.to_thread(call, deployment.http, "message/send", params)
        assert task["status"]["state"] == "submitted"
        task_id = task["id"]

        await asyncio.to_thread(
            deployment.trigger.run_until, lambda: bool(receiver.notifications()), timeout_s=60
        )
        (notification,) = await receiver.wait_for(1)

        # The webhook is signed with the key the HTTP function publishes.
        jwks = await asyncio.to_thread(
            deployment.http.invoke, http_api_event("GET", "/.well-known/jwks.json")
        )
        verifier = WebhookVerifier(audience=receiver.url(), jwks=response_json(jwks), token="t0k3n")
        verified = await verifier.verify(notification.headers, notification.body)
        assert verified.task["id"] == task_id
        assert verified.task["status"]["state"] == "completed"

        fetched = await asyncio.to_thread(call, deployment.http, "tasks/get", {"id": task_id})
        assert fetched["status"]["state"] == "completed"
        assert fetched["artifacts"][0]["parts"][0]["text"] == "done: hello"
        assert (runs_dir / task_id).read_text().count("run") == 1
        events = await read_events(store_url, task_id)
        assert status_states(events).count("completed") == 1

        # JSON logs carry the Lambda request id and the task's id; EMF lines carry metrics.
        worker_records = json_lines(deployment.worker.logs())
        assert any(
            r.get("task_id") == task_id and r.get("function_request_id") for r in worker_records
        ), worker_records
        worker_metrics = {name for r in worker_records if "_aws" in r for name in r}
        assert {"TasksCompleted", "TaskDuration", "WebhooksDelivered"} <= worker_metrics
        http_metrics = {
            name for r in json_lines(deployment.http.logs()) if "_aws" in r for name in r
        }
        assert "TasksStarted" in http_metrics
    finally:
        await receiver.stop()


async def test_a2a_v10_through_the_lambda_functions_on_the_same_tasks(
    deployment: Deployment, store_url: str
) -> None:
    """A v1.0 client: SendMessage (return at once, a push config) -> SQS -> worker -> a v1.0
    webhook body; then GetTask over v1.0 and tasks/get over v0.3 read the same task."""
    receiver = await WebhookServer().start()
    v10 = {"A2A-Version": "1.0"}

    def call_v10(method: str, params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        response = deployment.http.invoke(http_api_event("POST", "/", body, v10))
        assert response["statusCode"] == 200, response
        payload = response_json(response)
        assert "result" in payload, payload
        return payload["result"]

    try:
        message = {"messageId": "v10-m1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}
        config = {
            "returnImmediately": True,
            "taskPushNotificationConfig": {"url": receiver.url(), "token": "t0k3n"},
        }
        sent = await asyncio.to_thread(
            call_v10, "SendMessage", {"message": message, "configuration": config}
        )
        task_id = sent["task"]["id"]
        assert sent["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"

        await asyncio.to_thread(
            deployment.trigger.run_until, lambda: bool(receiver.notifications()), timeout_s=60
        )
        (notification,) = await receiver.wait_for(1)
        assert notification.headers["content-type"] == "application/a2a+json"
        jwks = await asyncio.to_thread(
            deployment.http.invoke, http_api_event("GET", "/.well-known/jwks.json")
        )
        verifier = WebhookVerifier(audience=receiver.url(), jwks=response_json(jwks), token="t0k3n")
        verified = await verifier.verify(notification.headers, notification.body)
        assert verified.task["id"] == task_id
        assert verified.task["status"]["state"] == "TASK_STATE_COMPLETED"

        got = await asyncio.to_thread(call_v10, "GetTask", {"id": task_id})
        assert got["status"]["state"] == "TASK_STATE_COMPLETED"
        assert got["artifacts"][0]["parts"] == [{"text": "done: hello"}]
        listed = await asyncio.to_thread(call_v10, "ListTasks", {"contextId": got["contextId"]})
        assert [t["id"] for t in listed["tasks"]] == [task_id]
        v03 = await asyncio.to_thread(call, deployment.http, "tasks/get", {"id": task_id})
        assert v03["status"]["state"] == "completed"
        assert v03["history"][0]["messageId"] == "v10-m1"
    finally:
        await receiver.stop()


async def test_a_worker_that_dies_mid_turn_is_taken_over_and_the_task_completes_once(
    deployment: Deployment, store_url: str, runs_dir: Path
) -> None:
    params = {"message": user_message("crash once"), "configuration": {"blocking": False}}
    task = await asyncio.to_thread(call, deployment.http, "message/send", params)
    task_id = task["id"]

    def completed() -> bool:
        return "completed" in status_states(asyncio.run(read_events(store_url, task_id)))

    await asyncio.to_thread(deployment.trigger.run_until, completed, timeout_s=60)

    polls = deployment.trigger.results
    assert polls[0].crashed, "the first delivery's worker died"
    assert deployment.worker.starts == 2, "Lambda started a new environment after the crash"
    events = await read_events(store_url, task_id)
    states = status_states(events)
    # One completed event, last; each run of the agent logged its own working events (the
    # turn starting, then its progress message): the dead worker's and the new one's.
    assert states.count("completed") == 1
    assert states == ["submitted"] + ["working"] * 4 + ["completed"]
    # The answer was streamed once, by the second run: after every working event.
    answer = [e.seq for e in events if not isinstance(e.payload, TaskStatusUpdateEvent)]
    last_working = max(e.seq for e in events if e.seq not in answer and e.seq < events[-1].seq)
    assert answer and min(answer) > last_working
    # The agent ran twice (the design: a taken-over turn runs again from its start; only the
    # writes are exactly once), and the takeover came after the lease, not while it was held.
    assert (runs_dir / task_id).read_text().count("run") == 2
    fetched = await asyncio.to_thread(call, deployment.http, "tasks/get", {"id": task_id})
    assert fetched["status"]["state"] == "completed"
    assert fetched["artifacts"][0]["parts"][0]["text"] == "done: crash once"
    assert len(fetched["artifacts"]) == 1


async def test_the_same_sqs_message_delivered_twice_runs_the_turn_once(
    deployment: Deployment, store_url: str, runs_dir: Path, sqs: Any
) -> None:
    params = {"message": user_message("twice"), "configuration": {"blocking": False}}
    task = await asyncio.to_thread(call, deployment.http, "message/send", params)
    task_id = task["id"]
    received = sqs.receive_message(
        QueueUrl=deployment.trigger.queue_url,
        AttributeNames=["All"],
        MessageAttributeNames=["All"],
        WaitTimeSeconds=1,
    )["Messages"]
    assert len(received) == 1
    event = sqs_event(received, deployment.trigger.queue_arn)
    first = await asyncio.to_thread(deployment.worker.invoke, event)
    second = await asyncio.to_thread(deployment.worker.invoke, event)
    assert first == {"batchItemFailures": []}
    assert second == {"batchItemFailures": []}, "the duplicate is dropped, not failed"

    assert (runs_dir / task_id).read_text().count("run") == 1
    states = status_states(await read_events(store_url, task_id))
    assert states == ["submitted", "working", "working", "completed"]


async def test_a_job_that_fails_every_time_ends_in_the_dlq_and_fails_its_task(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    store_url: str,
) -> None:
    queues = make_queues(max_receive_count=2)
    deployment = Deployment(
        make_function, function_env, queues, sqs, worker_handler="poison_worker_handler"
    )
    params = {"message": user_message("poison"), "configuration": {"blocking": False}}
    task = await asyncio.to_thread(call, deployment.http, "message/send", params)
    task_id = task["id"]

    def in_dlq() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = sqs.receive_message(
            QueueUrl=queues.dlq_url, MessageAttributeNames=["All"], VisibilityTimeout=0
        ).get("Messages", [])
        return messages

    await asyncio.to_thread(deployment.trigger.run_until, lambda: bool(in_dlq()), timeout_s=60)

    polls = deployment.trigger.results
    assert len(polls) == 2 and all(p.failed for p in polls), "failed on each of 2 deliveries"
    (dead,) = in_dlq()
    assert dead["MessageAttributes"]["taskId"]["StringValue"] == task_id
    assert dead["MessageAttributes"]["kind"]["StringValue"] == "run-agent"
    fetched = await asyncio.to_thread(call, deployment.http, "tasks/get", {"id": task_id})
    assert fetched["status"]["state"] == "failed"
    reason = fetched["status"]["message"]["parts"][0]["text"]
    assert "failed on 2 deliveries" in reason and "dead-letter queue" in reason
