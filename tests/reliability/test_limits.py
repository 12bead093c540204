"""The request limits and the strict JSON rules, over both transports (limits.py).

Each limit refuses a request over it with an error whose `data` names the limit (`limit`, the
`A2A_*` setting, `max`, `actual`) before anything is stored, and accepts one right at it. The
cases the fuzzers found are pinned here too, so they stay fixed: lone surrogates, NaN, deep
nesting, huge numbers in Last-Event-ID and query parameters, header-unsafe push tokens.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless import InvalidParamsError, Settings
from a2a_serverless.http import json_bytes
from a2a_serverless.limits import MAX_INT64, LimitExceededError, decoded_size, parse_json
from a2a_serverless.models import ListTasksRequest, SendMessageRequest, TaskPushNotificationConfig
from a2a_serverless.runtime import Runtime
from a2a_serverless.service import Caller
from a2a_serverless.store.base import TaskQuery
from tests.reliability.harness import fuzz_agent

SMALL = {
    "max_json_depth": 8,
    "max_message_parts": 5,
    "max_file_bytes": 1000,
    "max_message_file_bytes": 1500,
    "max_body_bytes": 64 * 1024,
    "blocking_timeout_s": 5.0,
    "poll_interval_s": 0.02,
    "stream_timeout_s": 5.0,
}
JSON_HEADERS = {"content-type": "application/json"}
TRANSPORTS = ["jsonrpc", "rest"]


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(fuzz_agent, **SMALL) as (client, _app):
        yield client


def text_part(text: str = "hi") -> dict[str, Any]:
    return {"kind": "text", "text": text}


def file_part(size: int) -> dict[str, Any]:
    content = base64.b64encode(b"x" * size).decode()
    return {"kind": "file", "file": {"bytes": content, "mimeType": "application/octet-stream"}}


def to_rest_part(part: dict[str, Any]) -> dict[str, Any]:
    if part["kind"] == "text":
        return {"text": part["text"]}
    if part["kind"] == "data":
        return {"data": {"data": part["data"]}}
    inner = part["file"]["bytes"].encode()
    return {"file": {"fileWithBytes": base64.b64encode(inner).decode(), "mimeType": "x/y"}}


_counter = 0


async def send(
    client: httpx.AsyncClient, transport: str, parts: list[dict[str, Any]], **extra: Any
) -> httpx.Response:
    """message/send (non-blocking) with these parts, over one transport."""
    global _counter
    _counter += 1
    if transport == "jsonrpc":
        message = {"role": "user", "messageId": f"lim-{_counter}", "parts": parts}
        params = {"message": message, "configuration": {"blocking": False}, **extra}
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
        return await client.post("/", json=body)
    rest_message = {
        "messageId": f"lim-{_counter}",
        "role": "ROLE_USER",
        "content": [to_rest_part(p) for p in parts],
    }
    return await client.post("/v1/message:send", json={"message": rest_message, **extra})


def error_of(response: httpx.Response, transport: str, status: int, code: int) -> dict[str, Any]:
    """The error of a refused request, checked for its transport's status and shape."""
    if transport == "jsonrpc":
        assert response.status_code == (200 if status != 413 or code != -32600 else 413)
        body = response.json()
        assert "result" not in body, body
    else:
        assert response.status_code == status, response.text
        body = response.json()
    error: dict[str, Any] = body["error"]
    assert error["code"] == code, error
    return error


async def stored_tasks(client: httpx.AsyncClient) -> int:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": {}}
    listed = (await client.post("/", json=body)).json()
    return int(listed["result"]["totalSize"])


def limit_of(error: dict[str, Any], name: str, maximum: int, actual: int | None) -> None:
    expected = {"limit": name, "setting": f"A2A_{name.upper()}", "max": maximum}
    if actual is not None:
        expected["actual"] = actual
    assert error["data"] == expected, error


