"""Trace context across the queue on the dev stack (the app, its embedded queue and worker, a
real webhook receiver): the client's `traceparent` reaches the webhook, and with A2A_OTEL the
request, the enqueue, the turn, the store calls and the delivery are spans of that one trace
(recorded by OpenTelemetry's in-memory exporter)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless import Context, agent, tracing
from tests.push.webhook_server import Received, Reply, WebhookServer
from tests.support.spans import by_kind, memory_exporter, recorded

ROOT = Path(__file__).resolve().parents[2]
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{CLIENT_SPAN}-01"
RUN = "run-agent"


@agent(name="Echo", description="Says back what it is told.")
def echo(ctx: Context) -> str:
    if ctx.text == "fail":
        raise RuntimeError("the agent broke")
    return f"echo: {ctx.text}"


def send_body(text: str, webhook_url: str) -> dict[str, Any]:
    message = {"role": "user", "messageId": f"m-{text}-{time.monotonic_ns()}", "parts": []}
    message["parts"] = [{"kind": "text", "text": text}]
    params = {
        "message": message,
        "configuration": {"blocking": False, "pushNotificationConfig": {"url": webhook_url}},
    }
    return {"jsonrpc": "2.0", "id": 7, "method": "message/send", "params": params}


@pytest.fixture
async def webhook() -> AsyncIterator[WebhookServer]:
    server = await WebhookServer().start()
    yield server
    await server.stop()


@pytest.fixture
def spans_on() -> Iterator[Any]:
    exporter = memory_exporter()
    exporter.clear()
    yield exporter
    tracing.disable()


async def wait_for_span(exporter: Any, kind: str, timeout_s: float = 10) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout_s
    while not by_kind(recorded(exporter), kind):
        assert time.monotonic() < deadline, f"no {kind} span within {timeout_s} s"
        await asyncio.sleep(0.02)
    return recorded(exporter)


async def wait_for_named(exporter: Any, name: str, timeout_s: float = 10) -> list[dict[str, Any]]:
    """The spans recorded once a span called `name` and its turn's CONSUMER span have ended
    (both end just after the reply of a blocking send)."""
    deadline = time.monotonic() + timeout_s
    while not (
        any(s["name"] == name for s in recorded(exporter))
        and any(
            s["attributes"].get("a2a.job.kind") == RUN
            for s in by_kind(recorded(exporter), "CONSUMER")
        )
    ):
        assert time.monotonic() < deadline, f"no span {name!r} within {timeout_s} s"
        await asyncio.sleep(0.02)
    return recorded(exporter)


async def test_without_spans_the_clients_traceparent_reaches_the_webhook(
    make_client: Any, webhook: WebhookServer
) -> None:
    assert not tracing.enabled()
    async with make_client(echo) as (client, _app):
        reply = await client.post(
            "/",
            json=send_body("hi", webhook.url()),
            headers={"traceparent": TRACEPARENT, "tracestate": "vendor=abc"},
        )
        assert reply.json()["result"]["id"]
        [notification] = await webhook.wait_for(1, timeout=10)
    # Nothing of ours made a span: the context is passed on as it came.
    assert notification.headers["traceparent"] == TRACEPARENT
    assert notification.headers["tracestate"] == "vendor=abc"


async def test_an_invalid_traceparent_is_ignored(make_client: Any, webhook: WebhookServer) -> None:
    async with make_client(echo) as (client, _app):
        reply = await client.post(
            "/",
            json=send_body("hi", webhook.url()),
            headers={"traceparent": f"00-{'0' * 32}-{CLIENT_SPAN}-01"},
        )
        assert reply.status_code == 200 and reply.json()["result"]["id"]
        [notification] = await webhook.wait_for(1, timeout=10)
    assert "traceparent" not in notification.headers


async def test_spans_of_one_trace_from_the_request_to_the_webhook(
    make_client: Any, webhook: WebhookServer, spans_on: Any
) -> None:
    async with make_client(echo, otel=True) as (client, _app):
        reply = await client.post(
            "/", json=send_body("hi", webhook.url()), headers={"traceparent": TRACEPARENT}
        )
        task_id = reply.json()["result"]["id"]
        [notification] = await webhook.wait_for(1, timeout=10)
        spans = await wait_for_span(spans_on, "CLIENT")
    assert {span["trace_id"] for span in spans} == {TRACE_ID}

    [server] = [s for s in by_kind(spans, "SERVER") if s["name"] == "message/send"]
    assert server["parent_id"] == CLIENT_SPAN
    assert server["attributes"]["http.request.method"] == "POST"
    assert server["attributes"]["url.path"] == "/"
    assert server["attributes"]["http.response.status_code"] == 200
    assert server["attributes"]["rpc.system"] == "jsonrpc"
    assert server["attributes"]["rpc.method"] == "message/send"
    assert server["attributes"]["rpc.jsonrpc.request_id"] == "7"

    producers = {s["attributes"]["a2a.job.kind"]: s for s in by_kind(spans, "PRODUCER")}
    consumers = {s["attributes"]["a2a.job.kind"]: s for s in by_kind(spans, "CONSUMER")}
    run, deliver = producers["run-agent"], producers["deliver-webhook"]
    assert run["parent_id"] == server["span_id"]
    assert run["name"] == "send jobs"
    assert run["attributes"]["messaging.system"] == "a2a_inprocess"
    assert run["attributes"]["messaging.operation.type"] == "send"
    assert run["attributes"]["messaging.destination.name"] == "jobs"
    assert run["attributes"]["a2a.task.id"] == task_id

    turn = consumers["run-agent"]
    assert turn["name"] == "process jobs"
    assert turn["parent_id"] == run["span_id"]
    assert turn["links"] == [{"trace_id": TRACE_ID, "span_id": run["span_id"]}]
    assert turn["attributes"]["messaging.operation.type"] == "process"
    assert turn["attributes"]["messaging.message.id"]
    assert turn["status"] != "ERROR"
    # The notification was queued by the turn that made the event (within the agent's run, a
    # span of the turn), and delivered in its job.
    [agent_run] = [s for s in by_kind(spans, "INTERNAL") if s["name"] == "invoke_agent Echo"]
    assert agent_run["parent_id"] == turn["span_id"]
    assert deliver["parent_id"] == agent_run["span_id"]
    delivery = consumers["deliver-webhook"]
    assert delivery["parent_id"] == deliver["span_id"]

    [post] = by_kind(spans, "CLIENT")
    assert post["parent_id"] == delivery["span_id"]
    assert post["name"] == "POST"
    assert post["attributes"]["http.request.method"] == "POST"
    assert post["attributes"]["url.full"] == webhook.url()
    assert post["attributes"]["server.address"] == "127.0.0.1"
    assert post["attributes"]["server.port"] == webhook.port
    assert post["attributes"]["http.response.status_code"] == 200
    # The webhook is told its delivery span: the receiver's own spans join the trace there.
    assert notification.headers["traceparent"] == f"00-{TRACE_ID}-{post['span_id']}-01"

    stores = [s for s in spans if "db.system.name" in s["attributes"]]
    assert {s["attributes"]["db.system.name"] for s in stores} == {"memory"}
    assert {s["kind"] for s in stores} == {"INTERNAL"}
    operations = {s["attributes"]["db.operation.name"] for s in stores}
    assert {"create_task", "get_task", "update_task", "get_push_config"} <= operations
    # Store calls nest under the work that made them.
    parents = {s["parent_id"] for s in stores}
    assert server["span_id"] in parents and turn["span_id"] in parents


async def test_a_request_without_traceparent_starts_a_trace(
    make_client: Any, webhook: WebhookServer, spans_on: Any
) -> None:
    async with make_client(echo, otel=True) as (client, _app):
        await client.post("/", json=send_body("hi", webhook.url()))
        [notification] = await webhook.wait_for(1, timeout=10)
        spans = await wait_for_span(spans_on, "CLIENT")
    [server] = [s for s in by_kind(spans, "SERVER") if s["name"] == "message/send"]
    assert server["parent_id"] is None
    assert {s["trace_id"] for s in spans} == {server["trace_id"]}
    [post] = by_kind(spans, "CLIENT")
    assert notification.headers["traceparent"].split("-")[1:3] == [
        server["trace_id"],
        post["span_id"],
    ]


async def test_failures_are_spans_with_status_error(make_client: Any, spans_on: Any) -> None:
    refused: list[Received] = []

    def refuse(request: Received) -> Reply:
        refused.append(request)
        return Reply(status=503)

    receiver = await WebhookServer(refuse).start()
    try:
        async with make_client(echo, otel=True, push_max_attempts=1) as (client, _app):
            await client.post(
                "/", json=send_body("fail", receiver.url()), headers={"traceparent": TRACEPARENT}
            )
            spans = await wait_for_span(spans_on, "CLIENT")
    finally:
        await receiver.stop()
    [turn] = [s for s in by_kind(spans, "CONSUMER") if s["attributes"]["a2a.job.kind"] == RUN]
    assert turn["status"] == "ERROR"
    [post] = by_kind(spans, "CLIENT")
    assert post["status"] == "ERROR"
    assert post["attributes"]["http.response.status_code"] == 503
    assert post["attributes"]["error.type"] == "503"


async def test_a_bad_request_is_a_server_span_with_its_error_code(
    make_client: Any, spans_on: Any
) -> None:
    async with make_client(echo, otel=True) as (client, _app):
        body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "nope"}}
        reply = await client.post("/", json=body, headers={"traceparent": TRACEPARENT})
        assert reply.json()["error"]["code"] == -32001
    [server] = by_kind(recorded(spans_on), "SERVER")
    assert server["name"] == "tasks/get"
    assert server["attributes"]["rpc.jsonrpc.error_code"] == -32001
    assert server["trace_id"] == TRACE_ID


def imported_after(code: str) -> bool:
    script = f"import sys\n{code}\nprint('opentelemetry' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.strip().splitlines()[-1] == "True"


def test_the_core_imports_no_opentelemetry_unless_spans_are_on() -> None:
    app = (
        "from a2a_serverless import Settings, agent, create_app\n"
        "@agent(name='a', description='d')\n"
        "def a(text: str) -> str:\n    return text\n"
        "create_app(a, Settings(store_url='memory://', otel={otel}))\n"
    )
    assert not imported_after("import a2a_serverless, a2a_serverless.asgi, a2a_serverless.worker")
    assert not imported_after(app.format(otel=False))
    assert imported_after(app.format(otel=True))


def test_spans_asked_for_without_the_extra_fail_at_start_up() -> None:
    code = (
        "import sys\n"
        "sys.modules['opentelemetry'] = sys.modules['opentelemetry.trace'] = None\n"
        "from a2a_serverless import Settings, agent, create_app\n"
        "from a2a_serverless.extras import MissingExtra\n"
        "@agent(name='a', description='d')\n"
        "def a(text: str) -> str:\n    return text\n"
        "try:\n    create_app(a, Settings(store_url='memory://', otel=True))\n"
        "except MissingExtra as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "pip install 'a2a-serverless[otel]'" in out.stdout
    assert "A2A_OTEL=true" in out.stdout


async def test_the_server_span_names_its_task_and_the_agents_run_is_a_span(
    make_client: Any, spans_on: Any
) -> None:
    async with make_client(echo, otel=True) as (client, _app):
        body = send_body("hi", "https://example.com/hook")
        body["params"]["configuration"] = {"blocking": True}
        reply = await client.post("/", json=body, headers={"traceparent": TRACEPARENT})
        task = reply.json()["result"]
        get = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task["id"]}}
        await client.post("/", json=get)
        spans = await wait_for_named(spans_on, "invoke_agent Echo")
    servers = {s["name"]: s for s in by_kind(spans, "SERVER")}
    # Known only once the task was made (message/send), or named by the request (tasks/get).
    assert servers["message/send"]["attributes"]["a2a.task.id"] == task["id"]
    assert servers["tasks/get"]["attributes"]["a2a.task.id"] == task["id"]

    [turn] = [s for s in by_kind(spans, "CONSUMER") if s["attributes"]["a2a.job.kind"] == RUN]
    [run] = [s for s in by_kind(spans, "INTERNAL") if s["name"] == "invoke_agent Echo"]
    assert run["parent_id"] == turn["span_id"] and run["trace_id"] == TRACE_ID
    assert run["attributes"] == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "Echo",
        "a2a.task.id": task["id"],
        "a2a.context.id": task["contextId"],
        "a2a.turn.outcome": "completed",
    }
    assert run["status"] != "ERROR"
    # The agent's store writes (its artifact, the completion) happen within its run.
    writes = [s for s in spans if s["attributes"].get("db.operation.name") == "update_task"]
    assert any(s["parent_id"] == run["span_id"] for s in writes)


async def test_a_failed_agent_run_is_an_error_span_with_its_outcome(
    make_client: Any, spans_on: Any
) -> None:
    async with make_client(echo, otel=True) as (client, _app):
        body = send_body("fail", "https://example.com/hook")
        body["params"]["configuration"] = {"blocking": True}
        reply = await client.post("/", json=body)
        assert reply.json()["result"]["status"]["state"] == "failed"
        spans = await wait_for_named(spans_on, "invoke_agent Echo")
    [run] = [s for s in by_kind(spans, "INTERNAL") if s["name"] == "invoke_agent Echo"]
    assert run["attributes"]["a2a.turn.outcome"] == "failed"
    assert run["status"] == "ERROR"
    [turn] = [s for s in by_kind(spans, "CONSUMER") if s["attributes"]["a2a.job.kind"] == RUN]
    assert turn["status"] == "ERROR"


async def test_attributes_taken_from_a_request_are_bounded(make_client: Any, spans_on: Any) -> None:
    huge_id = "x" * 1_000_000
    async with make_client(echo, otel=True) as (client, _app):
        body = {"jsonrpc": "2.0", "id": huge_id, "method": "tasks/get", "params": {"id": "a\nb"}}
        reply = await client.post(
            "/", json=body, headers={"user-agent": "agent\x1b[31m" + "u" * 10_000}
        )
        assert reply.json()["error"]["code"] == -32001
    [server] = by_kind(recorded(spans_on), "SERVER")
    attributes = server["attributes"]
    marker = tracing.TRUNCATED_MARKER
    assert attributes["rpc.jsonrpc.request_id"] == "x" * tracing.MAX_ATTRIBUTE_CHARS + (
        marker.format(length=len(huge_id))
    )
    agent = attributes["user_agent.original"]
    assert agent.startswith("agent\\x1b[31muuu") and agent.endswith(marker.format(length=10_010))
    assert len(agent) == tracing.MAX_ATTRIBUTE_CHARS + len(marker.format(length=10_010))
    # Short values are kept whole, control characters escaped.
    assert attributes["a2a.task.id"] == "a\\nb"
