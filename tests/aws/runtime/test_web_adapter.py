"""Live SSE on Lambda through the Web Adapter: the app started as the adapter starts it
(`python -m a2a_serverless_aws.web_adapter module:agent` under uvicorn, on $AWS_LWA_PORT)
streams a task's events as the worker writes them, and ends streams within the function's
timeout; a FastAPI app holding the agent (`module:api`) is served whole, its lifespan run, the
agent streaming under its prefix. The Web Adapter binary itself (a Rust Lambda extension) is
not available offline, so the test talks to the server directly, as the adapter would over
loopback."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless.config import Settings
from a2a_serverless_aws import AwsSettings, SqsQueue, create_web_app
from a2a_serverless_aws.web_adapter import adapter_streams
from tests.aws.runtime.conftest import REGION, Queues, free_port, wait_for_http
from tests.aws.runtime.events import SqsTrigger
from tests.aws.runtime.functions import subject
from tests.aws.runtime.inprocess import handlers_in_thread
from tests.aws.runtime.runtime_api import REPO
from tests.integration.jsonrpc_agents import SSEEvent, parse_sse, user_message

pytestmark = pytest.mark.aws


@pytest.fixture
def queues(make_queues: Callable[..., Queues]) -> Queues:
    return make_queues()


@pytest.fixture
def web_server(function_env: dict[str, str], queues: Queues, tmp_path: Path) -> Iterator[str]:
    with serve("tests.aws.runtime.functions:subject", function_env, queues, tmp_path) as url:
        yield url


@pytest.fixture
def web_server_app(function_env: dict[str, str], queues: Queues, tmp_path: Path) -> Iterator[str]:
    with serve("tests.aws.runtime.fastapi_functions:api", function_env, queues, tmp_path) as url:
        yield url


@contextlib.contextmanager
def serve(
    target: str, function_env: dict[str, str], queues: Queues, tmp_path: Path
) -> Iterator[str]:
    """The Web Adapter's server for `target`, started as the adapter starts it."""
    port = free_port()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        # A worktree's own adapters over the editable install's (as the tests' shell has it).
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}),
        "AWS_DEFAULT_REGION": REGION,
        **function_env,
        "A2A_SQS_QUEUE_URL": queues.url,
        "AWS_LWA_PORT": str(port),
        "AWS_LWA_INVOKE_MODE": "response_stream",
        # A 6 s function with a 3 s margin: streams are cut at 3 s, not the default 300 s.
        "A2A_LAMBDA_TIMEOUT_S": "6",
        "A2A_BLOCKING_TIMEOUT_S": "2",
        "A2A_KEEPALIVE_S": "0.5",
    }
    log = tmp_path / "web-adapter.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "a2a_serverless_aws.web_adapter",
                target,
            ],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    health = "/agent/health" if target.endswith(":api") else "/health"
    try:
        wait_for_http(f"{url}{health}", process, log, timeout_s=30)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@pytest.fixture(autouse=True)
