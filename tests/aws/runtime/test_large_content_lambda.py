"""Every payload the protocol allows, through the Lambda functions (awslambdaric), with the
tasks in DynamoDB Local and their large parts in S3 (moto): the agent produces each payload in
the worker, and every read path gives it back identical -- tasks/get through the HTTP function,
the signed webhook, the event log replayed from event 0 -- as does a client's large upload."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
from collections.abc import Callable
from typing import Any

import pytest

from a2a_serverless import codec
from a2a_serverless.models import TaskArtifactUpdateEvent, TextPart
from a2a_serverless.push import WebhookVerifier
from a2a_serverless.store import open_store
from a2a_serverless.testing.store_contract import large_file, large_text
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import http_api_event, response_json
from tests.aws.runtime.runtime_api import LambdaFunction
from tests.aws.runtime.test_lambda_e2e import Deployment, call
from tests.integration.jsonrpc_agents import user_message
from tests.push.webhook_server import WebhookServer

pytestmark = pytest.mark.aws


@pytest.fixture
def content_store_url(store_url: str, s3_bucket: str) -> str:
    return f"{store_url}&content=s3://{s3_bucket}/lambda"


@pytest.fixture
def deployment(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    moto_endpoint: str,
    content_store_url: str,
) -> Deployment:
    env = {
        **function_env,
        "A2A_STORE_URL": content_store_url,
        "AWS_ENDPOINT_URL_S3": moto_endpoint,
        # Webhook bodies carry the whole task up to this size (64 KiB by default, past which
        # they leave out history and artifacts): here, every payload.
        "A2A_PUSH_MAX_BODY_BYTES": str(8 * 1024 * 1024),
        # The functions run this checkout's adapter, wherever the environment installed one.
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}),
    }
    return Deployment(make_function, env, make_queues(), sqs)


def dumped(part: Any) -> Any:
    """A part as the wire carries it (A2A 0.3 JSON)."""
    return json.loads(codec.encode(part))


async def replayed_parts(store_url: str, moto_endpoint: str, task_id: str) -> list[Any]:
    """The artifact parts of the task's event log, replayed from event 0 by a fresh store."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AWS_ENDPOINT_URL_S3", moto_endpoint)
        store = open_store(store_url)
        try:
            events = await store.read_events(task_id, 0)
        finally:
            await store.close()
    return [
        dumped(part)
        for event in events
        if isinstance(event.payload, TaskArtifactUpdateEvent)
        for part in event.payload.artifact.parts
    ]


async def produce(deployment: Deployment, text: str, receiver: WebhookServer | None = None) -> str:
    configuration: dict[str, Any] = {"blocking": False}
    if receiver is not None:
        configuration["pushNotificationConfig"] = {"url": receiver.url(), "token": "t0k3n"}
    params = {"message": user_message(text), "configuration": configuration}
    task = await asyncio.to_thread(call, deployment.http, "message/send", params)
    task_id: str = task["id"]

    def completed() -> bool:
        got = call(deployment.http, "tasks/get", {"id": task_id, "historyLength": 0})
        return bool(got["status"]["state"] == "completed")

    await asyncio.to_thread(deployment.trigger.run_until, completed, timeout_s=120)
    return task_id


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("produce text 1500000", [TextPart(text=large_text(1_500_000))]),
        ("produce file 3000000", [large_file(3_000_000)]),
    ],
    ids=["1.5 MB text", "3 MB file"],
)
async def test_a_large_artifact_reads_back_identical_by_every_path(
    deployment: Deployment,
    content_store_url: str,
    moto_endpoint: str,
    command: str,
    expected: list[Any],
) -> None:
    want = [dumped(part) for part in expected]
    receiver = await WebhookServer().start()
    try:
        task_id = await produce(deployment, command, receiver)
        fetched = await asyncio.to_thread(call, deployment.http, "tasks/get", {"id": task_id})
        assert fetched["artifacts"][0]["parts"] == want

        await asyncio.to_thread(
            deployment.trigger.run_until,
            lambda: any(
                json.loads(n.body)["status"]["state"] == "completed"
                for n in receiver.notifications()
            ),
            timeout_s=60,
        )
        jwks = await asyncio.to_thread(
            deployment.http.invoke, http_api_event("GET", "/.well-known/jwks.json")
        )
        verifier = WebhookVerifier(audience=receiver.url(), jwks=response_json(jwks), token="t0k3n")
        (finished,) = [
            n
            for n in receiver.notifications()
            if json.loads(n.body)["status"]["state"] == "completed"
        ]
        verified = await verifier.verify(finished.headers, finished.body)
        assert verified.task["artifacts"][0]["parts"] == want

        assert await replayed_parts(content_store_url, moto_endpoint, task_id) == want
    finally:
        await receiver.stop()


async def test_an_artifact_of_8_mb_streamed_in_chunks_replays_identical(
    deployment: Deployment, content_store_url: str, moto_endpoint: str
) -> None:
    task_id = await produce(deployment, "produce chunks 32 262144")
    want = [{"kind": "text", "text": large_text(262_144, seed=seed)} for seed in range(32)]
    assert sum(len(part["text"].encode()) for part in want) > 8_000_000
    assert await replayed_parts(content_store_url, moto_endpoint, task_id) == want


@pytest.mark.parametrize("size", [3_000_000, 4 * 1024 * 1024], ids=["3 MB", "4 MiB"])
async def test_a_clients_large_inline_upload_reads_back_identical(
    deployment: Deployment, size: int
) -> None:
    # The test agent accepts text/plain alone; the bytes are random all the same.
    data = random.Random(size).randbytes(size)
    file_part = {
        "kind": "file",
        "file": {"bytes": base64.b64encode(data).decode(), "mimeType": "text/plain"},
    }
    message = user_message("read it")
    message["parts"].append(file_part)
    params = {"message": message, "configuration": {"blocking": False}}
    task = await asyncio.to_thread(call, deployment.http, "message/send", params)

    def completed() -> bool:
        got = call(deployment.http, "tasks/get", {"id": task["id"], "historyLength": 0})
        return bool(got["status"]["state"] == "completed")

    await asyncio.to_thread(deployment.trigger.run_until, completed, timeout_s=120)
    fetched = await asyncio.to_thread(call, deployment.http, "tasks/get", {"id": task["id"]})
    assert fetched["history"][0]["parts"] == message["parts"]
