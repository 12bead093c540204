"""The oracle of the JSON-RPC fuzzers (test_jsonrpc_fuzz.py for A2A 0.3, test_v10_fuzz.py for
1.0), written from the JSON-RPC 2.0 and A2A specifications, not from our code: `expect` says
which answers a body may get, `check_answer` checks the one it got. What differs between the
versions (method names, their errors and result types) is a `Dialect`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tests.reliability.harness import Response


@dataclass(frozen=True)
class Dialect:
    """One protocol version's JSON-RPC methods: the A2A errors each may answer, which of them
    stream, and how a result (or a stream's event) is checked."""

    codes: Mapping[str, frozenset[int]]
    streaming: frozenset[str]
    check_result: Callable[[str, Any], None]
    check_event: Callable[[Any], None]
    # A streaming method refused before its stream starts: the refusal as the stream's one SSE
    # event (0.3), or a plain JSON-RPC error response (1.0).
    stream_errors_as_sse: bool = True


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
    # The method answers with an SSE stream.
    streaming: bool = False


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


# The walks of parsed values below keep their own stack: the fuzzers nest values hundreds of
# levels deep, and on Python 3.12 recursing through C (map, any) ran out of C stack at about 600.


def _members(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [*value.keys(), *value.values()]
    return list(value) if isinstance(value, list) else []


def value_depth(value: Any) -> int:
    """How deep a parsed value nests (duplicate keys are gone: the last one won)."""
    deepest = 0
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth + 1)
            members = item.values() if isinstance(item, dict) else item
            pending += [(member, depth + 1) for member in members]
    return deepest


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError("overflow")
    return value


def has_lone_surrogate(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in item):
                return True
        else:
            pending += _members(item)
    return False


def _valid_id(value: Any) -> bool:
    return value is None or isinstance(value, str) or type(value) is int


def expect(raw: bytes, max_depth: int, max_body_bytes: int, dialect: Dialect) -> Expected:
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
    if has_lone_surrogate(value):
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
    if method not in dialect.codes:
        return Expected(frozenset({-32601}), request_id, notification=notification)
    streaming = method in dialect.streaming
    return Expected(dialect.codes[method], request_id, method, notification, streaming=streaming)


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


def check_answer(expected: Expected, response: Response, dialect: Dialect) -> None:
    assert response.status < 500, (response.status, response.body[:500])
    if expected.notification:
        assert (response.status, response.body) == (204, b""), response
        return
    assert response.status == expected.status, (response.status, response.body[:500])
    if expected.streaming and not (
        response.content_type == "application/json" and not dialect.stream_errors_as_sse
    ):
        assert response.content_type == "text/event-stream", response.headers
        events = sse_data(response.body)
        assert events, response.body[:500]
        for event in events:
            check_envelope(expected, event)
            if "result" in event:
                dialect.check_event(event["result"])
        return
    assert response.content_type == "application/json", response.headers
    message = strict_loads(response.body)
    check_envelope(expected, message)
    if expected.streaming:
        assert "error" in message, message  # a stream's results come as SSE events
    elif "result" in message and expected.method is not None:
        dialect.check_result(expected.method, message["result"])


def sse_data(body: bytes) -> list[Any]:
    events = []
    for block in body.decode("utf-8").split("\n\n"):
        data = [line[5:].strip() for line in block.split("\n") if line.startswith("data:")]
        if data:
            events.append(strict_loads("\n".join(data).encode()))
    return events


def outcome(expected: Expected, response: Response) -> str:
    """What the answer was, for the summary each test prints."""
    if expected.notification:
        return "notification"
    if response.status == 413:
        return "413 too large"
    as_sse = response.content_type == "text/event-stream"
    messages = sse_data(response.body) if as_sse else [strict_loads(response.body)]
    codes = sorted({m["error"]["code"] for m in messages if "error" in m})
    return f"error {codes[0]}" if codes else "result"
