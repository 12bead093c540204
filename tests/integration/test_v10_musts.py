"""Four MUSTs of spec 1.0 the kit once missed, each over both 1.0 bindings, with 0.3's answer
beside it where 0.3's spec says otherwise (or nothing):

1. a message to a task in a terminal state: UnsupportedOperationError (§3.1.1); 0.3 says only
   "an error" (its message/send section), and keeps invalid params;
2. GetExtendedAgentCard on a card with `extendedAgentCard: false`: UnsupportedOperationError
   (§3.3.4); 0.3 has only AuthenticatedExtendedCardNotConfigured (-32007), kept;
3. getting a push config that does not exist: TaskNotFoundError (§3.1.8); deleting it is a
   success, as deleting is idempotent (§3.1.10); 0.3 names no error, and keeps invalid params;
4. a card without `streaming: true` refuses streaming requests with UnsupportedOperationError
   (§3.3.4), on 0.3 too (its message/stream "requires" the capability). Buffered streams are
   opt-in (`buffered_streams`), and then the card says `streaming: true`.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.jsonrpc_agents import error_of, rpc, scripted, send, user_message

V10 = {"A2A-Version": "1.0"}
FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}
BINDINGS = ["jsonrpc", "rest"]


def v1_message(text: str, **fields: Any) -> dict[str, Any]:
    return {"messageId": user_message(text)["messageId"], "role": "ROLE_USER", **fields} | {
        "parts": [{"text": text}]
    }


async def v1_call(
    client: httpx.AsyncClient, binding: str, method: str, params: dict[str, Any]
) -> tuple[int, str]:
    """Call a 1.0 method over `binding`: the JSON-RPC error code or the REST status and reason
    (0 and "" when it succeeded)."""
    if binding == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        response = await client.post("/", json=body, headers=V10)
        assert response.status_code == 200, response.text
        reply = error_of(response)
        error = reply.get("error")
        return (error["code"], error["data"][0]["reason"]) if error else (0, "")
    verb, path, body_params = REST[method](params)
    response = await client.request(verb, path, json=body_params, headers=V10)
    if response.status_code == 200:
        return 0, ""
    info = response.json()["error"]["details"][0]
    return response.status_code, info["reason"]


REST: dict[str, Any] = {
    "SendMessage": lambda p: ("POST", "/message:send", p),
    "SendStreamingMessage": lambda p: ("POST", "/message:stream", p),
    "SubscribeToTask": lambda p: ("GET", f"/tasks/{p['id']}:subscribe", None),
    "GetExtendedAgentCard": lambda p: ("GET", "/extendedAgentCard", None),
    "GetTaskPushNotificationConfig": lambda p: (
        "GET",
        f"/tasks/{p['taskId']}/pushNotificationConfigs/{p['id']}",
        None,
    ),
    "DeleteTaskPushNotificationConfig": lambda p: (
        "DELETE",
        f"/tasks/{p['taskId']}/pushNotificationConfigs/{p['id']}",
        None,
    ),
}

UNSUPPORTED = {"jsonrpc": (-32004, "UNSUPPORTED_OPERATION"), "rest": (400, "UNSUPPORTED_OPERATION")}
TASK_NOT_FOUND = {"jsonrpc": (-32001, "TASK_NOT_FOUND"), "rest": (404, "TASK_NOT_FOUND")}


@pytest.fixture
async def client(make_client: Any) -> Any:
    async with make_client(scripted, **FAST) as (client, _app):
        yield client


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_message_to_a_finished_task_is_unsupported(
    client: httpx.AsyncClient, binding: str
) -> None:
    task = await send(client, "hello")
    assert task["status"]["state"] == "completed"
    params = {"message": v1_message("more", taskId=task["id"])}
    assert await v1_call(client, binding, "SendMessage", params) == UNSUPPORTED[binding]
    assert await v1_call(client, binding, "SendStreamingMessage", params) == UNSUPPORTED[binding]


async def test_a_message_to_a_finished_task_over_0_3_is_invalid_params(
    client: httpx.AsyncClient,
) -> None:
    task = await send(client, "hello")
    message = user_message("more", taskId=task["id"])
    body = await rpc(client, "message/send", {"message": message})
    assert body["error"]["code"] == -32602
    assert body["error"]["data"]["state"] == "completed"
    rest = {"message": {**message, "content": message.pop("parts")}}
    response = await client.post("/v1/message:send", json=rest)
    assert response.status_code == 400, response.text


@pytest.mark.parametrize("binding", BINDINGS)
async def test_an_undeclared_extended_card_is_unsupported(
    client: httpx.AsyncClient, binding: str
) -> None:
    card = (await client.get("/.well-known/agent-card.json")).json()
    assert card["capabilities"]["extendedAgentCard"] is False
    assert await v1_call(client, binding, "GetExtendedAgentCard", {}) == UNSUPPORTED[binding]
    body = await rpc(client, "agent/getAuthenticatedExtendedCard")
    assert body["error"]["code"] == -32007


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_push_config_that_does_not_exist(client: httpx.AsyncClient, binding: str) -> None:
    task = await send(client, "hello")
    params = {"taskId": task["id"], "id": "nothing"}
    got = await v1_call(client, binding, "GetTaskPushNotificationConfig", params)
    assert got == TASK_NOT_FOUND[binding]
    assert await v1_call(client, binding, "DeleteTaskPushNotificationConfig", params) == (0, "")
    # 0.3 keeps invalid params for the get.
    v03 = {"id": task["id"], "pushNotificationConfigId": "nothing"}
    body = await rpc(client, "tasks/pushNotificationConfig/get", v03)
    assert body["error"]["code"] == -32602


@pytest.mark.parametrize("binding", BINDINGS)
async def test_streams_are_refused_where_the_card_says_no_streaming(
    make_client: Any, binding: str
) -> None:
    async with make_client(scripted, **FAST, streaming=False) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["capabilities"]["streaming"] is False
        params = {"message": v1_message("hello")}
        assert (
            await v1_call(client, binding, "SendStreamingMessage", params) == UNSUPPORTED[binding]
        )
        task = await send(client, "hello")
        subscribe = await v1_call(client, binding, "SubscribeToTask", {"id": task["id"]})
        assert subscribe == UNSUPPORTED[binding]
        v03_params = {"message": user_message("hello")}
        v03 = await client.post(
            "/", json={"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": v03_params}
        )
        assert error_of(v03)["error"]["code"] == -32004


async def test_buffered_streams_are_declared(make_client: Any) -> None:
    settings = {**FAST, "streaming": False, "buffered_streams": True}
    async with make_client(scripted, **settings) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["capabilities"]["streaming"] is True
        params = {"message": v1_message("hello")}
        assert await v1_call(client, "rest", "SendStreamingMessage", params) == (0, "")
