"""Property-based fuzzing of the JSON-RPC endpoint (hypothesis).

Bodies: valid requests of every method, the same mutated (strategies.py), and bytes that are no
request at all. For each, an oracle written from the JSON-RPC 2.0 and A2A specifications (not
from our code) says which answers are allowed, and every answer must be one of them:

- never an HTTP 5xx, never -32603, never an error logged (`unexpected error` or any ERROR);
- a body over max_body_bytes: HTTP 413, -32600, id null;
- not UTF-8, not JSON, NaN/Infinity, a number that overflows, a lone surrogate: -32700, id null;
- nested deeper than max_json_depth (the value parsed, where of duplicate keys the last one
  wins): -32600, id null;
- not a Request object (not an object, jsonrpc not "2.0", a bad id or method): -32600, with the
  id echoed when it is a valid one;
- an unknown method: -32601; a notification (no id): HTTP 204 and no body, whatever happened;
- a known method: its result (which must validate as the method's result type), or one of the
  A2A errors that method can give (-32602, -32001, -32002 for cancel, -32007);
- every body is strict JSON (no NaN, valid UTF-8); streaming methods answer SSE whose every
  event carries the request's id.

After the examples nothing stored may be corrupt (`FuzzApp.assert_intact`): every task, event
and push config reads back and validates, every event log is gap-free, and a terminal task's
terminal event is its last.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a2a_serverless.models import validate
from a2a_serverless.v03.jsonrpc_models import StreamResult, Task
from a2a_serverless.v03.jsonrpc_params import ListTasksResult, TaskPushNotificationConfig
from a2a_serverless.v03.methods import METHODS
from tests.reliability import strategies
from tests.reliability.harness import FuzzApp, finish
from tests.reliability.jsonrpc_oracle import (
    Dialect,
    check_answer,
    expect,
    has_lone_surrogate,
    outcome,
    strict_loads,
)

CODES: dict[str, frozenset[int]] = {
    # The fuzz agent takes and gives every media type (*/*), so never -32005.
    "message/send": frozenset({-32602, -32001}),
    "message/stream": frozenset({-32602, -32001}),
    "tasks/get": frozenset({-32602, -32001}),
    "tasks/list": frozenset({-32602, -32001}),
    "tasks/cancel": frozenset({-32602, -32001, -32002}),
    "tasks/resubscribe": frozenset({-32602, -32001}),
    "tasks/pushNotificationConfig/set": frozenset({-32602, -32001}),
    "tasks/pushNotificationConfig/get": frozenset({-32602, -32001}),
    "tasks/pushNotificationConfig/list": frozenset({-32602, -32001}),
    "tasks/pushNotificationConfig/delete": frozenset({-32602, -32001}),
    "agent/getAuthenticatedExtendedCard": frozenset({-32602, -32007}),
}
# The type of each method's result, in 0.3's JSON-RPC shapes (checked with `models.validate`, as
# strictly as requests are).
RESULTS: dict[str, Any] = {
    "message/send": Task,
    "tasks/get": Task,
    "tasks/cancel": Task,
    "tasks/list": ListTasksResult,
    "tasks/pushNotificationConfig/set": TaskPushNotificationConfig,
    "tasks/pushNotificationConfig/get": TaskPushNotificationConfig,
    "tasks/pushNotificationConfig/list": list[TaskPushNotificationConfig],
    "tasks/pushNotificationConfig/delete": None,
}
assert set(CODES) == set(METHODS), "a method was added: say which errors it may give"


def _check_result(method: str, result: Any) -> None:
    if method in RESULTS:
        validate(RESULTS[method], result)


V03 = Dialect(
    codes=CODES,
    streaming=frozenset(name for name, method in METHODS.items() if method.streaming),
    check_result=_check_result,
    check_event=lambda result: validate(StreamResult, result),
)

# --- the tests ----------------------------------------------------------------------------------


@pytest.fixture
def fuzz(tmp_path: Path) -> Iterator[FuzzApp]:
    app = FuzzApp(tmp_path)
    # Tasks the requests' TASK_MARKERS stand for: one completed, two waiting for input.
    for text in ("hello", "ask", "ask again"):
        message = {
            "role": "user",
            "messageId": f"seed-{text}",
            "parts": [{"kind": "text", "text": text}],
        }
        answer = app.post_json(
            "/",
            {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}},
        )
        app.task_ids.append(answer["result"]["id"])
    yield app
    app.close()


def run(fuzz: FuzzApp, raw: bytes) -> None:
    for marker, task_id in zip(strategies.TASK_MARKERS, fuzz.task_ids, strict=True):
        raw = raw.replace(marker.encode(), task_id.encode())
    raw = raw.replace(strategies.WEBHOOK_MARKER.encode(), fuzz.webhook_url.encode())
    settings = fuzz.runtime.settings
    expected = expect(raw, settings.max_json_depth, settings.max_body_bytes, V03)
    response = fuzz.request("POST", "/", raw, {"content-type": "application/json"})
    check_answer(expected, response, V03)
    fuzz.outcomes[outcome(expected, response)] += 1


def test_valid_requests_of_every_method(fuzz: FuzzApp) -> None:
    @given(strategies.valid_bodies())
    def valid(raw: bytes) -> None:
        run(fuzz, raw)

    valid()
    finish(fuzz, "valid requests")


@pytest.mark.parametrize("method", sorted(METHODS))
def test_near_valid_requests(fuzz: FuzzApp, method: str) -> None:
    @given(strategies.near_valid_bodies(method))
    def near_valid(raw: bytes) -> None:
        run(fuzz, raw)

    near_valid()
    finish(fuzz, f"mutated {method} requests")


def test_bodies_that_are_no_request(fuzz: FuzzApp) -> None:
    @given(strategies.broken_bytes())
    def broken(raw: bytes) -> None:
        run(fuzz, raw)

    broken()
    finish(fuzz, "broken bodies")


JSON = {"content-type": "application/json"}


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


# Page tokens as an attacker makes them: any text, any bytes or any JSON value base64url-encoded
# (the unsigned form tokens once had), and either of those with a made-up MAC.
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
_forged_tokens = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=300).map(_b64),
    _json_values.map(lambda v: _b64(json.dumps(v).encode())),
    st.integers(min_value=1, max_value=5000).map(lambda n: _b64(b"[" * n)),
    st.tuples(st.binary(max_size=100), st.binary(max_size=32)).map(
        lambda pair: f"{_b64(pair[0])}.{_b64(pair[1])}"
    ),
)


def test_forged_page_tokens(fuzz: FuzzApp) -> None:
    @given(_forged_tokens)
    def forged(token: str) -> None:
        params = {"pageToken": token}
        body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": params}
        raw = json.dumps(body).encode()
        run(fuzz, raw)
        if token and not has_lone_surrogate(token):  # "" is the first page
            answer = strict_loads(fuzz.request("POST", "/", raw, JSON).body)
            assert answer["error"]["code"] == -32602, answer

    forged()
    finish(fuzz, "forged page tokens")


def test_bodies_of_other_content_types(fuzz: FuzzApp) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": {}}
    raw = json.dumps(body).encode()

    @given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60))
    def typed(content_type: str) -> None:
        response = fuzz.request("POST", "/", raw, {"content-type": content_type})
        is_json = content_type.split(";")[0].strip().lower() == "application/json"
        answer = strict_loads(response.body)
        if is_json:
            assert response.status == 200 and "result" in answer, answer
        else:
            assert response.status == 415, (response.status, answer)
            assert answer["error"]["code"] == -32600 and answer["jsonrpc"] == "2.0"
        fuzz.outcomes["result" if is_json else "415"] += 1

    typed()
    finish(fuzz, "other content types")
