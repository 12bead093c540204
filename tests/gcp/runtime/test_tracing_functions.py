"""Trace context across Pub/Sub and Cloud Tasks with the emulators and real functions-framework
servers: the HTTP function's request, its publish, the worker's turn, the Firestore calls, the
webhook job through Cloud Tasks and its delivery are spans of the client's trace (A2A_OTEL=true;
each function's process exports its spans to a file, tests/support/spans.py), and the worker's
log lines name the trace and the span they were written in."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.push.webhook_server import WebhookServer
from tests.support.spans import SPANS_FILE_ENV, by_kind, read_spans

from .conftest import Deployment, deploy

pytestmark = pytest.mark.gcp

TRACE_ID = "5b8aa5a2d2c872e8321cf37308d69df2"
CLIENT_SPAN = "051581bf3cb55c13"
TRACEPARENT = f"00-{TRACE_ID}-{CLIENT_SPAN}-01"
TIMEOUT_S = 60


@pytest.fixture(scope="module")
def spans_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spans") / "spans.jsonl"


@pytest.fixture(scope="module")
def traced_deployment(
    pubsub_emulator: str,
    cloud_tasks_emulator: str,
    firestore_emulator: str,
    tmp_path_factory: pytest.TempPathFactory,
    spans_file: Path,
) -> Iterator[Deployment]:
    overrides = {"A2A_OTEL": "true", SPANS_FILE_ENV: str(spans_file)}
    with deploy(cloud_tasks_emulator, tmp_path_factory.mktemp("traced"), overrides) as deployed:
        yield deployed


def wait_for_spans(path: Path, done: Any) -> list[dict[str, Any]]:
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        spans = read_spans(path)
        if done(spans):
            return spans
        assert time.monotonic() < deadline, f"spans incomplete: {[s['name'] for s in spans]}"
        time.sleep(0.1)


def complete(spans: list[dict[str, Any]]) -> bool:
    """The delivery's span and both jobs' (each process ends its own spans when it is done)."""
    ended = {s["attributes"].get("a2a.job.kind") for s in spans if s["trace_id"] == TRACE_ID} | {
        "POST" for s in spans if s["kind"] == "CLIENT" and "http.request.method" in s["attributes"]
    }
    return {"run-agent", "deliver-webhook", "POST"} <= ended and sum(
        1 for s in spans if s["kind"] == "CONSUMER" and s["trace_id"] == TRACE_ID
    ) >= 2


async def test_one_trace_from_the_request_through_pubsub_and_cloud_tasks_to_the_webhook(
    traced_deployment: Deployment, spans_file: Path
) -> None:
    deployment = traced_deployment
    receiver = await WebhookServer().start()
    try:
        params = {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": uuid.uuid4().hex,
                "parts": [{"kind": "text", "text": "hello"}],
            },
            "configuration": {"blocking": False, "pushNotificationConfig": {"url": receiver.url()}},
        }
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
        async with httpx.AsyncClient(timeout=30) as client:
            reply = await client.post(
                deployment.http.url + "/", json=body, headers={"traceparent": TRACEPARENT}
            )
        task_id = reply.json()["result"]["id"]
        [notification] = await receiver.wait_for(1, timeout=TIMEOUT_S)
    finally:
        await receiver.stop()
    spans = wait_for_spans(spans_file, complete)
    mine = [s for s in spans if s["trace_id"] == TRACE_ID]
    # Spans of this request's trace only (the module's deployment may serve other tests).
    assert {s["pid"] for s in mine} >= {s["pid"] for s in spans if s["kind"] == "SERVER"}

    [server] = [s for s in by_kind(mine, "SERVER") if s["name"] == "message/send"]
    assert server["parent_id"] == CLIENT_SPAN
    assert server["attributes"]["rpc.method"] == "message/send"
    assert server["attributes"]["http.response.status_code"] == 200

    producers = {s["attributes"]["a2a.job.kind"]: s for s in by_kind(mine, "PRODUCER")}
    consumers = {s["attributes"]["a2a.job.kind"]: s for s in by_kind(mine, "CONSUMER")}
    topic = deployment.topic.rsplit("/", 1)[-1]
    publish = producers["run-agent"]
    assert publish["parent_id"] == server["span_id"]
    assert publish["name"] == f"send {topic}"
    assert publish["attributes"]["messaging.system"] == "gcp_pubsub"
    assert publish["attributes"]["messaging.operation.type"] == "send"
    assert publish["attributes"]["messaging.destination.name"] == topic
    message_id = publish["attributes"]["messaging.message.id"]

    turn = consumers["run-agent"]
    assert turn["pid"] != server["pid"]
    assert turn["parent_id"] == publish["span_id"]
    assert turn["links"] == [{"trace_id": TRACE_ID, "span_id": publish["span_id"]}]
    assert turn["attributes"]["messaging.system"] == "gcp_pubsub"
    assert turn["attributes"]["messaging.operation.type"] == "process"
    assert turn["attributes"]["messaging.message.id"] == message_id
    assert turn["attributes"]["a2a.task.id"] == task_id

    queue = deployment.queue.rsplit("/", 1)[-1]
    schedule = producers["deliver-webhook"]
    # Queued by the turn, from within the agent's run (a span of the turn).
    [agent_run] = [s for s in by_kind(mine, "INTERNAL") if s["name"].startswith("invoke_agent ")]
    assert agent_run["parent_id"] == turn["span_id"]
    assert agent_run["attributes"]["a2a.task.id"] == task_id
    assert schedule["parent_id"] == agent_run["span_id"]
    assert schedule["attributes"]["messaging.system"] == "gcp_cloud_tasks"
    assert schedule["attributes"]["messaging.destination.name"] == queue
    delivery = consumers["deliver-webhook"]
    assert delivery["parent_id"] == schedule["span_id"]
    assert delivery["attributes"]["messaging.system"] == "gcp_cloud_tasks"
    assert delivery["attributes"]["messaging.destination.name"] == queue
    assert (
        delivery["attributes"]["messaging.message.id"]
        == (schedule["attributes"]["messaging.message.id"])
    )

    [post] = [s for s in by_kind(mine, "CLIENT") if "http.request.method" in s["attributes"]]
    assert post["parent_id"] == delivery["span_id"]
    assert post["attributes"]["http.response.status_code"] == 200
    assert notification.headers["traceparent"] == f"00-{TRACE_ID}-{post['span_id']}-01"

    firestore = [s for s in mine if s["attributes"].get("db.system.name") == "gcp.firestore"]
    assert {s["kind"] for s in firestore} == {"CLIENT"}
    assert {"create_task", "update_task"} <= {
        s["attributes"]["db.operation.name"] for s in firestore
    }

    # Cloud Trace correlation: the worker's lines for the task are in the client's trace, each
    # naming the span it was written in.
    lines = [
        line
        for line in deployment.worker.log_lines()
        if line.get("logging.googleapis.com/labels", {}).get("task_id") == task_id
    ]
    assert lines
    project = deployment.env["A2A_GCP_PROJECT"]
    assert {line["logging.googleapis.com/trace"] for line in lines} == {
        f"projects/{project}/traces/{TRACE_ID}"
    }
    worker_spans = {s["span_id"] for s in mine if s["pid"] == turn["pid"]}
    assert {line["logging.googleapis.com/spanId"] for line in lines} <= worker_spans