def _runs(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_RUNS_DIR", str(runs_dir))


async def sse_blocks(response: httpx.Response) -> AsyncIterator[str]:
    buffer = ""
    async for chunk in response.aiter_text():
        buffer += chunk.replace("\r\n", "\n")
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            yield block + "\n\n"


def stream_request(text: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": "s-1",
        "method": "message/stream",
        "params": {"message": user_message(text)},
    }


async def test_the_card_says_streaming_and_a_stream_follows_the_worker_live(
    web_server: str,
    queues: Queues,
    store_url: str,
    signing_keys: str,
    sqs: Any,
) -> None:
    async with httpx.AsyncClient(base_url=web_server, timeout=30) as client:
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["capabilities"]["streaming"] is True
        events = await stream_through_worker(client, "/", queues, store_url, signing_keys, sqs)
    assert_streamed_to_completion(events)


async def test_a_fastapi_app_is_served_whole_and_its_agent_streams_under_the_prefix(
    web_server_app: str,
    queues: Queues,
    store_url: str,
    signing_keys: str,
    sqs: Any,
) -> None:
    async with httpx.AsyncClient(base_url=web_server_app, timeout=30) as client:
        # The app's own route, with the state its lifespan made: uvicorn ran the lifespan.
        hello = await client.get("/hello")
        assert hello.json() == {"hello": "hello from the lifespan"}
        card = (await client.get("/agent/.well-known/agent-card.json")).json()
        assert card["capabilities"]["streaming"] is True
        assert card["url"] == f"{web_server_app}/agent/"
        root_card = (await client.get("/.well-known/agent-card.json")).json()
        assert root_card["url"] == card["url"]
        events = await stream_through_worker(
            client, "/agent/", queues, store_url, signing_keys, sqs
        )
    assert_streamed_to_completion(events)


def test_the_entry_point_names_what_is_wrong_with_a_target() -> None:
    from a2a_serverless_aws.web_adapter import load_target

    agent, api = load_target("tests.aws.runtime.fastapi_functions:api")
    assert agent is subject and api is not None
    assert load_target("tests.aws.runtime.functions:subject") == (subject, None)
    with pytest.raises(SystemExit, match="holds 2 agents"):
        load_target("tests.aws.runtime.fastapi_functions:two_agents")
    with pytest.raises(SystemExit, match="no agent in it"):
        load_target("tests.aws.runtime.fastapi_functions:no_agent")
    with pytest.raises(SystemExit, match="has no attribute"):
        load_target("tests.aws.runtime.fastapi_functions:nothing")


async def stream_through_worker(
    client: httpx.AsyncClient,
    path: str,
    queues: Queues,
    store_url: str,
    signing_keys: str,
    sqs: Any,
) -> list[SSEEvent]:
    """A message/stream at `path` whose task the SQS worker runs while the stream is open."""
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        trigger = SqsTrigger(sqs, queues.url, h.call_worker)
        events: list[SSEEvent] = []
        async with asyncio.timeout(60):
            async with client.stream("POST", path, json=stream_request("sleep 0.2")) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                blocks = sse_blocks(response)
                # The task arrives before any worker has run: the response is live.
                async for block in blocks:
                    events.extend(parse_sse(block).events)
                    if events:
                        break
                assert events[0].data["result"]["status"]["state"] == "submitted"
                # Now Lambda's poller runs the worker; its writes reach the open stream.
                worker = asyncio.create_task(
                    asyncio.to_thread(trigger.run_until, lambda: bool(_final(events)), timeout_s=30)
                )
                async for block in blocks:
                    events.extend(parse_sse(block).events)
                await worker
    return events


def assert_streamed_to_completion(events: list[SSEEvent]) -> None:
    results = [e.data["result"] for e in events]
    assert results[-1]["final"] is True and results[-1]["status"]["state"] == "completed"
    assert any(r["kind"] == "artifact-update" for r in results)
    ids = [e.id or 0 for e in events]
    assert ids == sorted(ids)


async def test_a_stream_ends_within_the_function_timeout(web_server: str) -> None:
    # Nobody runs the turn: the stream stays open with keep-alives, then ends at
    # stream_timeout_s (the 6 s timeout minus the 3 s margin), before Lambda would cut it.
    async with httpx.AsyncClient(base_url=web_server, timeout=30) as client:
        async with asyncio.timeout(30):
            response = await client.post("/", json=stream_request("never runs"))
    body = parse_sse(response.text)
    assert body.comments, "keep-alives while waiting"
    results = [e.data["result"] for e in body.events]
    assert results and not any(r.get("final") for r in results)


def test_the_card_follows_the_adapter_invoke_mode(sqs: Any) -> None:
    assert adapter_streams({"AWS_LWA_INVOKE_MODE": "response_stream"}) is True
    assert adapter_streams({"AWS_LWA_INVOKE_MODE": "buffered"}) is False
    assert adapter_streams({"AWS_LAMBDA_FUNCTION_NAME": "f"}) is False, "the adapter's default"
    assert adapter_streams({}) is None

    queue = SqsQueue("http://127.0.0.1:1/123456789012/jobs", client=sqs)
    buffered = create_web_app(
        subject,
        Settings(store_url="memory://", dev_mode=True),
        AwsSettings(lambda_timeout_s=30),
        environ={"AWS_LWA_INVOKE_MODE": "buffered"},
        queue=queue,
    )
    assert buffered.runtime.settings.streaming is False
    streaming = create_web_app(
        subject,
        Settings(store_url="memory://", dev_mode=True, stream_timeout_s=20),
        AwsSettings(lambda_timeout_s=30),
        environ={"AWS_LWA_INVOKE_MODE": "response_stream"},
        queue=queue,
    )
    assert streaming.runtime.settings.streaming is True
    assert streaming.runtime.settings.stream_timeout_s == 20


def _final(events: list[SSEEvent]) -> list[SSEEvent]:
    return [e for e in events if e.data.get("result", {}).get("final")]


def test_logs_carry_the_request_id_the_adapter_passes(sqs: Any) -> None:
    app = create_web_app(
        subject,
        Settings(store_url="memory://", dev_mode=True),
        AwsSettings(lambda_timeout_s=30),
        environ={},
        queue=SqsQueue("http://127.0.0.1:1/123456789012/jobs", client=sqs),
    )
    # A handler of our own with the powertools formatter (the process's handler may write to
    # a stream captured by an earlier test).
    out = io.StringIO()
    capture = logging.StreamHandler(out)
    capture.setFormatter(app.logger.registered_formatter)
    kit = logging.getLogger("a2a_serverless")
    kit.addHandler(capture)
    try:
        context = json.dumps({"request_id": "req-42", "deadline": 1_900_000_000_000})
        scope = {"type": "http", "headers": [(b"x-amzn-lambda-context", context.encode())]}
        with app._request_keys(scope):
            logging.getLogger("a2a_serverless.test").warning("inside")
        logging.getLogger("a2a_serverless.test").warning("outside")
    finally:
        kit.removeHandler(capture)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["message"], r.get("function_request_id")) for r in records] == [
        ("inside", "req-42"),
        ("outside", None),
    ]