# --- the configurable limits --------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_parts_per_message(client: httpx.AsyncClient, transport: str) -> None:
    accepted = await send(client, transport, [text_part()] * 5)
    assert accepted.status_code == 200 and "error" not in accepted.json(), accepted.text
    refused = await send(client, transport, [text_part()] * 6)
    limit_of(error_of(refused, transport, 400, -32602), "max_message_parts", 5, 6)
    # A huge list is refused the same way, before its parts are validated.
    huge = await send(client, transport, [text_part()] * 1500)
    limit_of(error_of(huge, transport, 400, -32602), "max_message_parts", 5, 1500)
    assert await stored_tasks(client) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_bytes_per_file(client: httpx.AsyncClient, transport: str) -> None:
    accepted = await send(client, transport, [file_part(1000)])
    assert accepted.status_code == 200 and "error" not in accepted.json(), accepted.text
    refused = await send(client, transport, [text_part(), file_part(1001)])
    error = error_of(refused, transport, 413, -32602)
    limit_of(error, "max_file_bytes", 1000, 1001)
    assert "part 1" in error["message"]
    assert await stored_tasks(client) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_file_bytes_per_message(client: httpx.AsyncClient, transport: str) -> None:
    accepted = await send(client, transport, [file_part(750), file_part(750)])
    assert accepted.status_code == 200 and "error" not in accepted.json(), accepted.text
    refused = await send(client, transport, [file_part(750), file_part(751)])
    limit_of(error_of(refused, transport, 413, -32602), "max_message_file_bytes", 1500, 1501)
    assert await stored_tasks(client) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_json_depth(client: httpx.AsyncClient, transport: str) -> None:
    def data(levels: int) -> dict[str, Any]:
        value: dict[str, Any] = {}
        for _ in range(levels):
            value = {"a": value}
        return value

    # A DataPart's data sits 6 levels deep over both (REST: body, message, content, part,
    # DataPart, its Struct), so 2 levels are left under the limit of 8.
    accepted = await send(client, transport, [{"kind": "data", "data": data(2)}])
    assert accepted.status_code == 200 and "error" not in accepted.json(), accepted.text
    refused = await send(client, transport, [{"kind": "data", "data": data(3)}])
    limit_of(error_of(refused, transport, 400, -32600), "max_json_depth", 8, None)
    assert await stored_tasks(client) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_nesting_beyond_what_the_parser_can_take(
    client: httpx.AsyncClient, transport: str
) -> None:
    body = b'{"message":' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    path = "/" if transport == "jsonrpc" else "/v1/message:send"
    response = await client.post(path, content=body, headers=JSON_HEADERS)
    limit_of(error_of(response, transport, 400, -32600), "max_json_depth", 8, None)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_body_size(client: httpx.AsyncClient, transport: str) -> None:
    response = await send(client, transport, [text_part("x" * 70_000)])
    error = error_of(response, transport, 413, -32600)
    limit_of(error, "max_body_bytes", 64 * 1024, None)


def test_limits_are_settings_with_environment_variables() -> None:
    defaults = Settings()
    assert (defaults.max_json_depth, defaults.max_message_parts) == (32, 100)
    assert (defaults.max_file_bytes, defaults.max_message_file_bytes) == (4 << 20, 6 << 20)
    environ = {
        "A2A_MAX_JSON_DEPTH": "10",
        "A2A_MAX_MESSAGE_PARTS": "3",
        "A2A_MAX_FILE_BYTES": "100",
        "A2A_MAX_MESSAGE_FILE_BYTES": "200",
    }
    settings = Settings.from_env(environ)
    assert (settings.max_json_depth, settings.max_message_parts) == (10, 3)
    assert (settings.max_file_bytes, settings.max_message_file_bytes) == (100, 200)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5, 1000, 1001])
def test_decoded_size_is_exact_for_base64(size: int) -> None:
    assert decoded_size(base64.b64encode(b"\x00" * size).decode()) == size
    assert decoded_size(base64.b64encode(b"\x00" * size).decode().rstrip("=")) == size


# --- strict JSON ----------------------------------------------------------------------------------

NOT_JSON = {
    "nan": b'{"message":{"messageId":"m","role":"ROLE_USER","content":[]},"metadata":{"x":NaN}}',
    "infinity": b'{"a":-Infinity}',
    "overflow": b'{"a":1e400}',
    "too-many-digits": b'{"a":' + b"1" * 5000 + b"}",
    "lone-surrogate-escape": b'{"a":"\\ud800"}',
    "lone-low-surrogate": b'{"a":"x\\udc00y"}',
    "surrogate-in-key": b'{"\\udfff":1}',
    "surrogate-bytes": b'{"a":"\xed\xa0\x80"}',
    "utf-16": '{"a":1}'.encode("utf-16"),
    "bom": b'\xef\xbb\xbf{"a":1}',
    "latin-1": b'{"a":"caf\xe9"}',
}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("raw", NOT_JSON.values(), ids=NOT_JSON.keys())
async def test_bodies_that_are_not_strict_json(
    client: httpx.AsyncClient, transport: str, raw: bytes
) -> None:
    path = "/" if transport == "jsonrpc" else "/v1/message:send"
    response = await client.post(path, content=raw, headers=JSON_HEADERS)
    error = error_of(response, transport, 400, -32700)
    if transport == "jsonrpc":
        assert response.json()["id"] is None
    assert "Traceback" not in response.text
    assert await stored_tasks(client) == 0
    del error


