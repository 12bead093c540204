"""The whole Google Cloud path, with real emulators and real functions-framework servers.

message/send (non-blocking) -> the HTTP function -> Pub/Sub push -> the worker function ->
the Firestore store -> a webhook through Cloud Tasks to a loopback receiver -> tasks/get.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from a2a_serverless.push import WebhookVerifier
from a2a_serverless.queue.base import Job, OtherJob, RunAgentJob, RunTurn, encode_job
from tests.push.webhook_server import Reply, WebhookServer

from .conftest import PUBSUB_MAX_DELIVERY_ATTEMPTS, TASKS_MAX_ATTEMPTS, Deployment

pytestmark = pytest.mark.gcp

TIMEOUT_S = 60.0


@asynccontextmanager
async def receiving(behaviour: Any = None) -> AsyncIterator[WebhookServer]:
    """A loopback webhook receiver for one test."""
    server = await WebhookServer(behaviour).start()
    try:
        yield server
    finally:
        await server.stop()


def message(text: str, task_id: str | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "messageId": uuid.uuid4().hex,
        "parts": [{"kind": "text", "text": text}],
    }
    if task_id is not None:
        msg["taskId"] = task_id
    return msg


async def rpc(
    client: httpx.AsyncClient,
    url: str,
    method: str,
    params: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": uuid.uuid4().hex[:8], "method": method, "params": params}
    response = await client.post(url, json=body, headers=headers)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    assert "error" not in data, data
    result: dict[str, Any] = data["result"]
    return result


async def wait_for_state(
    client: httpx.AsyncClient, url: str, task_id: str, state: str
) -> dict[str, Any]:
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        task = await rpc(client, url, "tasks/get", {"id": task_id})
        if task["status"]["state"] == state:
            return task
        if time.monotonic() > deadline:
            raise AssertionError(f"task {task_id} is {task['status']['state']}, not {state}")
        await asyncio.sleep(0.2)


def publish(deployment: Deployment, job: Job) -> None:
    from google.cloud import pubsub_v1

    pubsub_v1.PublisherClient().publish(deployment.topic, encode_job(job)).result()


def done_lines(deployment: Deployment, job: Job) -> list[dict[str, Any]]:
    """The worker's log lines saying it finished a delivery of `job`."""
    done = f"job {job.id} ({job.kind}) from pubsub done"
    return [line for line in deployment.worker.log_lines() if done in line["message"]]


def failure_help(deployment: Deployment) -> str:
    return f"worker log:\n{deployment.worker.tail()}\nHTTP function log:\n{deployment.http.tail()}"


async def test_non_blocking_send_runs_in_the_worker_and_notifies_the_webhook(
    deployment: Deployment,
) -> None:
    async with receiving() as receiver, httpx.AsyncClient(timeout=30) as client:
        url = deployment.http.url + "/"
        trace_id = uuid.uuid4().hex
        sent = await rpc(
            client,
            url,
            "message/send",
            {
                "message": message("hello"),
                "configuration": {
                    "blocking": False,
                    "pushNotificationConfig": {"url": receiver.url(), "token": "tok-1"},
                },
            },
            headers={"X-Cloud-Trace-Context": f"{trace_id}/1;o=1"},
        )
        assert sent["kind"] == "task"
        assert sent["status"]["state"] in ("submitted", "working", "completed")
        task_id = sent["id"]
        try:
            received = await receiver.wait_for(1, timeout=TIMEOUT_S)
        except AssertionError:
            pytest.fail(f"no webhook arrived\n{failure_help(deployment)}")
        task = await wait_for_state(client, url, task_id, "completed")

    assert task["artifacts"][0]["parts"][0]["text"] == "echo: hello"
    assert deployment.runs("hello") == 1
    # The webhook carried the completed task, signed with the key the HTTP function publishes.
    notification = received[0]
    assert notification.headers["x-a2a-notification-token"] == "tok-1"
    verifier = WebhookVerifier(
        jwks_url=deployment.http.url + "/.well-known/jwks.json", audience=receiver.url()
    )
    await verifier.verify(notification.headers, notification.body, token="tok-1")
    body = json.loads(notification.body)
    assert body["id"] == task_id and body["status"]["state"] == "completed"

    # The worker's log lines for this task are Cloud Logging JSON in the request's trace.
    lines = [
        line
        for line in deployment.worker.log_lines()
        if line.get("logging.googleapis.com/labels", {}).get("task_id") == task_id
    ]
    assert lines, failure_help(deployment)
    trace = f"projects/{deployment.env['A2A_GCP_PROJECT']}/traces/{trace_id}"
    assert {line["logging.googleapis.com/trace"] for line in lines} == {trace}
    for line in lines:
        assert line["severity"] in ("DEBUG", "INFO", "WARNING", "ERROR")
        assert line["time"].endswith("Z") and line["message"]


