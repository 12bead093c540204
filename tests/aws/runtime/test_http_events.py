"""The HTTP handler in-process, for every event source it serves: API Gateway
HTTP API (v2), REST API (v1), ALB and function URLs; and message/stream refused (the card says
`streaming: false`), or, with buffered streams on, answered with one buffered SSE body while the
worker runs the turn."""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import (
    SqsTrigger,
    alb_event,
    function_url_event,
    header,
    http_api_event,
    response_body,
    response_json,
    rest_api_event,
)
from tests.aws.runtime.functions import subject
from tests.aws.runtime.inprocess import Handlers, handlers_in_thread
from tests.integration.jsonrpc_agents import parse_sse, user_message

pytestmark = pytest.mark.aws

EventBuilder = Callable[..., dict[str, Any]]
SOURCES: dict[str, tuple[EventBuilder, str]] = {
    "http-api-v2": (http_api_event, "https://abc123.execute-api.us-east-1.amazonaws.com/"),
    # Issue 31: on a named stage every route answered 404 while the card named /prod URLs.
    "http-api-v2-stage": (
        functools.partial(http_api_event, stage="prod"),
        "https://abc123.execute-api.us-east-1.amazonaws.com/prod/",
    ),
    "rest-api-v1": (rest_api_event, "https://abc123.execute-api.us-east-1.amazonaws.com/prod/"),
    "alb": (alb_event, "http://a2a-alb-123.us-east-1.elb.amazonaws.com/"),
    "function-url": (function_url_event, "https://xyz789.lambda-url.us-east-1.on.aws/"),
}


@pytest.fixture(autouse=True)
def _runs(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_RUNS_DIR", str(runs_dir))


def rpc(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}


@pytest.mark.parametrize("source", sorted(SOURCES))
async def test_every_event_source_serves_the_card_and_json_rpc(
    source: str,
    store_url: str,
    signing_keys: str,
    sqs: Any,
    make_queues: Callable[..., Queues],
) -> None:
    build, card_url = SOURCES[source]
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        card = await asyncio.to_thread(h.call_http, build("GET", "/.well-known/agent-card.json"))
        assert card["statusCode"] == 200
        body = response_json(card)
        assert body["url"] == card_url
        assert body["capabilities"]["streaming"] is False, "Mangum buffers: no streaming"
        # ...so streams are refused (spec 1.0 §3.3.4), unless buffered streams are on.
        refused = await asyncio.to_thread(
            h.call_http, build("POST", "/", rpc("message/stream", {"message": user_message("x")}))
        )
        assert "-32004" in response_body(refused), refused
        assert body["capabilities"]["pushNotifications"] is True

        params = {"message": user_message("hi"), "configuration": {"blocking": False}}
        sent = await asyncio.to_thread(h.call_http, build("POST", "/", rpc("message/send", params)))
        assert sent["statusCode"] == 200, sent
        task = response_json(sent)["result"]
        assert task["status"]["state"] == "submitted"
        # The turn is on the queue before the response returned.
        (job,) = [r for r in h.client.sent if task["id"] in r["MessageBody"]]
        assert job["MessageAttributes"]["kind"]["StringValue"] == "run-agent"

        got = await asyncio.to_thread(
            h.call_http, build("POST", "/", rpc("tasks/get", {"id": task["id"]}))
        )
        assert response_json(got)["result"]["id"] == task["id"]


async def test_rest_transport_through_api_gateway(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        body = {
            "message": {
                "messageId": "m-rest-1",
                "role": "ROLE_USER",
                "content": [{"text": "via rest"}],
            },
            "configuration": {"blocking": False},
        }
        sent = await asyncio.to_thread(
            h.call_http, http_api_event("POST", "/v1/message:send", body)
        )
        assert sent["statusCode"] == 200, sent
        task = response_json(sent)["task"]
        got = await asyncio.to_thread(h.call_http, http_api_event("GET", f"/v1/tasks/{task['id']}"))
        assert got["statusCode"] == 200
        assert response_json(got)["id"] == task["id"]


async def test_message_stream_is_one_buffered_body_that_follows_the_worker(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    async with handlers_in_thread(
        subject, store_url, signing_keys, queues.url, sqs, http_settings={"buffered_streams": True}
    ) as h:
        answered = threading.Event()
        trigger = SqsTrigger(sqs, queues.url, h.call_worker)

        def stream() -> dict[str, Any]:
            try:
                event = http_api_event(
                    "POST", "/", rpc("message/stream", {"message": user_message("sleep 0.3")})
                )
                return h.call_http(event)
            finally:
                answered.set()

        # Lambda's poller runs the worker function while the HTTP function waits.
        response, _ = await asyncio.gather(
            asyncio.to_thread(stream),
            asyncio.to_thread(trigger.run_until, answered.is_set, timeout_s=30),
        )
        assert response["statusCode"] == 200
        assert (header(response, "content-type") or "").startswith("text/event-stream")
        body = parse_sse(response_body(response))
        assert not body.comments, "a buffered body has no keep-alives"
        results = [e.data["result"] for e in body.events]
        assert results[0]["kind"] == "task"
        assert results[-1]["kind"] == "status-update" and results[-1]["final"] is True
        assert results[-1]["status"]["state"] == "completed"
        ids = [e.id or 0 for e in body.events]
        assert ids == sorted(ids)


async def test_invocations_share_one_loop_and_runtime(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        loops: list[asyncio.AbstractEventLoop] = []
        for _ in range(3):
            response = await asyncio.to_thread(_card_and_loop, h, loops)
            assert response["statusCode"] == 200
        assert len({id(loop) for loop in loops}) == 1
        assert not h.http.container.loop.is_closed()


def _card_and_loop(h: Handlers, loops: list[asyncio.AbstractEventLoop]) -> dict[str, Any]:
    response = h.call_http(http_api_event("GET", "/health"))
    loops.append(asyncio.get_event_loop_policy().get_event_loop())
    return response