def test_a_valid_surrogate_pair_is_fine() -> None:
    assert parse_json(b'{"a":"\\ud83d\\ude00"}', 8) == {"a": "\U0001f600"}
    assert parse_json('{"a":"\U0001f600"}'.encode(), 8) == {"a": "\U0001f600"}


async def test_duplicate_keys_last_one_wins(client: httpx.AsyncClient) -> None:
    raw = b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","method":"tasks/list","params":{}}'
    body = (await client.post("/", content=raw, headers=JSON_HEADERS)).json()
    assert body["result"]["tasks"] == []


def test_answers_never_fail_on_a_lone_surrogate() -> None:
    # Requests cannot bring one in, but an agent can produce one: the answer escapes it.
    encoded = json_bytes({"text": "a\ud800b", "ok": "é"})
    assert encoded == b'{"text":"a\\ud800b","ok":"\\u00e9"}'
    assert json_bytes({"ok": "é"}) == '{"ok":"é"}'.encode()


# --- numbers a store cannot hold, and odd digits ------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("value", ["\u00b2", "1" * 5000, str(MAX_INT64 + 1), "-1", "1.5"], ids=str)
async def test_last_event_id_must_be_a_64_bit_event_number(
    client: httpx.AsyncClient, transport: str, value: str
) -> None:
    task = (await send(client, transport, [text_part()])).json()
    task_id = task["result"]["id"] if transport == "jsonrpc" else task["task"]["id"]
    headers = [(b"last-event-id", value.encode("latin-1"))]
    if transport == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/resubscribe", "params": {"id": task_id}}
        response = await client.post("/", json=body, headers=headers)
        assert response.status_code == 200
        data = response.text.split("data: ", 1)[1]
        assert json.loads(data)["error"]["code"] == -32602
    else:
        response = await client.get(f"/v1/tasks/{task_id}:subscribe", headers=headers)
        error_of(response, transport, 400, -32602)


async def test_last_updated_after_must_fit_in_64_bits(client: httpx.AsyncClient) -> None:
    params = {"lastUpdatedAfter": MAX_INT64 + 1}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": params}
    error = (await client.post("/", json=body)).json()["error"]
    assert error["code"] == -32602
    assert error["data"]["errors"][0]["field"] == "lastUpdatedAfter"
    response = await client.get(f"/v1/tasks?lastUpdatedAfter={MAX_INT64 + 1}")
    error_of(response, "rest", 400, -32602)
    response = await client.get(f"/v1/tasks?lastUpdatedAfter={MAX_INT64}")
    assert response.status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        "pageSize=1_0",
        "pageSize=%205",
        "pageSize=%2B5",
        "pageSize=5.0",
        "historyLength=" + "9" * 5000,
        "status=" + "9" * 5000,
        "status=%C2%B2",
        "includeArtifacts=yes",
        "includeArtifacts=on",
        "lastUpdatedTime=2020-01-01",
        "lastUpdatedTime=2020-01-01T00:00:00",
        "lastUpdatedTime=soon",
    ],
)
async def test_rest_query_values_are_read_strictly(client: httpx.AsyncClient, query: str) -> None:
    error_of(await client.get(f"/v1/tasks?{query}"), "rest", 400, -32602)


async def test_a_time_before_the_epoch_filters_nothing(client: httpx.AsyncClient) -> None:
    await send(client, "rest", [text_part()])
    response = await client.get("/v1/tasks?lastUpdatedTime=1900-01-01T00:00:00Z")
    assert response.status_code == 200
    assert response.json()["totalSize"] == 1