async def test_streaming_through_the_http_function(deployment: Deployment) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/stream",
        "params": {"message": message("streamed")},
    }
    events: list[dict[str, Any]] = []
    async with (
        httpx.AsyncClient(timeout=TIMEOUT_S) as client,
        client.stream("POST", deployment.http.url + "/", json=body) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:])["result"])
    assert events[0]["kind"] == "task"
    final = events[-1]
    assert final["kind"] == "status-update" and final["final"] is True
    assert final["status"]["state"] == "completed"
    artifacts = [e for e in events if e["kind"] == "artifact-update"]
    assert artifacts[0]["artifact"]["parts"][0]["text"] == "echo: streamed"


async def test_a2a_v10_through_the_functions_on_the_same_tasks(deployment: Deployment) -> None:
    """A v1.0 client through the HTTP function: SendMessage returning at once with a push config
    -> Pub/Sub -> the worker -> a v1.0 webhook body; a v1.0 stream; v0.3 reads the same task."""
    v10 = {"A2A-Version": "1.0"}
    url = deployment.http.url + "/"
    async with receiving() as receiver, httpx.AsyncClient(timeout=30) as client:
        v1_message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": "hi"}]}
        config = {
            "returnImmediately": True,
            "taskPushNotificationConfig": {"url": receiver.url(), "token": "tok-2"},
        }
        sent = await rpc(
            client, url, "SendMessage", {"message": v1_message, "configuration": config}, v10
        )
        task_id = sent["task"]["id"]
        try:
            received = await receiver.wait_for(1, timeout=TIMEOUT_S)
        except AssertionError:
            pytest.fail(f"no webhook arrived\n{failure_help(deployment)}")
        assert received[0].headers["content-type"] == "application/a2a+json"
        verifier = WebhookVerifier(
            jwks_url=deployment.http.url + "/.well-known/jwks.json", audience=receiver.url()
        )
        verified = await verifier.verify(received[0].headers, received[0].body, token="tok-2")
        assert verified.task["id"] == task_id
        got = await rpc(client, url, "GetTask", {"id": task_id}, v10)
        assert got["status"]["state"] == "TASK_STATE_COMPLETED"
        assert got["artifacts"][0]["parts"] == [{"text": "echo: hi"}]
        v03 = await wait_for_state(client, url, task_id, "completed")
        assert v03["history"][0]["messageId"] == v1_message["messageId"]

        body = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "SendStreamingMessage",
            "params": {"message": {**v1_message, "messageId": uuid.uuid4().hex}},
        }
        events: list[dict[str, Any]] = []
        async with client.stream("POST", url, json=body, headers=v10) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    events.append(json.loads(line[5:])["result"])
    assert list(events[0]) == ["task"]
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "final" not in events[-1]["statusUpdate"]


async def test_a_job_delivered_twice_runs_the_agent_once(deployment: Deployment) -> None:
    async with receiving() as receiver, httpx.AsyncClient(timeout=30) as client:
        url = deployment.http.url + "/"
        text = f"twice-{uuid.uuid4().hex[:6]}"
        msg = message(text)
        sent = await rpc(
            client,
            url,
            "message/send",
            {
                "message": msg,
                "configuration": {
                    "blocking": False,
                    "pushNotificationConfig": {"url": receiver.url()},
                },
            },
        )
        task_id = sent["id"]
        # The same job again, at once and after the turn: Pub/Sub delivers at least once.
        job = RunAgentJob(task_id=task_id, payload=RunTurn(msg["messageId"]))
        publish(deployment, job)
        publish(deployment, job)
        await wait_for_state(client, url, task_id, "completed")
        publish(deployment, job)
        await receiver.wait_for(1, timeout=TIMEOUT_S)
        # Wait until the worker has taken all three copies (and dropped the duplicates).
        deadline = time.monotonic() + TIMEOUT_S
        while len(done_lines(deployment, job)) < 3:
            assert time.monotonic() < deadline, failure_help(deployment)
            await asyncio.sleep(0.2)
        task = await rpc(client, url, "tasks/get", {"id": task_id})

    assert deployment.runs(text) == 1, failure_help(deployment)
    assert len(task["artifacts"]) == 1
    assert len(receiver.notifications()) == 1


async def test_a_poison_job_is_dead_lettered_and_its_task_fails(deployment: Deployment) -> None:
    async with httpx.AsyncClient(timeout=30) as client:
        url = deployment.http.url + "/"
        sent = await rpc(
            client,
            url,
            "message/send",
            {"message": message("crash"), "configuration": {"blocking": False}},
        )
        try:
            task = await wait_for_state(client, url, sent["id"], "failed")
        except AssertionError:
            pytest.fail(f"the task did not fail\n{failure_help(deployment)}")
    reason = task["status"]["message"]["parts"][0]["text"]
    # Redeliveries took the dead worker's turn over (and died again) until a bound was reached:
    # Pub/Sub's delivery attempts (its dead-letter topic), or — when a redelivery found the
    # dead worker's lease still held and was queued again after it on Cloud Tasks, which does
    # not spend a Pub/Sub attempt — the worker's own limit of starts of a turn.
    assert (
        "dead-lettered" in reason and f"{PUBSUB_MAX_DELIVERY_ATTEMPTS} delivery attempts" in reason
    ) or "its worker stopped 5 times" in reason, reason
    # (How the emulator counts a refused connection while gunicorn restarts its worker is its
    # own business, so no upper bound here: the task's failure shows the loop ended.)
    assert deployment.runs("crash") >= 2


