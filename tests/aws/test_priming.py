"""Priming (a2a_serverless_aws.priming): a handler pays at init for what its first request
would, against a real DynamoDB Local; a part that cannot prime never stops init."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time

import pytest

from a2a_serverless import Agent, Context, Settings, TaskUpdater, agent
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler, priming
from a2a_serverless_aws.config import AwsSettings
from a2a_serverless_aws.dynamodb import DynamoDBStore
from a2a_serverless_aws.priming import prime
from a2a_serverless_aws.sqs import SqsQueue
from tests.aws.dynamodb_support import counting
from tests.aws.runtime.events import http_api_event, response_body
from tests.aws.runtime.inprocess import FakeContext
from tests.integration.jsonrpc_agents import request, user_message

pytestmark = pytest.mark.aws


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


def build(echo_agent: Agent, store_url: str, **aws: object) -> object:
    queue = InProcessQueue()
    handler = make_http_handler(
        echo_agent, Settings(store_url=store_url), AwsSettings(**aws), queue=queue
    )
    return handler


def test_the_store_primes_with_one_read_of_a_key_no_item_has(
    dynamodb_store: DynamoDBStore,
) -> None:
    with counting(dynamodb_store) as calls:
        dynamodb_store.prime()
    assert calls == ["GetItem"]


def test_a_handler_primes_its_store_at_init_and_serves(
    dynamodb_store: DynamoDBStore, dynamodb_store_url: str
) -> None:
    # The store's client is the process's (models.bind), so the hook sees the handler's calls.
    with counting(dynamodb_store) as calls:
        handler = build(echo, dynamodb_store_url)
    assert calls == ["GetItem"]
    try:
        body = request("message/send", {"message": user_message("hi")})
        event = http_api_event("POST", "/", body)
        modules = set(sys.modules)
        response = handler(event, FakeContext(remaining_ms=30_000))  # type: ignore[operator]
        assert response["statusCode"] == 200, response
        assert '"completed"' in response_body(response)
        # Nothing was left to load on the first request's path.
        assert set(sys.modules) - modules == set()
    finally:
        handler.close()  # type: ignore[attr-defined]


def test_priming_can_be_turned_off(dynamodb_store: DynamoDBStore, dynamodb_store_url: str) -> None:
    with counting(dynamodb_store) as calls:
        handler = build(echo, dynamodb_store_url, prime=False)
    handler.close()  # type: ignore[attr-defined]
    assert calls == []


class _AsyncEcho:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.complete(context.text)


@agent(name="Async echo", description="Says back what it is told.")
async def async_echo(text: str) -> str:
    return text


def answer_at_once(text: str) -> str:
    return text


@agent(name="Direct echo", description="Answers at once.", direct=answer_at_once)
async def direct_echo(text: str) -> str:
    return text


@pytest.mark.parametrize(
    ("echo_agent", "started"),
    [
        (Agent(name="Echo", description="Says back.", executor=_AsyncEcho()), False),
        (async_echo, False),
        (echo, True),  # a function that is not async runs in the loop's default executor
        (direct_echo, True),  # so does a direct hook that is not async
    ],
    ids=["async executor", "async function", "sync function", "sync direct hook"],
)
def test_init_starts_a_thread_only_for_an_agent_that_runs_code_in_threads(
    echo_agent: Agent, started: bool
) -> None:
    before = set(threading.enumerate())
    handler = build(echo_agent, "memory://")  # no part to prime: the memory store, in-process
    try:
        assert bool(set(threading.enumerate()) - before) is started
        response = handler(  # type: ignore[operator]
            http_api_event("POST", "/", request("message/send", {"message": user_message("hi")})),
            FakeContext(remaining_ms=30_000),
        )
        assert '"hi"' in response_body(response)
    finally:
        handler.close()  # type: ignore[attr-defined]


def test_a_part_that_cannot_prime_is_logged_and_init_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken:
        def prime(self) -> None:
            raise OSError("no route to host")

    class Primed:
        done = False

        def prime(self) -> None:
            self.done = True

    primed = Primed()
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.WARNING, logger="a2a_serverless_aws.priming"):
            prime(loop, Broken(), object(), primed)
    finally:
        loop.close()
    assert primed.done
    assert "could not prime" in caplog.text and "no route to host" in caplog.text


def test_a_part_slower_than_the_bound_does_not_hold_init(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(priming, "PRIME_TIMEOUT_S", 0.05)
    released = threading.Event()

    class Hanging:
        def prime(self) -> None:
            released.wait(5)  # an endpoint that does not answer

    loop = asyncio.new_event_loop()
    started = time.monotonic()
    try:
        with caplog.at_level(logging.WARNING, logger="a2a_serverless_aws.priming"):
            prime(loop, Hanging())
        assert time.monotonic() - started < 2
        assert "took over 0.05 s: init goes on" in caplog.text
    finally:
        released.set()
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


def test_the_sqs_queue_primes_its_client_without_a_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    queue = SqsQueue("https://sqs.eu-west-1.amazonaws.com/123456789012/jobs")
    assert queue._client is None  # created on first use, unless primed
    queue.prime()  # no request: nothing here can reach SQS
    assert queue._client is not None
    assert queue._client.meta.region_name == "eu-west-1"


def test_the_handlers_are_built_with_the_collector_paused() -> None:
    from a2a_serverless import collector
    from a2a_serverless_aws.lambda_http import HttpHandler
    from a2a_serverless_aws.lambda_worker import WorkerHandler

    for handler in (HttpHandler, WorkerHandler):
        assert handler.__init__.__code__.co_filename == collector.__file__