async def test_a_field_under_both_of_its_names_is_refused(client: httpx.AsyncClient) -> None:
    message = {
        "messageId": "both",
        "message_id": "both",
        "role": "ROLE_USER",
        "content": [{"text": "x"}],
    }
    response = await client.post("/v1/message:send", json={"message": message})
    error = error_of(response, "rest", 400, -32602)
    assert error["data"]["errors"][0]["field"] == "messageId"
    message = {"messageId": "both2", "role": "ROLE_USER", "content": [{"text": "x"}], "parts": []}
    response = await client.post("/v1/message:send", json={"message": message})
    error_of(response, "rest", 400, -32602)
    assert await stored_tasks(client) == 0


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("field", ["token", "credentials"])
@pytest.mark.parametrize("value", ["caf\u00e9", "a\nb", "\u2028", "tab\there"], ids=repr)
async def test_push_tokens_must_be_header_safe(
    client: httpx.AsyncClient, transport: str, field: str, value: str
) -> None:
    config: dict[str, Any] = {"url": "http://127.0.0.1:9/hook"}
    if field == "token":
        config["token"] = value
    else:
        config["authentication"] = {"schemes": ["Bearer"], "credentials": value}
    if transport == "jsonrpc":
        extra = {"configuration": {"blocking": False, "pushNotificationConfig": config}}
    else:
        extra = {"configuration": {"pushNotification": config}}
    response = await send(client, transport, [text_part()], **extra)
    error = error_of(response, transport, 400, -32602)
    assert error["data"]["errors"][0]["field"].endswith(field)
    assert await stored_tasks(client) == 0


async def test_page_token_with_a_position_beyond_64_bits(make_client: Any, tmp_path: Path) -> None:
    raw = json.dumps([10**30, "x"]).encode()
    token = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": {"pageToken": token}}
    store_url = f"sqlite:///{tmp_path / 'tasks.db'}"
    async with make_client(fuzz_agent, store_url=store_url) as (client, _app):
        error = (await client.post("/", json=body)).json()["error"]
    assert error["code"] == -32602


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_push_config_ids_cannot_hold_a_slash(
    client: httpx.AsyncClient, transport: str
) -> None:
    # "a/b" would be named tasks/{id}/pushNotificationConfigs/a/b: no URL could reach it.
    config = {"id": "tasks/cancel", "url": "http://127.0.0.1:9/hook"}
    if transport == "jsonrpc":
        extra = {"configuration": {"blocking": False, "pushNotificationConfig": config}}
    else:
        extra = {"configuration": {"pushNotification": config}}
    error = error_of(await send(client, transport, [text_part()], **extra), transport, 400, -32602)
    assert error["data"]["errors"][0]["field"].endswith("id")
    accepted = (await send(client, "rest", [text_part()])).json()["task"]["id"]
    configs = f"/v1/tasks/{accepted}/pushNotificationConfigs"
    bare = {"pushNotificationConfig": {"url": "http://127.0.0.1:9/hook"}}
    error_of(await client.post(f"{configs}?configId=a/b", json=bare), "rest", 400, -32602)
    sdk_form = {"configId": "a/b", "config": bare}
    error_of(await client.post(configs, json=sdk_form), "rest", 400, -32602)


async def test_the_service_holds_its_callers_to_the_limits(tmp_path: Path) -> None:
    # Checked by the service, not by each binding: a method of any version or binding that
    # calls it cannot skip them.
    settings = Settings(store_url=f"sqlite:///{tmp_path / 'tasks.db'}", **SMALL)
    runtime = Runtime(fuzz_agent, settings)
    service, caller = runtime.service, Caller()
    message = {"role": "user", "messageId": "m-1", "parts": [text_part()] * 6}
    too_many = SendMessageRequest.model_validate({"message": message})
    config = TaskPushNotificationConfig(task_id="t", url="https://x.example/h", id="a/b")
    try:
        for method in (service.send_message, service.stream_message):
            with pytest.raises(LimitExceededError) as refused:
                await method(too_many, caller)
            assert refused.value.data["limit"] == "max_message_parts"
        with pytest.raises(InvalidParamsError) as bad_time:
            await service.list_tasks(
                ListTasksRequest(status_timestamp_after_ms=MAX_INT64 + 1), caller
            )
        # The internal request's name for it (each codec names its client's field itself).
        assert bad_time.value.data["errors"][0]["field"] == "statusTimestampAfter"
        with pytest.raises(InvalidParamsError) as bad_id:
            await service.set_push_config(config, caller)
        assert bad_id.value.data["errors"][0]["field"] == "pushNotificationConfig.id"
        assert (await runtime.store.list_tasks(TaskQuery(owner=caller.owner))).total_size == 0
    finally:
        await runtime.aclose()