async def test_webhook_back_off_goes_through_cloud_tasks(deployment: Deployment) -> None:
    failures = 2

    seen: list[Any] = []

    def behaviour(request: Any) -> Reply:
        seen.append(request)
        return Reply(status=503) if len(seen) <= failures else Reply(status=200)

    async with receiving(behaviour) as receiver, httpx.AsyncClient(timeout=30) as client:
        url = deployment.http.url + "/"
        sent = await rpc(
            client,
            url,
            "message/send",
            {
                "message": message("retry me"),
                "configuration": {
                    "blocking": False,
                    "pushNotificationConfig": {"url": receiver.url()},
                },
            },
        )
        received = await receiver.wait_for(failures + 1, timeout=TIMEOUT_S)

    # One notification, delivered on its third attempt: the same id every time.
    assert len({r.notification_id for r in received}) == 1
    assert json.loads(received[-1].body)["id"] == sent["id"]
    requeued = [
        line
        for line in deployment.worker.log_lines()
        if "queued again" in line["message"]
        and line.get("logging.googleapis.com/labels", {}).get("task_id") == sent["id"]
    ]
    assert len(requeued) >= failures, failure_help(deployment)


async def test_the_worker_refuses_callers_without_the_secret(deployment: Deployment) -> None:
    job = RunAgentJob(task_id="nope", payload=RunTurn("x"))
    async with httpx.AsyncClient(timeout=30) as client:
        missing = await client.post(deployment.worker.url + "/", content=encode_job(job).decode())
        wrong = await client.post(
            deployment.worker.url + "/?token=wrong",
            headers={"X-A2A-Worker-Secret": "wrong"},
            content=encode_job(job).decode(),
        )
    assert missing.status_code == 401
    assert wrong.status_code == 403


async def test_cloud_tasks_last_attempt_abandons_a_failing_job(deployment: Deployment) -> None:
    from google.cloud import tasks_v2

    from .conftest import _tasks_client

    job = OtherJob(kind="no-such-kind", task_id=f"t-{uuid.uuid4().hex[:8]}", payload={})
    client = _tasks_client(deployment.env["A2A_CLOUD_TASKS_EMULATOR_HOST"])
    request = tasks_v2.HttpRequest(
        url=deployment.worker.url + "/",
        http_method=tasks_v2.HttpMethod.POST,
        headers={"X-A2A-Worker-Secret": deployment.secret},
        body=encode_job(job),
    )
    client.create_task(parent=deployment.queue, task=tasks_v2.Task(http_request=request))

    def lines() -> list[str]:
        return [
            line["message"]
            for line in deployment.worker.log_lines()
            if job.id in line["message"] or job.task_id in line["message"]
        ]

    deadline = time.monotonic() + TIMEOUT_S
    while not any("abandoned" in message for message in lines()):
        if time.monotonic() > deadline:
            pytest.fail(f"the job was not abandoned\n{failure_help(deployment)}")
        await asyncio.sleep(0.2)
    failed = [m for m in lines() if "the queue will retry it" in m]
    last = [m for m in lines() if "failed on its last attempt" in m]
    assert len(failed) == TASKS_MAX_ATTEMPTS - 1 and len(last) == 1, lines()
    assert "unknown job kind" in last[0]


async def test_an_eventarc_cloudevent_reaches_the_worker(deployment: Deployment) -> None:
    async with httpx.AsyncClient(timeout=30) as client:
        url = deployment.http.url + "/"
        msg = message("via eventarc")
        sent = await rpc(client, url, "message/send", {"message": msg})
        assert sent["status"]["state"] == "completed"
        # The same job as Eventarc would deliver it: a binary-mode CloudEvent.
        job = RunAgentJob(task_id=sent["id"], payload=RunTurn(msg["messageId"]))
        data = base64.b64encode(encode_job(job)).decode()
        response = await client.post(
            deployment.worker.url + "/",
            headers={
                "ce-specversion": "1.0",
                "ce-type": "google.cloud.pubsub.topic.v1.messagePublished",
                "ce-source": f"//pubsub.googleapis.com/{deployment.topic}",
                "ce-id": uuid.uuid4().hex,
                "content-type": "application/json",
                "X-A2A-Worker-Secret": deployment.secret,
            },
            json={"message": {"data": data, "messageId": "1"}, "subscription": "eventarc"},
        )
    assert response.status_code == 204
    assert len(done_lines(deployment, job)) == 1
    assert deployment.runs("via eventarc") == 1
