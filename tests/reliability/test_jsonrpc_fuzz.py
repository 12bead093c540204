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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a2a_serverless.jsonrpc import METHODS
from a2a_serverless.models import (
    ListTasksResult,
    StreamResult,
    Task,
    TaskPushNotificationConfig,
    validate,
)
from tests.reliability import strategies
from tests.reliability.harness import FuzzApp, Response

CODES: dict[str, set[int]] = {
    # The fuzz agent takes and gives every media type (*/*), so never -32005.
    "message/send": {-32602, -32001},
    "message/stream": {-32602, -32001},
    "tasks/get": {-32602, -32001},
    "tasks/list": {-32602, -32001},
    "tasks/cancel": {-32602, -32001, -32002},
    "tasks/resubscribe": {-32602, -32001},
    "tasks/pushNotificationConfig/set": {-32602, -32001},
    "tasks/pushNotificationConfig/get": {-32602, -32001},
    "tasks/pushNotificationConfig/list": {-32602, -32001},
    "tasks/pushNotificationConfig/delete": {-32602, -32001},
    "agent/getAuthenticatedExtendedCard": {-32602, -32007},
}
# The type of each method's result (checked with `models.validate`, as strictly as requests are).
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


# --- the oracle ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    codes: frozenset[int]
    # The id the answer must carry.
    request_id: Any = None
    method: str | None = None
    # A valid Request without an id: never answered.
    notification: bool = False
    # The HTTP status of the answer (413: a body over max_body_bytes).
    status: int = 200

    @property
    def streaming(self) -> bool:
        return self.method is not None and METHODS[self.method].streaming


def text_depth(text: str) -> int:
    """How deep brackets nest in JSON text, outside strings (a scanner of its own)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def value_depth(value: Any) -> int:
    """How deep a parsed value nests (duplicate keys are gone: the last one won)."""
    if isinstance(value, dict):
        return 1 + max(map(value_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(value_depth, value), default=0)
    return 0


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError("overflow")
    return value


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _valid_id(value: Any) -> bool:
    return value is None or isinstance(value, str) or type(value) is int


def expect(raw: bytes, max_depth: int, max_body_bytes: int) -> Expected:
    if len(raw) > max_body_bytes:
        return Expected(frozenset({-32600}), status=413)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Expected(frozenset({-32700}))
    try:
        value = json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except RecursionError:
        return Expected(frozenset({-32600}))
    except ValueError:
        # Invalid JSON nested too deep may be found too deep first.
        too_deep = text_depth(text) > max_depth
        return Expected(frozenset({-32700, -32600} if too_deep else {-32700}))
    if value_depth(value) > max_depth:
        return Expected(frozenset({-32600}))
    if _has_lone_surrogate(value):
        return Expected(frozenset({-32700}))
    if not isinstance(value, dict):
        return Expected(frozenset({-32600}))
    request_id = value.get("id")
    echoed = request_id if _valid_id(request_id) else None
    if (
        value.get("jsonrpc") != "2.0"
        or not _valid_id(request_id)
        or not isinstance(value.get("method"), str)
    ):
        return Expected(frozenset({-32600}), echoed)
    notification = "id" not in value
    method = value["method"]
    if method not in METHODS:
        return Expected(frozenset({-32601}), request_id, notification=notification)
    return Expected(frozenset(CODES[method]), request_id, method, notification)


# --- checking an answer -------------------------------------------------------------------------


def strict_loads(body: bytes) -> Any:
    return json.loads(body.decode("utf-8"), parse_constant=_not_json)


def check_envelope(expected: Expected, message: Any) -> None:
    assert isinstance(message, dict), message
    assert message.get("jsonrpc") == "2.0", message
    assert "id" in message and message["id"] == expected.request_id, (expected, message)
    assert type(message["id"]) is type(expected.request_id), (expected, message)
    assert ("result" in message) != ("error" in message), message
    assert set(message) <= {"jsonrpc", "id", "result", "error"}, message
    if "error" in message:
        error = message["error"]
        assert set(error) <= {"code", "message", "data"}, error
        assert isinstance(error["message"], str) and error["message"], error
        assert error["code"] != -32603, error
        assert error["code"] in expected.codes, (expected, error)


def check_answer(expected: Expected, response: Response) -> None:
    assert response.status < 500, (response.status, response.body[:500])
    if expected.notification:
        assert (response.status, response.body) == (204, b""), response
        return
    assert response.status == expected.status, (response.status, response.body[:500])
    if expected.streaming:
        assert response.content_type == "text/event-stream", response.headers
        events = sse_data(response.body)
        assert events, response.body[:500]
        for event in events:
            check_envelope(expected, event)
            if "result" in event:
                validate(StreamResult, event["result"])
        return
    assert response.content_type == "application/json", response.headers
    message = strict_loads(response.body)
    check_envelope(expected, message)
    if "result" in message and expected.method in RESULTS:
        validate(RESULTS[expected.method], message["result"])


def sse_data(body: bytes) -> list[Any]:
    events = []
    for block in body.decode("utf-8").split("\n\n"):
        data = [line[5:].strip() for line in block.split("\n") if line.startswith("data:")]
        if data:
            events.append(strict_loads("\n".join(data).encode()))
    return events


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
    expected = expect(raw, settings.max_json_depth, settings.max_body_bytes)
    response = fuzz.request("POST", "/", raw, {"content-type": "application/json"})
    check_answer(expected, response)
    fuzz.outcomes[outcome(expected, response)] += 1


def outcome(expected: Expected, response: Response) -> str:
    """What the answer was, for the summary each test prints."""
    if expected.notification:
        return "notification"
    if response.status == 413:
        return "413 too large"
    messages = sse_data(response.body) if expected.streaming else [strict_loads(response.body)]
    codes = sorted({m["error"]["code"] for m in messages if "error" in m})
    return f"error {codes[0]}" if codes else "result"


def finish(fuzz: FuzzApp, name: str) -> None:
    checked = fuzz.assert_intact()
    answers = ", ".join(f"{k}: {v}" for k, v in sorted(fuzz.outcomes.items()))
    print(f"\n{name}: {fuzz.requests} requests ({answers}); {checked} stored tasks intact")


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
        if token and not _has_lone_surrogate(token):  # "" is the first page
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
