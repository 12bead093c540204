"""A memory store full of active tasks (``memory://?max_tasks=N``) refuses a new task with a
clear error on every binding: 503 with `Retry-After` over REST, -32603 with `data` naming the
limit over JSON-RPC; never a 500. Once a task has finished, a new one takes its place."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from a2a_serverless import InputRequired, Settings, agent, create_app
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.http import Request
from tests.integration.jsonrpc_agents import buffered_request as request

MAX_TASKS = 2
FULL_DATA = {
    "reason": "store-full",
    "limit": "store",
    "store": "the memory store's max_tasks",
    "max": MAX_TASKS,
    "retryAfterSeconds": 5,
}


@agent(name="Asker", description="Asks for more, unless told 'done'.")
def asker(text: str) -> str:
    if text != "done":
        raise InputRequired("more, please")
    return "thanks"


def message(message_id: str, text: str, task_id: str | None = None) -> dict[str, Any]:
    sent: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "messageId": message_id,
        "parts": [{"kind": "text", "text": text}],
    }
    if task_id is not None:
        sent["taskId"] = task_id
    return sent


def rpc(method: str, params: Any, headers: dict[str, str] | None = None) -> Request:
    return request(
        "POST", "/", {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers
    )


@pytest.fixture
async def app() -> AsyncIterator[A2AApplication]:
    application = create_app(asker, Settings(store_url=f"memory://?max_tasks={MAX_TASKS}"))
    try:
        yield application
    finally:
        await application.runtime.aclose()


async def send(app: A2AApplication, sent: dict[str, Any]) -> dict[str, Any]:
    answer = await app.respond_buffered(rpc("message/send", {"message": sent}))
    result: dict[str, Any] = json.loads(answer.body)["result"]
    return result


async def test_a_full_store_refuses_a_new_task_on_every_binding(app: A2AApplication) -> None:
    active = [await send(app, message(f"m-{n}", "hello")) for n in range(MAX_TASKS)]
    assert {task["status"]["state"] for task in active} == {"input-required"}
    v10 = {"a2a-version": "1.0"}
    new = message("m-new", "hello")
    new_v03_rest = {"messageId": "m-new", "role": "ROLE_USER", "content": [{"text": "hello"}]}
    new_v10 = {"messageId": "m-new", "role": "ROLE_USER", "parts": [{"text": "hello"}]}
    asked = {
        "0.3 JSON-RPC": rpc("message/send", {"message": new}),
        "1.0 JSON-RPC": rpc("SendMessage", {"message": new_v10}, v10),
        "0.3 REST": request("POST", "/v1/message:send", {"request": new_v03_rest}),
        "1.0 REST": request("POST", "/message:send", {"message": new_v10}, v10),
    }
    for binding, call in asked.items():
        answer = await app.respond_buffered(call)
        error = json.loads(answer.body)["error"]
        assert (b"retry-after", b"5") in answer.headers, binding
        assert answer.status == (200 if "JSON-RPC" in binding else 503), binding
        assert "at most 2 tasks" in error["message"], binding
        if binding.startswith("0.3"):
            assert error["code"] == -32603 and error["data"] == FULL_DATA, binding
        else:
            details = error["data"] if "JSON-RPC" in binding else error["details"]
            # 1.0's ErrorInfo metadata: every value a string.
            assert details[0]["metadata"] == {k: str(v) for k, v in FULL_DATA.items()}, binding

    # The first task finishes: the next new task takes its place, and the finished one goes.
    first = active[0]
    done = await send(app, message("m-done", "done", task_id=first["id"]))
    assert done["status"]["state"] == "completed"
    assert (await send(app, message("m-later", "hello")))["status"]["state"] == "input-required"
    gone = await app.respond_buffered(rpc("tasks/get", {"id": first["id"]}))
    assert json.loads(gone.body)["error"]["code"] == -32001
