"""Every payload the protocol allows, through the Lambda functions (awslambdaric), with the
tasks in DynamoDB Local and their large parts in S3 (moto): the agent produces each payload in
the worker, and every read path gives it back identical -- tasks/get through the HTTP function,
the signed webhook, the event log replayed from event 0 -- as does a client's large upload."""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import os
import random
from collections.abc import Callable
from typing import Any

import pytest

from a2a_serverless.models import Part, TaskArtifactUpdateEvent
from a2a_serverless.push import WebhookVerifier
from a2a_serverless.store import open_store
from a2a_serverless.testing.store_contract import large_file, large_text
from a2a_serverless.v03.jsonrpc_convert import part_out
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import alb_event, http_api_event, response_json, rest_api_event
from tests.aws.runtime.runtime_api import FunctionError, LambdaFunction
from tests.aws.runtime.test_lambda_e2e import HTTP_TIMING, Deployment, call
from tests.integration.jsonrpc_agents import user_message
from tests.push.webhook_server import WebhookServer

pytestmark = pytest.mark.aws


@pytest.fixture
def content_store_url(store_url: str, s3_bucket: str) -> str:
    return f"{store_url}&content=s3://{s3_bucket}/lambda"


@pytest.fixture
def deploy(
    make_function: Callable[..., LambdaFunction],
    function_env: dict[str, str],
    make_queues: Callable[..., Queues],
    sqs: Any,
    moto_endpoint: str,
    content_store_url: str,
) -> Callable[..., Deployment]:
    """A deployment on the content bucket, with `extra` settings for both functions."""
    return lambda **extra: _deployment(
        make_function, {**function_env, **extra}, make_queues, sqs, moto_endpoint, content_store_url
    )


@pytest.fixture
def deployment(deploy: Callable[..., Deployment]) -> Deployment:
    return deploy()


