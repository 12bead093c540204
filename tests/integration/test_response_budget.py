"""A platform's response limit (budget.py), through the app's buffered entry in every binding.

The entry points that answer on a limited platform (the AWS HTTP handler: 6 MiB; the GCP HTTP
function: 32 MiB for whole answers) hand `respond_buffered` a `ResponseBudget`; here a small
one, so that a task of a few hundred KB passes it. A whole answer over it is each binding's
typed error naming the limit and the figure; gzip, for a client that accepts it, makes the
same answer fit; a buffered stream stops before the event that would not fit and ends with the
error in its own form, and resuming from the event it names reads the rest.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from a2a_serverless import Context, Settings, agent, create_app
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.budget import ResponseBudget, accepts_gzip, response_limit
from a2a_serverless.http import Request, Response
from tests.integration.jsonrpc_agents import buffered_request as request

LIMIT = 60_000
CHUNKS, SIZE = 10, 20_000


@agent(name="Big", description="Answers <count> chunks of <size> characters.")
async def big(ctx: Context) -> AsyncIterator[str]:
    count, size = (int(word) for word in ctx.text.split())
    for index in range(count):
        yield f"{index:03d}" + "abcdefghij"[index] * size


def chunk(index: int) -> str:
    return f"{index:03d}" + "abcdefghij"[index] * SIZE


def rpc(method: str, params: Any, headers: dict[str, str] | None = None) -> Request:
    return request(
        "POST", "/", {"jsonrpc": "2.0", "id": 9, "method": method, "params": params}, headers
    )


def body_of(response: Response) -> bytes:
    if (b"content-encoding", b"gzip") in response.headers:
        return gzip.decompress(response.body)
    return response.body


@pytest.fixture
async def app() -> AsyncIterator[A2AApplication]:
    settings = Settings(
        store_url="memory://",
        dev_mode=True,
        streaming=False,
        buffered_streams=True,
        blocking_timeout_s=5.0,
        poll_interval_s=0.02,
    )
    application = create_app(big, settings)
    try:
        yield application
    finally:
        await application.runtime.aclose()


async def big_task(app: A2AApplication) -> str:
    message = {
        "kind": "message",
        "role": "user",
        "messageId": "m-1",
        "parts": [{"kind": "text", "text": f"{CHUNKS} {SIZE}"}],
    }
    answer = await app.respond_buffered(rpc("message/send", {"message": message}))
    task = json.loads(answer.body)["result"]
    assert task["status"]["state"] == "completed"
    return str(task["id"])


def get_task(task_id: str, headers: dict[str, str]) -> dict[str, Request]:
    one = {"a2a-version": "1.0", **headers}
    return {
        "0.3 JSON-RPC": rpc("tasks/get", {"id": task_id}, headers),
        "1.0 JSON-RPC": rpc("GetTask", {"id": task_id}, one),
        "0.3 REST": request("GET", f"/v1/tasks/{task_id}", None, headers),
        "1.0 REST": request("GET", f"/tasks/{task_id}", None, one),
    }


async def test_a_whole_answer_over_the_budget_is_each_bindings_typed_error(
    app: A2AApplication,
) -> None:
    task_id = await big_task(app)
    budget = ResponseBudget(LIMIT, "Test Cloud", compress=True)
    for binding, asked in get_task(task_id, {}).items():
        answer = await app.respond_buffered(asked, budget)
        payload = json.loads(answer.body)
        error = payload["error"]
        if "JSON-RPC" in binding:
            assert answer.status == 200
            assert error["code"] == -32004, (binding, error)
            assert payload["id"] == 9
        else:
            assert answer.status == 400, binding
        assert f"Test Cloud passes on at most {LIMIT} (A2A_MAX_RESPONSE_BYTES)" in error["message"]
        assert "historyLength=0" in error["message"]
        assert "Accept-Encoding: gzip" in error["message"]
        if binding == "1.0 REST":
            assert error["status"] == "FAILED_PRECONDITION"
            assert error["details"][0]["reason"] == "UNSUPPORTED_OPERATION"
            assert error["details"][0]["metadata"]["max"] == str(LIMIT)
        elif binding == "1.0 JSON-RPC":
            assert error["data"][0]["metadata"]["limit"] == "max_response_bytes"
        else:
            data = error["data"]
            assert (data["limit"], data["max"], data["platform"]) == (
                "max_response_bytes",
                LIMIT,
                "Test Cloud",
            )
            assert data["actual"] > LIMIT


async def test_gzip_makes_the_same_answer_fit(app: A2AApplication) -> None:
    task_id = await big_task(app)
    budget = ResponseBudget(LIMIT, "Test Cloud", compress=True)
    for binding, asked in get_task(task_id, {"accept-encoding": "gzip, br"}).items():
        answer = await app.respond_buffered(asked, budget)
        assert answer.status == 200, binding
        assert (b"content-encoding", b"gzip") in answer.headers
        assert len(answer.body) <= LIMIT
        payload = json.loads(body_of(answer))
        task = payload["result"] if "JSON-RPC" in binding else payload
        texts = [part["text"] for part in task["artifacts"][0]["parts"]]
        assert "".join(texts) == "".join(chunk(i) for i in range(CHUNKS)), binding


async def test_a_small_answer_is_left_as_it_is(app: A2AApplication) -> None:
    budget = ResponseBudget(LIMIT, "Test Cloud", compress=True)
    answer = await app.respond_buffered(
        request("GET", "/.well-known/agent-card.json", None, {"accept-encoding": "gzip"}), budget
    )
    assert answer.status == 200
    assert json.loads(answer.body)["name"] == "Big"


def events_of(text: str) -> list[tuple[int | None, str | None, Any]]:
    found = []
    for block in text.split("\n\n"):
        if not block.strip():
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


def subscribe(binding: str, task_id: str, after: int | None, gzip_ok: bool) -> Request:
    headers = {"accept-encoding": "gzip"} if gzip_ok else {}
    if after is not None:
        headers["last-event-id"] = str(after)
    if binding == "0.3 JSON-RPC":
        return rpc("tasks/resubscribe", {"id": task_id}, headers)
    if binding == "1.0 JSON-RPC":
        return rpc("SubscribeToTask", {"id": task_id}, {"a2a-version": "1.0", **headers})
    if binding == "0.3 REST":
        return request("POST", f"/v1/tasks/{task_id}:subscribe", None, headers)
    return request("POST", f"/tasks/{task_id}:subscribe", None, {"a2a-version": "1.0", **headers})


def artifact_text(binding: str, data: Any) -> str | None:
    if binding == "0.3 REST":
        update = data.get("artifactUpdate")
    elif binding.startswith("1.0"):
        result = data["result"] if "JSON-RPC" in binding else data
        update = result.get("artifactUpdate")
    else:
        result = data["result"]
        update = result if result.get("kind") == "artifact-update" else None
    if update is None:
        return None
    return "".join(part["text"] for part in update["artifact"]["parts"])


@pytest.mark.parametrize("gzip_ok", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("binding", ["0.3 JSON-RPC", "1.0 JSON-RPC", "0.3 REST", "1.0 REST"])
async def test_a_buffered_stream_stops_at_the_budget_with_an_error_and_resumes(
    app: A2AApplication, binding: str, gzip_ok: bool
) -> None:
    task_id = await big_task(app)
    # Room for two chunks at a time, plain; gzipped, the whole stream fits at once.
    budget = ResponseBudget(45_000, "Test Cloud", compress=True)
    texts: list[str] = []
    after, answers = 0, 0
    while True:
        answer = await app.respond_buffered(subscribe(binding, task_id, after, gzip_ok), budget)
        answers += 1
        assert answer.status == 200 and answer.events is None
        assert len(answer.body) <= budget.limit
        stopped = False
        for event_id, name, data in events_of(body_of(answer).decode()):
            error = None
            if "JSON-RPC" in binding and "error" in data:
                error = data["error"]
                assert error["code"] == -32004
            elif name == "error":
                error = data["error"]
                assert error["status"] in ("Bad Request", "FAILED_PRECONDITION"), error
            if error is not None:
                assert f"resubscribe with Last-Event-ID: {after}" in error["message"], error
                stopped = True
                break
            assert event_id is not None
            after = event_id
            text = artifact_text(binding, data)
            if text:  # the function agent's closing update (lastChunk) has no text
                texts.append(text)
        if not stopped:
            break
        assert answers < 20
    assert texts == [chunk(i) for i in range(CHUNKS)]
    assert (answers == 1) if gzip_ok else (answers >= CHUNKS // 2)


async def test_an_event_too_large_alone_ends_the_stream_at_once(app: A2AApplication) -> None:
    task_id = await big_task(app)
    budget = ResponseBudget(15_000, "Test Cloud")
    # Without Last-Event-ID the stream begins with the Task, artifacts and all (200 KB).
    answer = await app.respond_buffered(subscribe("0.3 JSON-RPC", task_id, None, False), budget)
    ((event_id, _, data),) = events_of(answer.body.decode())
    assert event_id is None
    error = data["error"]
    assert "before its first event" in error["message"]
    assert "That event alone is too large" in error["message"]
    assert "lastEventId" not in error["data"]


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("br;q=1.0, gzip;q=0", False),
        ("*", True),
        ("*;q=0", False),
        ("identity", False),
        ("GZIP", True),
        ("gzip;q=abc", False),
        ("", False),
    ],
)
def test_accept_encoding(header: str, accepted: bool) -> None:
    assert accepts_gzip({"accept-encoding": header}) is accepted


def test_the_setting_or_the_platforms_own() -> None:
    assert response_limit(None, 6_291_456) == 6_291_456
    assert response_limit(1000, 6_291_456) == 1000
    assert response_limit(0, 6_291_456) is None
