"""Property-based fuzzing of A2A 1.0: JSON-RPC with `A2A-Version: 1.0`, and the 1.0 HTTP+JSON
routes (hypothesis).

JSON-RPC bodies are valid 1.0 requests of every method, the same mutated, and bytes that are no
request at all; the oracle is the 0.3 fuzzer's (jsonrpc_oracle.py, written from the JSON-RPC
2.0 and A2A specifications), with 1.0's methods, their errors and the shapes of their results.

HTTP+JSON calls are every route of 1.0's binding, under a tenant or not, with the wrong verb
now and then, odd path segments and query parameters, any content type, valid and mutated
bodies. What 1.0 (§11) says every answer must be, and the test checks:

- never an HTTP 5xx, never an error logged;
- an error is a 4xx whose body is a `google.rpc.Status` ({"error": {code, status, message,
  details}}), its `code` the HTTP status, `details` a list whose ErrorInfo (if any) is in the
  `a2a-protocol.org` domain; a 405 says what is allowed (`Allow`);
- a success of a streaming route is an SSE stream of StreamResponse objects; any other success
  is a JSON object.

After the examples nothing stored may be corrupt (`FuzzApp.assert_intact`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from hypothesis import given

from a2a_serverless.v10.methods import METHODS
from tests.reliability import strategies, strategies_v10
from tests.reliability.harness import FuzzApp, finish
from tests.reliability.jsonrpc_oracle import (
    Dialect,
    check_answer,
    expect,
    outcome,
    sse_data,
    strict_loads,
)

V10_HEADERS = {"content-type": "application/json", "a2a-version": "1.0"}
TASK_STATES = {
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_FAILED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_AUTH_REQUIRED",
}
STREAM_KINDS = {"task", "message", "statusUpdate", "artifactUpdate"}

_COMMON = frozenset({-32602, -32001})
CODES: dict[str, frozenset[int]] = {
    # The fuzz agent takes and gives every media type (*/*), so never -32005.
    # A message to a finished task: UnsupportedOperationError (spec 1.0 §3.1.1).
    "SendMessage": _COMMON | {-32004},
    "SendStreamingMessage": _COMMON | {-32004},
    "GetTask": _COMMON,
    "ListTasks": _COMMON,
    "CancelTask": _COMMON | {-32002},
    # A finished task cannot be subscribed to: UnsupportedOperationError.
    "SubscribeToTask": _COMMON | {-32004},
    "CreateTaskPushNotificationConfig": _COMMON,
    "GetTaskPushNotificationConfig": _COMMON,
    "ListTaskPushNotificationConfigs": _COMMON,
    "DeleteTaskPushNotificationConfig": _COMMON,
    "GetExtendedAgentCard": frozenset({-32602, -32004, -32007}),
}
assert set(CODES) == set(METHODS), "a 1.0 method was added: say which errors it may give"


def check_task(task: Any) -> None:
    assert isinstance(task, dict), task
    assert isinstance(task["id"], str) and task["id"], task
    assert isinstance(task["contextId"], str), task
    assert task["status"]["state"] in TASK_STATES, task


def check_stream_response(item: Any) -> None:
    assert isinstance(item, dict) and len(item) == 1, item
    ((kind, value),) = item.items()
    assert kind in STREAM_KINDS, item
    if kind == "task":
        check_task(value)
    elif kind in ("statusUpdate", "artifactUpdate"):
        assert isinstance(value["taskId"], str) and isinstance(value["contextId"], str), item
        assert "final" not in value, item  # 1.0 has no `final`
    if kind == "statusUpdate":
        assert value["status"]["state"] in TASK_STATES, item


def check_push_config(config: Any) -> None:
    assert isinstance(config, dict), config
    assert {"id", "taskId", "url"} <= set(config), config


def check_result(method: str, result: Any) -> None:
    if method == "SendMessage":
        assert isinstance(result, dict) and len(result) == 1, result
        check_stream_response(result)
    elif method in ("GetTask", "CancelTask"):
        check_task(result)
    elif method == "ListTasks":
        assert set(result) == {"tasks", "nextPageToken", "pageSize", "totalSize"}, result
        for task in result["tasks"]:
            check_task(task)
    elif method in ("CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig"):
        check_push_config(result)
    elif method == "ListTaskPushNotificationConfigs":
        for config in result["configs"]:
            check_push_config(config)
    elif method == "DeleteTaskPushNotificationConfig":
        assert result == {}, result
    elif method == "GetExtendedAgentCard":
        assert isinstance(result, dict) and result.get("name"), result


V10 = Dialect(
    codes=CODES,
    streaming=frozenset(name for name, method in METHODS.items() if method.streaming),
    check_result=check_result,
    check_event=check_stream_response,
    stream_errors_as_sse=False,
)


@pytest.fixture
def fuzz(tmp_path: Path) -> Iterator[FuzzApp]:
    app = FuzzApp(tmp_path)
    # Tasks the requests' TASK_MARKERS stand for: one completed, two waiting for input.
    for text in ("hello", "ask", "ask again"):
        message = {
            "role": "ROLE_USER",
            "messageId": f"seed-{text}",
            "parts": [{"text": text}],
        }
        request = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {"message": message},
        }
        response = app.request("POST", "/", json.dumps(request).encode(), V10_HEADERS)
        assert response.status == 200, response
        app.task_ids.append(strict_loads(response.body)["result"]["task"]["id"])
    yield app
    app.close()


def _with_markers(fuzz: FuzzApp, raw: bytes) -> bytes:
    for marker, task_id in zip(strategies.TASK_MARKERS, fuzz.task_ids, strict=True):
        raw = raw.replace(marker.encode(), task_id.encode())
    return raw.replace(strategies.WEBHOOK_MARKER.encode(), fuzz.webhook_url.encode())


def run_jsonrpc(fuzz: FuzzApp, raw: bytes) -> None:
    raw = _with_markers(fuzz, raw)
    settings = fuzz.runtime.settings
    expected = expect(raw, settings.max_json_depth, settings.max_body_bytes, V10)
    response = fuzz.request("POST", "/", raw, V10_HEADERS)
    check_answer(expected, response, V10)
    fuzz.outcomes[outcome(expected, response)] += 1


def test_jsonrpc_valid_requests_of_every_method(fuzz: FuzzApp) -> None:
    @given(strategies_v10.requests())
    def valid(request: Any) -> None:
        run_jsonrpc(fuzz, strategies.encode(request).encode("utf-8", "surrogatepass"))

    valid()
    finish(fuzz, "valid 1.0 requests")


@pytest.mark.parametrize("method", strategies_v10.METHOD_NAMES)
def test_jsonrpc_near_valid_requests(fuzz: FuzzApp, method: str) -> None:
    @given(strategies_v10.requests(method, mutate=True))
    def near_valid(request: Any) -> None:
        run_jsonrpc(fuzz, strategies.encode(request).encode("utf-8", "surrogatepass"))

    near_valid()
    finish(fuzz, f"mutated {method} requests")


def test_jsonrpc_bodies_that_are_no_request(fuzz: FuzzApp) -> None:
    @given(strategies.broken_bytes())
    def broken(raw: bytes) -> None:
        run_jsonrpc(fuzz, raw)

    broken()
    finish(fuzz, "broken 1.0 bodies")


# --- HTTP+JSON ------------------------------------------------------------------------------------


def check_rest_answer(
    call: strategies_v10.RestCall, status: int, headers: dict[str, str], body: bytes
) -> str:
    assert status < 500, (call, status, body[:500])
    content_type = headers.get("content-type", "").split(";")[0].strip()
    if status >= 400:
        assert content_type in ("application/json", "application/a2a+json"), (call, headers)
        error = strict_loads(body)["error"]
        assert error["code"] == status, (call, error)
        assert isinstance(error["status"], str) and error["status"], error
        assert isinstance(error["message"], str) and error["message"], error
        assert isinstance(error["details"], list), error
        for detail in error["details"]:
            if detail.get("@type", "").endswith("google.rpc.ErrorInfo"):
                assert detail["domain"] == "a2a-protocol.org", detail
        if status == 405:
            assert headers.get("allow"), (call, headers)
        return f"{status} {error['status']}"
    assert 200 <= status < 300, (call, status)
    if call.streaming and content_type == "text/event-stream":
        for item in sse_data(body):
            check_stream_response(item)
        return f"{status} stream"
    assert content_type in ("application/json", "application/a2a+json"), (call, headers)
    assert isinstance(strict_loads(body), dict), body[:500]
    return f"{status}"


def run_rest(fuzz: FuzzApp, call: strategies_v10.RestCall) -> None:
    path = _with_markers(fuzz, unquote(call.path, errors="replace").encode()).decode()
    raw = b""
    if call.body is not None:
        raw = _with_markers(fuzz, strategies.encode(call.body).encode("utf-8", "surrogatepass"))
    headers = {"a2a-version": "1.0"}
    if call.content_type:
        headers["content-type"] = call.content_type
    response = fuzz.request(call.method, path, raw, headers, call.query)
    fuzz.outcomes[check_rest_answer(call, response.status, response.headers, response.body)] += 1


def test_rest_valid_calls(fuzz: FuzzApp) -> None:
    @given(strategies_v10.rest_calls())
    def valid(call: strategies_v10.RestCall) -> None:
        run_rest(fuzz, call)

    valid()
    finish(fuzz, "1.0 HTTP+JSON calls")


def test_rest_mutated_calls(fuzz: FuzzApp) -> None:
    @given(strategies_v10.rest_calls(mutate=True))
    def mutated(call: strategies_v10.RestCall) -> None:
        run_rest(fuzz, call)

    mutated()
    finish(fuzz, "mutated 1.0 HTTP+JSON calls")
