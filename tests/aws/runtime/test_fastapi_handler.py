"""The HTTP handler serving a FastAPI app with the agent mounted under /agent
(`make_http_handler(agent, app=api)`), in-process on the real SQS (moto server) and DynamoDB
Local: the app's own route beside the agent's card, JSON-RPC and both REST flavours, for every
event source; the turn goes to SQS and the worker runs it; the app's lifespan ran once, at init,
and its state reaches the app's routes."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import SqsTrigger, http_api_event, response_json
from tests.aws.runtime.functions import subject
from tests.aws.runtime.inprocess import handlers_in_thread
from tests.aws.runtime.test_http_events import SOURCES, rpc
from tests.integration.jsonrpc_agents import user_message
from tests.support.fastapi_apps import greeting_app

pytestmark = pytest.mark.aws


@pytest.fixture(autouse=True)
def _runs(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_RUNS_DIR", str(runs_dir))


def make_api(started: list[str]) -> FastAPI:
    return greeting_app(subject, on_start=lambda: started.append("started"))


@pytest.mark.parametrize("source", sorted(SOURCES))
async def test_every_event_source_serves_the_app_and_the_agent(
    source: str,
    store_url: str,
    signing_keys: str,
    sqs: Any,
    make_queues: Callable[..., Queues],
) -> None:
    build, card_url = SOURCES[source]
    base = card_url.removesuffix("/")  # the agent's base alone: the app's, here
    queues = make_queues()
    started: list[str] = []
    api = make_api(started)
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs, app=api) as h:
        assert started == ["started"], "the app's lifespan ran once, at init"

        def call(*args: Any) -> Any:
            return asyncio.to_thread(h.call_http, build(*args))

        hello = await call("GET", "/hello")
        assert hello["statusCode"] == 200
        assert response_json(hello) == {"hello": "hello from the lifespan"}

        for path in ("/agent/.well-known/agent-card.json", "/.well-known/agent-card.json"):
            card = await call("GET", path)
            assert card["statusCode"] == 200, card
            body = response_json(card)
            assert body["url"] == f"{base}/agent/"
            assert {i["url"] for i in body["additionalInterfaces"]} == {
                f"{base}/agent/",
                f"{base}/agent",
            }
            assert body["capabilities"]["streaming"] is False, "Mangum buffers: no streaming"

        params = {"message": user_message("hi"), "configuration": {"blocking": False}}
        sent = await call("POST", "/agent/", rpc("message/send", params))
        assert sent["statusCode"] == 200, sent
        task = response_json(sent)["result"]
        assert task["status"]["state"] == "submitted"
        (job,) = [r for r in h.client.sent if task["id"] in r["MessageBody"]]
        assert job["MessageAttributes"]["kind"]["StringValue"] == "run-agent"

        trigger = SqsTrigger(sqs, queues.url, h.call_worker)

        def completed() -> bool:
            got = h.call_http(build("GET", f"/agent/v1/tasks/{task['id']}"))
            assert got["statusCode"] == 200, got
            return bool(response_json(got)["status"]["state"] == "TASK_STATE_COMPLETED")

        await asyncio.to_thread(trigger.run_until, completed, timeout_s=30)

        version = {"A2A-Version": "1.0"}
        got = await asyncio.to_thread(
            h.call_http, build("GET", f"/agent/tasks/{task['id']}", None, version)
        )
        assert got["statusCode"] == 200, got
        assert response_json(got)["artifacts"][0]["parts"][0]["text"] == "done: hi"
        got = await call("POST", "/agent/", rpc("tasks/get", {"id": task["id"]}))
        assert response_json(got)["result"]["status"]["state"] == "completed"

        missing = await call("GET", "/nowhere")
        assert missing["statusCode"] == 404, "the app's own 404"


async def test_an_app_without_the_agent_is_refused_at_init(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    with pytest.raises(ValueError, match="does not serve the agent 'Tester': mount it first"):
        async with handlers_in_thread(
            subject, store_url, signing_keys, queues.url, sqs, app=FastAPI()
        ):
            pass


async def test_the_apps_handler_reads_secrets_and_emits_metrics(
    store_url: str,
    signing_keys: str,
    sqs: Any,
    moto_endpoint: str,
    make_queues: Callable[..., Queues],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What doing it by hand with Mangum loses: the signing keys named by an SSM reference are
    read at init (push is on, the JWKS served under the prefix), and each invocation flushes
    its EMF metrics."""
    import boto3  # type: ignore[import-untyped]

    monkeypatch.setenv("AWS_ENDPOINT_URL_SSM", moto_endpoint)
    parameter = f"/fastapi-{uuid.uuid4().hex}/push-keys"
    ssm = boto3.client("ssm", endpoint_url=moto_endpoint, region_name="us-east-1")
    ssm.put_parameter(Name=parameter, Value=signing_keys, Type="SecureString")
    queues = make_queues()
    api = make_api([])
    async with handlers_in_thread(
        subject, store_url, f"ssm:{parameter}", queues.url, sqs, app=api
    ) as h:
        card = await asyncio.to_thread(
            h.call_http, http_api_event("GET", "/agent/.well-known/agent-card.json")
        )
        assert response_json(card)["capabilities"]["pushNotifications"] is True
        jwks = await asyncio.to_thread(
            h.call_http, http_api_event("GET", "/agent/.well-known/jwks.json")
        )
        assert jwks["statusCode"] == 200 and response_json(jwks)["keys"]
        params = {"message": user_message("metrics"), "configuration": {"blocking": False}}
        capsys.readouterr()
        sent = await asyncio.to_thread(
            h.call_http, http_api_event("POST", "/agent/", rpc("message/send", params))
        )
        assert sent["statusCode"] == 200, sent
    emf = [
        json.loads(line)
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("{") and '"_aws"' in line
    ]
    metrics = {m["Name"] for e in emf for m in e["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
    assert "TasksStarted" in metrics, emf
