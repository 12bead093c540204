"""Every JSON-RPC error code the endpoint can answer with, provoked by a real request.

Spec references: §6.11 (JSON-RPC request/response objects), §8.1 (standard JSON-RPC errors),
§8.2 (A2A errors), §7 (per-method error cases, e.g. the tasks/list table in §7.4), and the
JSON-RPC 2.0 specification the A2A spec incorporates (§3.2.1: requests and responses MUST
adhere to it).

-32005 (ContentTypeNotSupportedError) and -32006 (InvalidAgentResponseError) are defined in
`a2a_serverless/errors.py` but no code path raises them, so there is no request that can
provoke them; they are deliberately not tested here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless.store.memory import MemoryStore
from tests.integration.jsonrpc_agents import (
    error_of,
    new_id,
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


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(scripted, **FAST) as (client, _app):
        yield client


def assert_error(body: dict[str, Any], code: int, request_id: Any) -> dict[str, Any]:
    """`body` is a JSON-RPC error response (§6.11.2) with this code and id; its error object."""
    assert body.get("jsonrpc") == "2.0", body
    assert "id" in body, body
    assert body["id"] == request_id, body
    assert type(body["id"]) is type(request_id), body
    assert "result" not in body, body
    error = body["error"]
    assert error["code"] == code, body
    assert isinstance(error["message"], str) and error["message"], body
    assert set(error) <= {"code", "message", "data"}, body
    return error


async def json_error(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, (response.status_code, response.text)
    assert response.headers.get("content-type", "").startswith("application/json"), (
        response.status_code,
        response.headers,
        response.text,
    )
    return response.json()


# --- -32700 parse error -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b'{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"',
        b"{'jsonrpc': '2.0'}",
        b"",
        b"\xff\xfe\x00garbage",
    ],
    ids=["truncated", "single-quotes", "empty-body", "not-utf8"],
)
async def test_parse_error_has_null_id(client: httpx.AsyncClient, raw: bytes) -> None:
    body = await json_error(await post(client, raw))
    assert_error(body, -32700, None)


# --- -32600 invalid request ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    ['"tasks/get"', "42", "null", "true"],
    ids=["string", "number", "null", "boolean"],
)
async def test_request_that_is_not_an_object_is_invalid(
    client: httpx.AsyncClient, raw: str
) -> None:
    # JSON-RPC 2.0 §4/§5: only an object is a Request; the reply is -32600 with id null.
    body = await json_error(await post(client, raw))
    assert_error(body, -32600, None)


@pytest.mark.parametrize(
    "batch",
    [
        [],
        [request("tasks/get", {"id": "x"}, "b-1")],
        [request("tasks/get", {"id": "x"}, "b-1"), request("tasks/get", {"id": "y"}, "b-2")],
    ],
    ids=["empty", "one", "two"],
)
async def test_batch_request_is_refused_as_invalid(client: httpx.AsyncClient, batch: Any) -> None:
    # Batches are not supported: the server answers a single -32600 error object, id null.
    body = await json_error(await post(client, batch))
    assert isinstance(body, dict), body
    assert_error(body, -32600, None)


@pytest.mark.parametrize(
    "envelope",
    [
        {"id": "abc", "method": "tasks/get", "params": {"id": "x"}},
        {"jsonrpc": "1.0", "id": "abc", "method": "tasks/get", "params": {"id": "x"}},
        {"jsonrpc": 2.0, "id": "abc", "method": "tasks/get", "params": {"id": "x"}},
        {"jsonrpc": "2.0", "id": "abc", "method": 1, "params": {"id": "x"}},
        {"jsonrpc": "2.0", "id": "abc", "method": None, "params": {"id": "x"}},
        {"jsonrpc": "2.0", "id": "abc", "method": ["tasks/get"], "params": {"id": "x"}},
        {"jsonrpc": "2.0", "id": "abc", "params": {"id": "x"}},
    ],
    ids=[
        "jsonrpc-missing",
        "jsonrpc-1.0",
        "jsonrpc-number",
        "method-int",
        "method-null",
        "method-list",
        "method-missing",
    ],
)
async def test_invalid_envelope_echoes_a_valid_id(
    client: httpx.AsyncClient, envelope: dict[str, Any]
) -> None:
    body = await json_error(await post(client, envelope))
    assert_error(body, -32600, "abc")


@pytest.mark.parametrize(
    "bad_id",
    [{"a": 1}, [1], 1.5, True, False],
    ids=["object", "array", "float", "true", "false"],
)
async def test_id_of_wrong_type_is_invalid_request_with_null_id(
    client: httpx.AsyncClient, bad_id: Any
) -> None:
    envelope = {"jsonrpc": "2.0", "id": bad_id, "method": "tasks/get", "params": {"id": "x"}}
    body = await json_error(await post(client, envelope))
    assert_error(body, -32600, None)


@pytest.mark.parametrize(
    "envelope",
    [
        # The JSON-RPC 2.0 specification's own example ("rpc call with invalid Request object").
        {"jsonrpc": "2.0", "method": 1, "params": "bar"},
        {"method": "tasks/get", "params": {"id": "x"}},
        {"jsonrpc": "1.0", "method": "tasks/get", "params": {"id": "x"}},
    ],
    ids=["method-int", "jsonrpc-missing", "jsonrpc-1.0"],
)
async def test_invalid_request_without_id_is_answered_not_treated_as_notification(
    client: httpx.AsyncClient, envelope: dict[str, Any]
) -> None:
    # An invalid Request object is not a Notification (JSON-RPC 2.0 §4.1 defines a Notification
    # as a *Request object* without "id"): it must be answered with -32600 and id null.
    response = await post(client, envelope)
    assert response.status_code != 204, "an invalid request was swallowed as a notification"
    assert_error(await json_error(response), -32600, None)


# --- -32601 method not found --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "request_id"),
    [
        ("tasks/foo", "m-1"),
        ("tasks/send", 7),  # the pre-0.2 method name
        ("message/send ", 0),
        ("", "m-2"),
    ],
)
async def test_unknown_method(client: httpx.AsyncClient, method: str, request_id: Any) -> None:
    body = await rpc(client, method, {"id": "x"}, request_id=request_id)
    assert_error(body, -32601, request_id)


# --- -32602 invalid params ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "method",
    ["message/send", "tasks/get", "tasks/cancel", "tasks/pushNotificationConfig/set"],
)
async def test_missing_params(client: httpx.AsyncClient, method: str) -> None:
    body = await rpc(client, method, request_id="p-1")
    assert_error(body, -32602, "p-1")


@pytest.mark.parametrize("params", [[{"id": "x"}], ["x"], []], ids=["object-in-array", "str", "[]"])
async def test_params_as_array(client: httpx.AsyncClient, params: Any) -> None:
    body = await rpc(client, "tasks/get", params, request_id="p-2")
    assert_error(body, -32602, "p-2")


async def test_message_with_empty_parts(client: httpx.AsyncClient) -> None:
    message = user_message("x")
    message["parts"] = []
    body = await rpc(client, "message/send", {"message": message}, request_id=3)
    assert_error(body, -32602, 3)


async def test_message_with_unknown_part_kind(client: httpx.AsyncClient) -> None:
    message = user_message("x")
    message["parts"] = [{"kind": "video", "url": "https://example.com/v.mp4"}]
    body = await rpc(client, "message/send", {"message": message}, request_id=4)
    assert_error(body, -32602, 4)


async def test_message_from_role_agent(client: httpx.AsyncClient) -> None:
    message = user_message("x", role="agent")
    body = await rpc(client, "message/send", {"message": message}, request_id=5)
    assert_error(body, -32602, 5)
    listed = await result_of(client, "tasks/list", {})
    assert listed["totalSize"] == 0, "a refused message must not create a task"


async def test_message_without_message_id(client: httpx.AsyncClient) -> None:
    message = user_message("x")
    del message["messageId"]
    body = await rpc(client, "message/send", {"message": message}, request_id=6)
    assert_error(body, -32602, 6)


async def test_negative_history_length_on_tasks_get(client: httpx.AsyncClient) -> None:
    task = await send(client, "hello")
    body = await rpc(client, "tasks/get", {"id": task["id"], "historyLength": -1}, request_id=7)
    assert_error(body, -32602, 7)


async def test_negative_history_length_in_message_send_configuration(
    client: httpx.AsyncClient,
) -> None:
    params = {"message": user_message("hello"), "configuration": {"historyLength": -1}}
    body = await rpc(client, "message/send", params, request_id=8)
    assert_error(body, -32602, 8)
    listed = await result_of(client, "tasks/list", {})
    assert listed["totalSize"] == 0, "a refused message must not create a task"


@pytest.mark.parametrize("page_size", [0, 101, -1])
async def test_list_page_size_out_of_range(client: httpx.AsyncClient, page_size: int) -> None:
    body = await rpc(client, "tasks/list", {"pageSize": page_size}, request_id="l-1")
    error = assert_error(body, -32602, "l-1")
    # §9.5 example 8: field errors are named by their wire (camelCase) names.
    fields = [item["field"] for item in error["data"]["errors"]]
    assert any(field.endswith("pageSize") for field in fields), error


@pytest.mark.parametrize(
    "token",
    ["invalid!@#", "not-a-token", "e30", "WzEsMiwzXQ", "null"],
    ids=["spec-example", "garbage", "b64-empty-object", "b64-three-numbers", "null-word"],
)
async def test_list_malformed_page_token(client: httpx.AsyncClient, token: str) -> None:
    await send(client, "hello")
    body = await rpc(client, "tasks/list", {"pageToken": token}, request_id="l-2")
    assert_error(body, -32602, "l-2")


@pytest.mark.parametrize(
    "params",
    [
        {"historyLength": -1},
        {"status": "running"},
        {"lastUpdatedAfter": "not-a-number"},
        {"includeArtifacts": "maybe"},
    ],
    ids=["historyLength", "status", "lastUpdatedAfter", "includeArtifacts"],
)
async def test_list_invalid_params_from_spec_table(
    client: httpx.AsyncClient, params: dict[str, Any]
) -> None:
    body = await rpc(client, "tasks/list", params, request_id="l-3")
    assert_error(body, -32602, "l-3")


async def test_message_to_a_terminal_task(client: httpx.AsyncClient) -> None:
    task = await send(client, "hello")
    assert task["status"]["state"] == "completed"
    message = user_message("again", taskId=task["id"], contextId=task["contextId"])
    body = await rpc(client, "message/send", {"message": message}, request_id=9)
    assert_error(body, -32602, 9)
    # The finished task is immutable (life-of-a-task, "Task Immutability").
    after = await result_of(client, "tasks/get", {"id": task["id"]})
    assert after == task


async def test_message_with_context_id_not_matching_its_task(client: httpx.AsyncClient) -> None:
    task = await send(client, "ask me")
    assert task["status"]["state"] == "input-required"
    message = user_message("Ada", taskId=task["id"], contextId="some-other-context")
    body = await rpc(client, "message/send", {"message": message}, request_id=10)
    assert_error(body, -32602, 10)
    after = await result_of(client, "tasks/get", {"id": task["id"]})
    assert after["status"]["state"] == "input-required"
    assert len(after["history"]) == len(task["history"])


# --- -32603 internal error ----------------------------------------------------------------------

SECRET = "SECRET-dsn=postgres://admin:hunter2@db.internal"


class ExplodingStore(MemoryStore):
    """A store whose reads fail unexpectedly, as a broken database would."""

    def __init__(self, *, explode_get: bool = True, explode_events: bool = False) -> None:
        super().__init__()
        self.explode_get = explode_get
        self.explode_events = explode_events

    async def get_task(self, task_id: str) -> Any:
        if self.explode_get:
            raise RuntimeError(SECRET)
        return await super().get_task(task_id)

    async def read_events(self, task_id: str, after_seq: int = 0, limit: int | None = None) -> Any:
        if self.explode_events:
            raise RuntimeError(SECRET)
        return await super().read_events(task_id, after_seq, limit)


def assert_no_leak(text: str) -> None:
    for leak in (SECRET, "hunter2", "RuntimeError", "Traceback", 'File "', "store/memory"):
        assert leak not in text, f"{leak!r} leaked to the client: {text}"


async def test_unexpected_server_error_is_internal_error_without_details(make_client: Any) -> None:
    async with make_client(scripted, store=ExplodingStore(), **FAST) as (client, _app):
        response = await post(client, request("tasks/get", {"id": "anything"}, "boom-1"))
        assert_no_leak(response.text)
        assert_error(await json_error(response), -32603, "boom-1")


async def test_unexpected_error_of_a_streaming_method_is_internal_error_event(
    make_client: Any,
) -> None:
    async with make_client(scripted, store=ExplodingStore(), **FAST) as (client, _app):
        response = await post(client, request("tasks/resubscribe", {"id": "x"}, "boom-2"))
        assert_no_leak(response.text)
        assert_error(error_of(response), -32603, "boom-2")


async def test_unexpected_error_in_the_middle_of_a_stream(make_client: Any) -> None:
    store = ExplodingStore(explode_get=False, explode_events=True)
    async with make_client(scripted, store=store, **FAST) as (client, _app):
        params = {"message": user_message("hello")}
        response = await post(client, request("message/stream", params, "boom-3"))
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert_no_leak(response.text)
        events = parse_sse(response.text).events
        assert events[0].data["result"]["kind"] == "task"
        assert_error(events[-1].data, -32603, "boom-3")


# --- -32001 task not found ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tasks/get", {"id": "no-such-task"}),
        ("tasks/get", {"id": "no-such-task", "historyLength": 2}),
        ("tasks/cancel", {"id": "no-such-task"}),
        (
            "tasks/pushNotificationConfig/set",
            {"taskId": "no-such-task", "pushNotificationConfig": {"url": "https://h.example/x"}},
        ),
        ("tasks/pushNotificationConfig/get", {"id": "no-such-task"}),
        (
            "tasks/pushNotificationConfig/get",
            {"id": "no-such-task", "pushNotificationConfigId": "c1"},
        ),
        ("tasks/pushNotificationConfig/list", {"id": "no-such-task"}),
        (
            "tasks/pushNotificationConfig/delete",
            {"id": "no-such-task", "pushNotificationConfigId": "c1"},
        ),
    ],
)
async def test_unknown_task(client: httpx.AsyncClient, method: str, params: Any) -> None:
    body = await rpc(client, method, params, request_id="nf-1")
    assert_error(body, -32001, "nf-1")


async def test_resubscribe_to_unknown_task(client: httpx.AsyncClient) -> None:
    response = await post(client, request("tasks/resubscribe", {"id": "no-such-task"}, "nf-2"))
    assert_error(error_of(response), -32001, "nf-2")


async def test_message_send_with_unknown_task_id(client: httpx.AsyncClient) -> None:
    message = user_message("hello", taskId="no-such-task")
    body = await rpc(client, "message/send", {"message": message}, request_id="nf-3")
    assert_error(body, -32001, "nf-3")
    listed = await result_of(client, "tasks/list", {})
    assert listed["totalSize"] == 0


async def test_message_stream_with_unknown_task_id(client: httpx.AsyncClient) -> None:
    message = user_message("hello", taskId="no-such-task")
    response = await post(client, request("message/stream", {"message": message}, "nf-4"))
    assert_error(error_of(response), -32001, "nf-4")


async def test_list_with_context_that_has_no_tasks(client: httpx.AsyncClient) -> None:
    await send(client, "hello")
    body = await rpc(client, "tasks/list", {"contextId": "no-such-context"}, request_id="nf-5")
    assert_error(body, -32001, "nf-5")


# --- -32002 task not cancelable -----------------------------------------------------------------


async def test_cancel_a_completed_task(client: httpx.AsyncClient) -> None:
    task = await send(client, "hello")
    assert task["status"]["state"] == "completed"
    body = await rpc(client, "tasks/cancel", {"id": task["id"]}, request_id="nc-1")
    assert_error(body, -32002, "nc-1")
    after = await result_of(client, "tasks/get", {"id": task["id"]})
    assert after["status"]["state"] == "completed"


async def test_cancel_a_canceled_task(client: httpx.AsyncClient) -> None:
    task = await send(client, "ask me")
    assert task["status"]["state"] == "input-required"
    canceled = await result_of(client, "tasks/cancel", {"id": task["id"]})
    assert canceled["id"] == task["id"]
    assert canceled["status"]["state"] == "canceled"
    body = await rpc(client, "tasks/cancel", {"id": task["id"]}, request_id="nc-2")
    assert_error(body, -32002, "nc-2")


# --- -32003 push notifications not supported ----------------------------------------------------


async def test_push_methods_without_push_support(make_client: Any) -> None:
    async with make_client(scripted, push_notifications=False, **FAST) as (client, _app):
        task = await send(client, "hello")
        calls = [
            (
                "tasks/pushNotificationConfig/set",
                {"taskId": task["id"], "pushNotificationConfig": {"url": "https://h.example/x"}},
            ),
            ("tasks/pushNotificationConfig/get", {"id": task["id"]}),
            ("tasks/pushNotificationConfig/list", {"id": task["id"]}),
            (
                "tasks/pushNotificationConfig/delete",
                {"id": task["id"], "pushNotificationConfigId": task["id"]},
            ),
        ]
        for index, (method, params) in enumerate(calls):
            body = await rpc(client, method, params, request_id=index)
            assert_error(body, -32003, index)


async def test_message_with_push_config_without_push_support(make_client: Any) -> None:
    async with make_client(scripted, push_notifications=False, **FAST) as (client, _app):
        params = {
            "message": user_message("hello"),
            "configuration": {"pushNotificationConfig": {"url": "https://h.example/x"}},
        }
        body = await rpc(client, "message/send", params, request_id="pn-1")
        assert_error(body, -32003, "pn-1")
        listed = await result_of(client, "tasks/list", {})
        assert listed["totalSize"] == 0


# --- -32004 unsupported operation ---------------------------------------------------------------


async def test_streaming_methods_when_streams_are_off(make_client: Any) -> None:
    settings = {**FAST, "streaming": False, "buffered_streams": False}
    async with make_client(scripted, **settings) as (client, _app):
        response = await post(
            client, request("message/stream", {"message": user_message("hi")}, "so-1")
        )
        assert_error(error_of(response), -32004, "so-1")
        listed = await result_of(client, "tasks/list", {})
        assert listed["totalSize"] == 0, "a refused message/stream must not create a task"

        task = await send(client, "hello")
        response = await post(client, request("tasks/resubscribe", {"id": task["id"]}, "so-2"))
        assert_error(error_of(response), -32004, "so-2")


# --- -32007 authenticated extended card not configured -------------------------------------------


@pytest.mark.parametrize("params", [None, {}])
async def test_authenticated_extended_card_not_configured(
    client: httpx.AsyncClient, params: Any
) -> None:
    request_id = new_id()
    body = await rpc(client, "agent/getAuthenticatedExtendedCard", params, request_id=request_id)
    assert_error(body, -32007, request_id)