async def test_a_named_stage_is_routed_below_and_named_in_the_card(sqs: Any) -> None:
    # Issue 31: behind API Gateway on a named stage the adapter passes `/prod/...`.
    host = "abc123.execute-api.us-east-1.amazonaws.com"
    context = json.dumps({"stage": "prod", "domainName": host, "http": {"method": "GET"}})
    headers = {"x-amzn-request-context": context}

    def web_app(environ: dict[str, str]) -> Any:
        return create_web_app(
            subject,
            Settings(store_url="memory://", dev_mode=True),
            AwsSettings(lambda_timeout_s=30),
            environ=environ,
            queue=SqsQueue("http://127.0.0.1:1/123456789012/jobs", client=sqs),
        )

    inside = web_app({"AWS_LAMBDA_FUNCTION_NAME": "f"})
    transport = httpx.ASGITransport(app=inside)
    async with httpx.AsyncClient(transport=transport, base_url=f"https://{host}") as client:
        card = await client.get("/prod/.well-known/agent-card.json", headers=headers)
        assert card.status_code == 200, card.text
        assert card.json()["url"] == f"https://{host}/prod/"
        # AWS_LWA_REMOVE_BASE_PATH=/prod: the path comes without the stage, the card keeps it.
        card = await client.get("/.well-known/agent-card.json", headers=headers)
        assert card.json()["url"] == f"https://{host}/prod/"
        listed = await client.get("/prod/v1/tasks", headers=headers)
        assert listed.status_code == 200, listed.text
    await inside.runtime.aclose()
    # Outside Lambda the header is anybody's: not read.
    outside = web_app({})
    transport = httpx.ASGITransport(app=outside)
    async with httpx.AsyncClient(transport=transport, base_url=f"https://{host}") as client:
        card = await client.get("/prod/.well-known/agent-card.json", headers=headers)
        assert card.status_code == 404
    await outside.runtime.aclose()
