"""Trace context across SQS under the real Lambda runtime client: the HTTP function's request,
its SendMessage, the worker's turn in another process, the DynamoDB Local calls and the webhook
are spans of the client's trace (A2A_OTEL=true; each function's process exports its spans to a
file, tests/support/spans.py), and the webhook's `traceparent` continues it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import http_api_event, response_json
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.aws.runtime.test_lambda_e2e import Deployment
from tests.integration.jsonrpc_agents import user_message
from tests.push.webhook_server import WebhookServer
from tests.support.spans import SPANS_FILE_ENV, by_kind, read_spans

pytestmark = pytest.mark.aws

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
CLIENT_SPAN = "b7ad6b7169203331"
TRACEPARENT = f"00-{TRACE_ID}-{CLIENT_SPAN}-01"


def message_send(webhook_url: str, *, traceparent: str | None) -> dict[str, Any]:
    params = {
        "message": user_message("hello"),
        "configuration": {"blocking": False, "pushNotificationConfig": {"url": webhook_url}},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
    headers = {"traceparent": traceparent} if traceparent else {}
    return http_api_event("POST", "/", body, headers)


async def run_one_turn(
    make_function: Callable[..., LambdaFunction],
    env: dict[str, str],
    queues: Queues,
    sqs: Any,
    traceparent: str | None,
) -> tuple[str, dict[str, str]]:
    deployment = Deployment(make_function, env, queues, sqs)  # test_lambda_e2e's
    receiver = await WebhookServer().start()
    try:
        event = message_send(receiver.url(), traceparent=traceparent)
        response = await asyncio.to_thread(deployment.http.invoke, event)
        task_id = response_json(response)["result"]["id"]
        await asyncio.to_thread(
            deployment.trigger.run_until, lambda: bool(receiver.notifications()), timeout_s=60
        )
        [notification] = await receiver.wait_for(1)
        return task_id, notification.headers
    finally:
        await receiver.stop()


async def test_one_trace_from_the_request_through_sqs_to_the_webhook(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    tmp_path: Path,
) -> None:
    spans_file = tmp_path / "spans.jsonl"
    env = {**function_env, "A2A_OTEL": "true", SPANS_FILE_ENV: str(spans_file)}
    queues = make_queues()
    task_id, headers = await run_one_turn(make_function, env, queues, sqs, TRACEPARENT)

    spans = read_spans(spans_file)
    # The worker's invocation exports its spans before it returns (tracing.flush()).
    assert {s["trace_id"] for s in spans} == {TRACE_ID}
    assert len({s["pid"] for s in spans}) == 2  # the HTTP function's and the worker's

    [server] = by_kind(spans, "SERVER")
    assert server["parent_id"] == CLIENT_SPAN
    assert server["name"] == "message/send"
    assert server["attributes"]["rpc.method"] == "message/send"
    assert server["attributes"]["http.request.method"] == "POST"
    assert server["attributes"]["http.response.status_code"] == 200

    producers = {s["attributes"]["a2a.job.kind"]: s for s in by_kind(spans, "PRODUCER")}
    consumers = {s["attributes"]["a2a.job.kind"]: s for s in by_kind(spans, "CONSUMER")}
    queue_name = queues.url.rsplit("/", 1)[-1]
    send = producers["run-agent"]
    assert send["pid"] == server["pid"] and send["parent_id"] == server["span_id"]
    assert send["name"] == f"send {queue_name}"
    assert send["attributes"]["messaging.system"] == "aws_sqs"
    assert send["attributes"]["messaging.operation.type"] == "send"
    assert send["attributes"]["messaging.destination.name"] == queue_name
    message_id = send["attributes"]["messaging.message.id"]

    turn = consumers["run-agent"]
    assert turn["pid"] != server["pid"]
    assert turn["name"] == f"process {queue_name}"
    assert turn["parent_id"] == send["span_id"]
    assert turn["links"] == [{"trace_id": TRACE_ID, "span_id": send["span_id"]}]
    assert turn["attributes"]["messaging.system"] == "aws_sqs"
    assert turn["attributes"]["messaging.operation.type"] == "process"
    assert turn["attributes"]["messaging.message.id"] == message_id
    assert turn["attributes"]["a2a.delivery.attempt"] == 1
    assert turn["attributes"]["a2a.task.id"] == task_id

    delivery = consumers["deliver-webhook"]
    assert delivery["parent_id"] == producers["deliver-webhook"]["span_id"]
    [post] = [s for s in by_kind(spans, "CLIENT") if "http.request.method" in s["attributes"]]
    assert post["parent_id"] == delivery["span_id"]
    assert post["attributes"]["http.response.status_code"] == 200
    assert headers["traceparent"] == f"00-{TRACE_ID}-{post['span_id']}-01"

    dynamodb = [s for s in spans if s["attributes"].get("db.system.name") == "aws.dynamodb"]
    assert {s["kind"] for s in dynamodb} == {"CLIENT"}
    table = function_env["A2A_STORE_URL"].split("://", 1)[1].split("?", 1)[0].strip("/")
    assert {s["attributes"]["db.collection.name"] for s in dynamodb} == {table}
    assert {"create_task", "update_task"} <= {
        s["attributes"]["db.operation.name"] for s in dynamodb
    }
    assert {s["pid"] for s in dynamodb} == {server["pid"], turn["pid"]}


async def test_without_spans_the_clients_traceparent_crosses_sqs(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    tmp_path: Path,
) -> None:
    spans_file = tmp_path / "spans.jsonl"
    env = {**function_env, SPANS_FILE_ENV: str(spans_file)}
    _, headers = await run_one_turn(make_function, env, make_queues(), sqs, TRACEPARENT)
    assert headers["traceparent"] == TRACEPARENT
    assert read_spans(spans_file) == []
