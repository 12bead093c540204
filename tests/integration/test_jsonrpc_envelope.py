"""The JSON-RPC envelope: ids echoed exactly, notifications, `result: null`, content types,
mounting under a root path.

Spec references: §3.2.1 and §7 (JSON-RPC over HTTP POST, `application/json`), §6.11.1 (`id`:
"The Server MUST reply with the same value"; no `id` = notification), §6.11.2 (`result` REQUIRED
on success), §7.9 (`tasks/pushNotificationConfig/delete` result is `null`).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.integration.jsonrpc_agents import (
    CALLS,
    JSON_HEADERS,
    eventually,
    new_id,
    post,
    request,
    result_of,
    rpc,
    scripted,
    send,
    streamer,
    user_message,
)

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(scripted, **FAST) as (client, _app):
        yield client


def notification(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


async def assert_no_reply(response: httpx.Response) -> None:
    assert response.status_code == 204, (response.status_code, response.text)
    assert response.content == b""


# --- ids ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_id",
    ["abc", "", 'ünïcødé 🙂 "quoted"', "00123", 0, 1, -5, 2**53 + 1, 2**63 + 7],
    ids=["str", "empty-str", "unicode", "numeric-str", "zero", "one", "negative", "2^53+1", "big"],
)
async def test_id_is_echoed_exactly(client: httpx.AsyncClient, request_id: Any) -> None:
    response = await post(client, request("tasks/list", {}, request_id))
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == request_id
    assert type(body["id"]) is type(request_id)
    assert "result" in body and "error" not in body


async def test_explicit_null_id_is_a_request_not_a_notification(client: httpx.AsyncClient) -> None:
    # `"id": null` is allowed (SHOULD NOT, but not invalid); it is answered, with id null.
    response = await post(client, request("tasks/list", {}, None))
    assert response.status_code == 200
    body = response.json()
    assert "id" in body and body["id"] is None
    assert "result" in body


async def test_error_response_echoes_id(client: httpx.AsyncClient) -> None:
    for request_id in ("get-1", 42):
        body = await rpc(client, "tasks/get", {"id": "missing"}, request_id=request_id)
        assert body["id"] == request_id
        assert type(body["id"]) is type(request_id)
        assert body["error"]["code"] == -32001


async def test_success_response_shape_and_content_type(client: httpx.AsyncClient) -> None:
    response = await post(client, request("message/send", {"message": user_message("hi")}, "s-1"))
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0].strip() == "application/json"
    body = response.json()
    assert set(body) == {"jsonrpc", "id", "result"}
    assert body["jsonrpc"] == "2.0"
    assert body["result"]["kind"] == "task"


# --- notifications ------------------------------------------------------------------------------


async def test_message_send_notification_is_executed_without_reply(
    client: httpx.AsyncClient,
) -> None:
    text = f"notify {new_id()}"
    response = await post(client, notification("message/send", {"message": user_message(text)}))
    await assert_no_reply(response)

    async def completed() -> list[dict[str, Any]]:
        listed = await result_of(client, "tasks/list", {"status": "completed"})
        return listed["tasks"]

    tasks = await eventually(completed)
    assert len(tasks) == 1
    listed = await result_of(client, "tasks/list", {})
    assert listed["totalSize"] == 1
    assert CALLS[text] == 1


async def test_blocking_message_send_notification_is_answered_at_once(make_client: Any) -> None:
    # Nobody reads a notification's answer, so even a blocking send must not hold the request.
    async with make_client(streamer, **FAST) as (client, _app):
        params = {"message": user_message("1 3.0"), "configuration": {"blocking": True}}
        started = time.monotonic()
        await assert_no_reply(await post(client, notification("message/send", params)))
        assert time.monotonic() - started < 1.5
        listed = await result_of(client, "tasks/list", {})
        assert listed["totalSize"] == 1
        assert listed["tasks"][0]["status"]["state"] in ("submitted", "working")


async def test_message_stream_notification_is_executed_without_reply(
    client: httpx.AsyncClient,
) -> None:
    text = f"notify-stream {new_id()}"
    response = await post(client, notification("message/stream", {"message": user_message(text)}))
    await assert_no_reply(response)

    async def finished() -> Any:
        listed = await result_of(client, "tasks/list", {"status": "completed"})
        return listed["totalSize"] == 1

    await eventually(finished)
    assert CALLS[text] == 1


async def test_cancel_notification_is_executed(client: httpx.AsyncClient) -> None:
    task = await send(client, "ask me")
    assert task["status"]["state"] == "input-required"
    await assert_no_reply(await post(client, notification("tasks/cancel", {"id": task["id"]})))
    after = await result_of(client, "tasks/get", {"id": task["id"]})
    assert after["status"]["state"] == "canceled"


async def test_push_config_set_notification_is_executed(client: httpx.AsyncClient) -> None:
    task = await send(client, "hello")
    params = {"taskId": task["id"], "pushNotificationConfig": {"url": "https://h.example/hook"}}
    await assert_no_reply(
        await post(client, notification("tasks/pushNotificationConfig/set", params))
    )
    configs = await result_of(client, "tasks/pushNotificationConfig/list", {"id": task["id"]})
    assert [c["pushNotificationConfig"]["url"] for c in configs] == ["https://h.example/hook"]


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tasks/get", {"id": "no-such-task"}),
        ("tasks/unknown", {}),
        ("tasks/get", {}),
        ("message/send", {"message": {"role": "user"}}),
    ],
    ids=["task-not-found", "method-not-found", "invalid-params", "invalid-message"],
)
async def test_failing_notification_gets_no_reply(
    client: httpx.AsyncClient, method: str, params: Any
) -> None:
    # JSON-RPC 2.0 §4.1: errors of notifications are not returned.
    await assert_no_reply(await post(client, notification(method, params)))


# --- result null ----------------------------------------------------------------------------------


async def test_push_config_delete_result_is_present_and_null(client: httpx.AsyncClient) -> None:
    task = await send(client, "hello")
    config = {"url": "https://h.example/hook", "id": "cfg"}
    await result_of(
        client,
        "tasks/pushNotificationConfig/set",
        {"taskId": task["id"], "pushNotificationConfig": config},
    )
    response = await post(
        client,
        request(
            "tasks/pushNotificationConfig/delete",
            {"id": task["id"], "pushNotificationConfigId": "cfg"},
            "del-1",
        ),
    )
    assert response.status_code == 200
    body = json.loads(response.content)
    assert body == {"jsonrpc": "2.0", "id": "del-1", "result": None}
    assert '"result":null' in response.text.replace(" ", "")


# --- transport details --------------------------------------------------------------------------


async def test_body_over_the_limit_is_refused(make_client: Any) -> None:
    async with make_client(scripted, max_body_bytes=512, **FAST) as (client, _app):
        params = {"message": user_message("x" * 2000)}
        response = await post(client, request("message/send", params, "big-1"))
        assert response.status_code == 413
        body = response.json()
        assert body["error"]["code"] == -32600
        assert "result" not in body
        listed = await result_of(client, "tasks/list", {})
        assert listed["totalSize"] == 0


async def test_get_on_the_endpoint_is_not_allowed(client: httpx.AsyncClient) -> None:
    response = await client.get("/")
    assert response.status_code == 405


@pytest.mark.parametrize(
    ("root_path", "url"),
    [
        ("/agent", "/agent/"),  # path includes the mount prefix (Starlette's Mount)
        ("/agent", "/agent"),
        ("/agent", "/"),  # servers that strip the prefix themselves
        ("/a/b", "/a/b/"),
    ],
)
async def test_endpoint_works_under_a_root_path(make_client: Any, root_path: str, url: str) -> None:
    async with make_client(scripted, **FAST) as (_plain, app):
        transport = httpx.ASGITransport(app=app, root_path=root_path)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            task = await result_of_at(client, url, "message/send", {"message": user_message("hi")})
            assert task["status"]["state"] == "completed"
            got = await result_of_at(client, url, "tasks/get", {"id": task["id"]})
            assert got["id"] == task["id"]


async def result_of_at(client: httpx.AsyncClient, url: str, method: str, params: Any) -> Any:
    response = await client.post(
        url, content=json.dumps(request(method, params, 1)), headers=JSON_HEADERS
    )
    assert response.status_code == 200, (url, response.status_code, response.text)
    body = response.json()
    assert "result" in body, body
    return body["result"]