def _deployment(
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
    # Producing megabytes into S3 on a busy machine can take longer than the 3 s the usual
    # worker gives the agent.
    timing = {
        "A2A_LAMBDA_TIMEOUT_S": "30",
        "A2A_WORKER_LEASE_S": "35",
        "A2A_SQS_VISIBILITY_TIMEOUT_S": "30",
    }
    queues = make_queues(visibility_timeout_s=30)
    return Deployment(make_function, env, queues, sqs, worker_timing=timing)


def dumped(part: Any) -> Any:
    """A part as the wire carries it (A2A 0.3 JSON)."""
    return part_out(part)


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


def decoded(response: dict[str, Any]) -> Any:
    """The JSON body of a Lambda HTTP answer, gunzipped if it was compressed."""
    body = response.get("body") or ""
    data = base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()
    headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
    if headers.get("content-encoding") == "gzip":
        data = gzip.decompress(data)
    return json.loads(data)


async def produce(deployment: Deployment, text: str, receiver: WebhookServer | None = None) -> str:
    configuration: dict[str, Any] = {"blocking": False}
    if receiver is not None:
        configuration["pushNotificationConfig"] = {"url": receiver.url(), "token": "t0k3n"}
    params = {"message": user_message(text), "configuration": configuration}
    task = await asyncio.to_thread(call, deployment.http, "message/send", params)
    task_id: str = task["id"]

    def completed() -> bool:
        # Gzipped: an 8 MB artifact would not fit in Lambda's answer otherwise.
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": task_id}}
        event = http_api_event("POST", "/", rpc, {"accept-encoding": "gzip"})
        got = decoded(deployment.http.invoke(event))
        assert "result" in got, str(got)[:2000]
        status = got["result"]["status"]
        assert status["state"] in ("submitted", "working", "completed"), status
        return bool(status["state"] == "completed")

    await asyncio.to_thread(deployment.trigger.run_until, completed, timeout_s=120)
    return task_id


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("produce text 1500000", [Part(text=large_text(1_500_000))]),
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


# --- Lambda's 6 MiB response limit ----------------------------------------------------------------

LIMIT = 6 * 1024 * 1024
EIGHT_MB = [{"kind": "text", "text": large_text(8_000_000)}]


def v10_rpc(method: str, params: Any, headers: dict[str, str]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": "r1", "method": method, "params": params}
    return http_api_event("POST", "/", body, {"a2a-version": "1.0", **headers})


def get_task_requests(task_id: str, headers: dict[str, str]) -> dict[str, dict[str, Any]]:
    """GetTask of `task_id` in each version and binding, as HTTP API events."""
    v03 = {"jsonrpc": "2.0", "id": "r1", "method": "tasks/get", "params": {"id": task_id}}
    return {
        "0.3 JSON-RPC": http_api_event("POST", "/", v03, headers),
        "1.0 JSON-RPC": v10_rpc("GetTask", {"id": task_id}, headers),
        "0.3 REST": http_api_event("GET", f"/v1/tasks/{task_id}", None, headers),
        "1.0 REST": http_api_event(
            "GET", f"/tasks/{task_id}", None, {"a2a-version": "1.0", **headers}
        ),
    }


@pytest.fixture
async def eight_mb_task(deployment: Deployment) -> str:
    return await produce(deployment, "produce text 8000000")


async def test_without_the_limit_lambda_itself_refuses_the_answer(
    make_function: Callable[..., LambdaFunction], deployment: Deployment, eight_mb_task: str
) -> None:
    # What the limit is for: the answer leaves the handler, and Lambda refuses it (API Gateway
    # then answers 502, with nothing of ours in it).
    unlimited = make_function(
        "http_handler",
        {**deployment.env, **HTTP_TIMING, "A2A_MAX_RESPONSE_BYTES": "0"},
        timeout_s=10,
        name="unlimited",
    )
    event = get_task_requests(eight_mb_task, {})["0.3 JSON-RPC"]
    with pytest.raises(FunctionError) as refused:
        await asyncio.to_thread(unlimited.invoke, event)
    assert refused.value.error["errorType"] == "Function.ResponseSizeTooLarge"


async def test_get_task_over_6_mb_is_a_typed_error_in_every_binding(
    deployment: Deployment, eight_mb_task: str
) -> None:
    # Without gzip the answer would be about 10 MB: each binding answers its own typed error,
    # which Lambda passes on (the platform would have refused the answer itself: 502).
    for binding, event in get_task_requests(eight_mb_task, {}).items():
        response = await asyncio.to_thread(deployment.http.invoke, event)
        payload = decoded(response)
        if "JSON-RPC" in binding:
            assert response["statusCode"] == 200, binding
            error = payload["error"]
            assert error["code"] == -32004, (binding, error)
            assert payload["id"] == "r1"
        else:
            assert response["statusCode"] == 400, (binding, payload)
            error = payload["error"]
        assert f"at most {LIMIT}" in error["message"], (binding, error)
        assert "A2A_MAX_RESPONSE_BYTES" in error["message"]
        assert "Accept-Encoding: gzip" in error["message"]
        if binding == "0.3 JSON-RPC" or binding == "0.3 REST":
            assert error["data"]["limit"] == "max_response_bytes"
            assert error["data"]["max"] == LIMIT
            assert error["data"]["actual"] > LIMIT
            assert error["data"]["platform"] == "AWS Lambda"
        elif binding == "1.0 REST":
            assert error["status"] == "FAILED_PRECONDITION"
            (info,) = [d for d in error["details"] if d["reason"] == "UNSUPPORTED_OPERATION"]
            assert info["metadata"]["max"] == str(LIMIT)
        else:
            (info,) = [d for d in error["data"] if d.get("reason") == "UNSUPPORTED_OPERATION"]
            assert info["metadata"]["limit"] == "max_response_bytes"


async def test_get_task_over_6_mb_fits_gzipped_and_reads_back_identical(
    deployment: Deployment, eight_mb_task: str
) -> None:
    want = EIGHT_MB[0]["text"]
    for binding, event in get_task_requests(eight_mb_task, {"accept-encoding": "gzip"}).items():
        response = await asyncio.to_thread(deployment.http.invoke, event)
        assert response["statusCode"] == 200, binding
        assert response["headers"]["content-encoding"] == "gzip"
        assert len(json.dumps(response)) <= LIMIT
        payload = decoded(response)
        task = payload["result"] if "JSON-RPC" in binding else payload
        (part,) = task["artifacts"][0]["parts"]
        assert part["text"] == want, binding


def sse_events(payload_text: str) -> list[tuple[int | None, str | None, Any]]:
    """(id, event name, data) of each event of an SSE body."""
    found = []
    for block in payload_text.split("\n\n"):
        if not block.strip() or block.startswith(":"):
            continue
        event_id = name = data = None
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "id":
                event_id = int(value)
            elif field == "event":
                name = value
            elif field == "data":
                data = json.loads(value)
        found.append((event_id, name, data))
    return found


def stream_body(response: dict[str, Any]) -> str:
    body = response.get("body") or ""
    data = base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()
    if (response.get("headers") or {}).get("content-encoding") == "gzip":
        data = gzip.decompress(data)
    return data.decode()


@pytest.mark.parametrize("accept_gzip", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("version", ["0.3", "1.0"])
async def test_a_buffered_stream_over_6_mb_ends_with_an_error_and_resumes(
    make_function: Callable[..., LambdaFunction],
    deployment: Deployment,
    version: str,
    accept_gzip: bool,
) -> None:
    task_id = await produce(deployment, "produce chunks 32 262144")
    want = [large_text(262_144, seed=seed) for seed in range(32)]
    streams = make_function(
        "http_handler",
        {**deployment.env, **HTTP_TIMING, "A2A_BUFFERED_STREAMS": "true"},
        timeout_s=10,
        name="streams",
    )
    headers = {"accept-encoding": "gzip"} if accept_gzip else {}
    texts: list[str] = []
    last = 0
    responses = 0
    while True:
        resume = {**headers, "last-event-id": str(last)}
        if version == "0.3":
            body = {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tasks/resubscribe",
                "params": {"id": task_id},
            }
            event = http_api_event("POST", "/", body, resume)
        else:
            event = v10_rpc("SubscribeToTask", {"id": task_id}, resume)
        response = await asyncio.to_thread(streams.invoke, event)
        responses += 1
        assert response["statusCode"] == 200
        assert len(json.dumps(response)) <= LIMIT
        events = sse_events(stream_body(response))
        ended = True
        for event_id, _, data in events:
            if "error" in data:
                error = data["error"]
                assert error["code"] == -32004, error
                assert f"resubscribe with Last-Event-ID: {last}" in error["message"], error
                assert data["id"] == (7 if version == "0.3" else "r1")
                ended = False
                break
            assert event_id is not None
            last = event_id
            result = data["result"]
            if version == "1.0":
                update = result.get("artifactUpdate")
            else:
                update = result if result.get("kind") == "artifact-update" else None
            if update is not None:
                texts += [part["text"] for part in update["artifact"]["parts"]]
        if ended:
            break
        assert responses < 40
    assert texts == want
    # 8 MB of text does not fit in one plain answer; gzipped it does.
    assert (responses == 1) if accept_gzip else (responses > 1)


async def test_an_alb_answer_is_held_to_the_albs_1_mb(
    deployment: Deployment, eight_mb_task: str
) -> None:
    # Gzipped, the task is 1.4 MB in the envelope: Lambda would pass it, an ALB would not.
    event = alb_event("GET", f"/v1/tasks/{eight_mb_task}", None, {"accept-encoding": "gzip"})
    response = await asyncio.to_thread(deployment.http.invoke, event)
    assert response["statusCode"] == 400
    error = decoded(response)["error"]
    assert "an Application Load Balancer passes on at most 1000000" in error["message"]
    assert error["data"]["max"] == 1_000_000 and error["data"]["actual"] > 1_000_000


async def test_a_rest_api_answer_is_not_gzipped(deployment: Deployment, eight_mb_task: str) -> None:
    # A REST API (v1) passes a base64 body on as bytes only for its binaryMediaTypes: no gzip
    # there, so the 8 MB task is the typed error even for a client that accepts gzip.
    event = rest_api_event("GET", f"/v1/tasks/{eight_mb_task}", None, {"Accept-Encoding": "gzip"})
    response = await asyncio.to_thread(deployment.http.invoke, event)
    assert response["statusCode"] == 400
    assert "content-encoding" not in {k.lower() for k in response.get("headers") or {}}
    error = decoded(response)["error"]
    assert error["data"]["platform"] == "AWS Lambda" and error["data"]["max"] == LIMIT


# --- signed URLs ----------------------------------------------------------------------------------


async def test_signed_urls_take_a_file_over_6_mb_out_of_every_answer(
    deploy: Callable[..., Deployment],
) -> None:
    """A 7 MB file part is over Lambda's 6 MiB even gzipped (random bytes); with
    A2A_CONTENT_SIGNED_URLS on both functions (the worker writes the file's object, the HTTP
    function signs) every binding answers a URL of exactly those bytes."""
    import httpx

    deployment = deploy(A2A_CONTENT_SIGNED_URLS="true", A2A_CONTENT_URL_TTL_S="120")
    task_id = await produce(deployment, "produce file 7000000")
    (expected,) = [dumped(large_file(7_000_000))]
    want = base64.b64decode(expected["file"]["bytes"])
    for binding, event in get_task_requests(task_id, {}).items():
        response = await asyncio.to_thread(deployment.http.invoke, event)
        assert response["statusCode"] == 200, binding
        payload = decoded(response)
        task = payload["result"] if "JSON-RPC" in binding else payload
        (part,) = task["artifacts"][0]["parts"]
        # 1.0: a part with `url`; 0.3 JSON-RPC: FileWithUri; 0.3 REST (ProtoJSON): fileWithUri.
        if binding.startswith("1.0"):
            url = part["url"]
        elif binding == "0.3 REST":
            url = part["file"]["fileWithUri"]
        else:
            url = part["file"]["uri"]
        assert "X-Amz-Expires=120" in url, binding
        served = await asyncio.to_thread(httpx.get, url, timeout=30)
        assert served.status_code == 200 and served.content == want, binding
