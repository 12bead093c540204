"""Push notification config CRUD over JSON-RPC, and webhook URL validation.

Spec references: §7.6-§7.9 (set/get/list/delete; delete's result is null), §6.8/§6.10
(PushNotificationConfig, TaskPushNotificationConfig), topics/streaming-and-async.md (configs
may come with message/send or message/stream; the `url` is the "HTTPS webhook URL"; servers
SHOULD NOT blindly trust webhook URLs). The service documents: a config without an `id` is the
task's default one (id = task id); https only unless `dev_mode`; deleting twice succeeds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless.push import generate_keys_json
from tests.integration.jsonrpc_agents import (
    parse_sse,
    post,
    request,
    result_of,
    rpc,
    scripted,
    send,
    user_message,
)

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}
# Outside dev mode push is offered only with signing keys configured.
KEYS = generate_keys_json("ES256")
SET = "tasks/pushNotificationConfig/set"
GET = "tasks/pushNotificationConfig/get"
LIST = "tasks/pushNotificationConfig/list"
DELETE = "tasks/pushNotificationConfig/delete"


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(scripted, **FAST) as (client, _app):
        yield client


async def new_task(client: httpx.AsyncClient) -> str:
    task = await send(client, "ask me")  # input-required: a task that is still going on
    return str(task["id"])


async def set_config(client: httpx.AsyncClient, task_id: str, config: dict[str, Any]) -> Any:
    return await result_of(client, SET, {"taskId": task_id, "pushNotificationConfig": config})


async def list_configs(client: httpx.AsyncClient, task_id: str) -> list[dict[str, Any]]:
    configs: list[dict[str, Any]] = await result_of(client, LIST, {"id": task_id})
    for config in configs:
        assert config["taskId"] == task_id
    return sorted(configs, key=lambda c: c["pushNotificationConfig"]["id"])


async def test_set_without_id_defaults_to_the_task_id(client: httpx.AsyncClient) -> None:
    task_id = await new_task(client)
    result = await set_config(client, task_id, {"url": "https://hooks.example.com/a"})
    assert result == {
        "taskId": task_id,
        "pushNotificationConfig": {"url": "https://hooks.example.com/a", "id": task_id},
    }


async def test_crud_round_trip(client: httpx.AsyncClient) -> None:
    task_id = await new_task(client)
    default = await set_config(
        client, task_id, {"url": "https://hooks.example.com/default", "token": "tok-1"}
    )
    named_config = {
        "id": "cfg-2",
        "url": "https://hooks.example.com/named",
        "token": "tok-2",
        "authentication": {"schemes": ["Bearer"], "credentials": "secret"},
    }
    named = await set_config(client, task_id, named_config)
    assert named == {"taskId": task_id, "pushNotificationConfig": named_config}

    # get by id
    got = await result_of(client, GET, {"id": task_id, "pushNotificationConfigId": "cfg-2"})
    assert got == named
    got = await result_of(client, GET, {"id": task_id, "pushNotificationConfigId": task_id})
    assert got == default
    # get without id: the task's default config
    assert await result_of(client, GET, {"id": task_id}) == default

    # list
    assert await list_configs(client, task_id) == sorted(
        [default, named], key=lambda c: c["pushNotificationConfig"]["id"]
    )

    # delete one, then the other: the list ends empty (an empty array, not null)
    body = await rpc(client, DELETE, {"id": task_id, "pushNotificationConfigId": "cfg-2"})
    assert "result" in body and body["result"] is None
    assert await list_configs(client, task_id) == [default]
    body = await rpc(client, DELETE, {"id": task_id, "pushNotificationConfigId": task_id})
    assert "result" in body and body["result"] is None
    assert await result_of(client, LIST, {"id": task_id}) == []

    # deleting what is already gone succeeds (a retried delete is safe)
    body = await rpc(client, DELETE, {"id": task_id, "pushNotificationConfigId": "cfg-2"})
    assert "result" in body and body["result"] is None


async def test_get_without_id_and_no_default_config_is_the_first_config(
    client: httpx.AsyncClient,
) -> None:
    task_id = await new_task(client)
    second = await set_config(client, task_id, {"id": "b", "url": "https://hooks.example.com/b"})
    first = await set_config(client, task_id, {"id": "a", "url": "https://hooks.example.com/a"})
    assert await result_of(client, GET, {"id": task_id}) == first
    await rpc(client, DELETE, {"id": task_id, "pushNotificationConfigId": "a"})
    assert await result_of(client, GET, {"id": task_id}) == second
    # An id given is looked for alone.
    body = await rpc(client, GET, {"id": task_id, "pushNotificationConfigId": task_id})
    assert body["error"]["code"] == -32602
    assert body["error"]["data"] == {"taskId": task_id, "pushNotificationConfigId": task_id}


async def test_set_again_replaces_the_config(client: httpx.AsyncClient) -> None:
    task_id = await new_task(client)
    await set_config(client, task_id, {"id": "c", "url": "https://hooks.example.com/old"})
    await set_config(client, task_id, {"id": "c", "url": "https://hooks.example.com/new"})
    configs = await list_configs(client, task_id)
    assert [c["pushNotificationConfig"] for c in configs] == [
        {"id": "c", "url": "https://hooks.example.com/new"}
    ]


async def test_configs_are_per_task(client: httpx.AsyncClient) -> None:
    first, second = await new_task(client), await new_task(client)
    await set_config(client, first, {"url": "https://hooks.example.com/1"})
    assert await result_of(client, LIST, {"id": second}) == []


async def test_get_of_a_missing_config_is_an_error(client: httpx.AsyncClient) -> None:
    task_id = await new_task(client)
    for params in ({"id": task_id}, {"id": task_id, "pushNotificationConfigId": "nope"}):
        body = await rpc(client, GET, params, request_id="g-1")
        assert "result" not in body, body
        assert body["error"]["code"] != -32603, body


async def test_config_given_with_message_send_is_stored(client: httpx.AsyncClient) -> None:
    config = {"url": "https://hooks.example.com/from-send", "token": "t"}
    task = await send(client, "hello", configuration={"pushNotificationConfig": config})
    configs = await list_configs(client, task["id"])
    assert [c["pushNotificationConfig"] for c in configs] == [{**config, "id": task["id"]}]

    named = {"id": "mine", "url": "https://hooks.example.com/named"}
    task = await send(client, "hello again", configuration={"pushNotificationConfig": named})
    got = await result_of(client, GET, {"id": task["id"], "pushNotificationConfigId": "mine"})
    assert got == {"taskId": task["id"], "pushNotificationConfig": named}


async def test_config_given_with_a_continuation_message_is_stored(
    client: httpx.AsyncClient,
) -> None:
    task_id = await new_task(client)
    config = {"id": "later", "url": "https://hooks.example.com/later"}
    await send(client, "Ada", taskId=task_id, configuration={"pushNotificationConfig": config})
    configs = await list_configs(client, task_id)
    assert [c["pushNotificationConfig"] for c in configs] == [config]


async def test_config_given_with_message_stream_is_stored(client: httpx.AsyncClient) -> None:
    config = {"url": "https://hooks.example.com/from-stream"}
    params = {"message": user_message("hi"), "configuration": {"pushNotificationConfig": config}}
    response = await post(client, request("message/stream", params, "s-1"))
    events = parse_sse(response.text).events
    task_id = events[0].data["result"]["id"]
    configs = await list_configs(client, task_id)
    assert [c["pushNotificationConfig"] for c in configs] == [{**config, "id": task_id}]


# --- webhook URL validation ---------------------------------------------------------------------


async def test_https_required_outside_dev_mode(make_client: Any) -> None:
    async with make_client(scripted, dev_mode=False, push_signing_keys=KEYS, **FAST) as (
        client,
        _app,
    ):
        task_id = await new_task(client)
        body = await rpc(
            client,
            SET,
            {"taskId": task_id, "pushNotificationConfig": {"url": "http://hooks.example.com/a"}},
            request_id="h-1",
        )
        assert body["error"]["code"] == -32602, body
        assert await result_of(client, LIST, {"id": task_id}) == []

        ok = await set_config(client, task_id, {"url": "https://hooks.example.com/a"})
        assert ok["pushNotificationConfig"]["url"] == "https://hooks.example.com/a"

        params = {
            "message": user_message("hello"),
            "configuration": {"pushNotificationConfig": {"url": "http://hooks.example.com/b"}},
        }
        body = await rpc(client, "message/send", params, request_id="h-2")
        assert body["error"]["code"] == -32602, body
        listed = await result_of(client, "tasks/list", {})
        assert listed["totalSize"] == 1, "the refused message must not have created a task"


async def test_http_allowed_in_dev_mode(make_client: Any) -> None:
    async with make_client(scripted, dev_mode=True, **FAST) as (client, _app):
        task_id = await new_task(client)
        result = await set_config(client, task_id, {"url": "http://localhost:9999/hook"})
        assert result["pushNotificationConfig"]["url"] == "http://localhost:9999/hook"
        task = await send(
            client,
            "hello",
            configuration={"pushNotificationConfig": {"url": "http://127.0.0.1:9/hook"}},
        )
        configs = await list_configs(client, task["id"])
        assert [c["pushNotificationConfig"]["url"] for c in configs] == ["http://127.0.0.1:9/hook"]


@pytest.mark.parametrize("dev_mode", [True, False])
@pytest.mark.parametrize(
    "url",
    ["not a url", "", "https://", "https:///path", "//hooks.example.com/a", "ftp://h.example/a"],
)
async def test_malformed_webhook_url(make_client: Any, dev_mode: bool, url: str) -> None:
    async with make_client(scripted, dev_mode=dev_mode, push_signing_keys=KEYS, **FAST) as (
        client,
        _app,
    ):
        task_id = await new_task(client)
        body = await rpc(
            client,
            SET,
            {"taskId": task_id, "pushNotificationConfig": {"url": url}},
            request_id="u-1",
        )
        assert body["error"]["code"] == -32602, body
        params = {
            "message": user_message("hello"),
            "configuration": {"pushNotificationConfig": {"url": url}},
        }
        body = await rpc(client, "message/send", params, request_id="u-2")
        assert body["error"]["code"] == -32602, body
        assert await result_of(client, LIST, {"id": task_id}) == []


@pytest.mark.parametrize(
    "config",
    [{}, {"url": 42}, {"token": "t"}, "https://hooks.example.com/a"],
    ids=["empty", "url-not-string", "url-missing", "not-an-object"],
)
async def test_invalid_config_object(client: httpx.AsyncClient, config: Any) -> None:
    task_id = await new_task(client)
    body = await rpc(
        client, SET, {"taskId": task_id, "pushNotificationConfig": config}, request_id="i-1"
    )
    assert body["error"]["code"] == -32602, body
