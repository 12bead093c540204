"""Agents and helpers shared by the JSON-RPC endpoint tests (test_jsonrpc_*, test_card,
test_sse, test_resubscribe, test_push_config, test_idempotency, test_list*).

The agents are importable by a subprocess dev server as
`tests.integration.jsonrpc_agents:<name>` (the repo root is on PYTHONPATH there).

- `scripted`: what it does depends on the message text, so one app can hold tasks of every
  shape: `ask...` asks for input on its first turn (then echoes the answer), `none...` completes
  without an artifact, anything else completes with one text artifact echoing the text.
  Every call is counted in `CALLS[text]`.
- `streamer`: an async generator; the text `"<chunks> <delay_s>"` (default `"3 0.05"`) makes it
  report progress, then yield `chunks` text chunks with `delay_s` seconds of silence before each.

Helpers speak raw JSON-RPC over an httpx client (or build a request for the buffered entry,
`buffered_request`) and parse SSE bodies, so the tests check the
wire format itself rather than what an SDK makes of it.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from a2a_serverless import Context, InputRequired, agent, progress
from a2a_serverless.http import Request

JSON_HEADERS = {"content-type": "application/json"}

# How often each message text reached an agent (in this process).
CALLS: Counter[str] = Counter()


@agent(name="Scripted", description="Behaves as its message text says (see module docstring).")
async def scripted(ctx: Context) -> Any:
    text = ctx.text
    CALLS[text] += 1
    await asyncio.sleep(0.01)  # give concurrent requests a chance to interleave
    if text.startswith("ask") and not ctx.is_continuation:
        raise InputRequired("What is your name?")
    if text.startswith("none"):
        return None
    return f"echo: {text}"


@agent(name="Streamer", description="Streams chunks slowly.")
async def streamer(ctx: Context) -> AsyncIterator[Any]:
    CALLS[ctx.text] += 1
    words = ctx.text.split()
    chunks = int(words[0]) if words else 3
    delay = float(words[1]) if len(words) > 1 else 0.05
    yield progress("starting")
    for index in range(chunks):
        await asyncio.sleep(delay)
        yield f"chunk {index};"


# --- building requests ------------------------------------------------------------------------


def new_id() -> str:
    return uuid.uuid4().hex


def user_message(text: str, **fields: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "messageId": fields.pop("messageId", None) or new_id(),
        "parts": [{"kind": "text", "text": text}],
    }
    message.update(fields)
    return message


def request(method: str, params: Any = None, request_id: Any = "req-1") -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


async def post(
    client: httpx.AsyncClient, body: Any, *, url: str = "/", headers: dict[str, str] | None = None
) -> httpx.Response:
    """POST `body` (a JSON value, or raw bytes/str sent as they are) to the JSON-RPC endpoint."""
    content = body if isinstance(body, bytes | str) else json.dumps(body)
    return await client.post(url, content=content, headers={**JSON_HEADERS, **(headers or {})})


async def rpc(
    client: httpx.AsyncClient,
    method: str,
    params: Any = None,
    *,
    request_id: Any = "req-1",
    url: str = "/",
) -> dict[str, Any]:
    """Call a non-streaming method; the whole JSON-RPC response object."""
    response = await post(client, request(method, params, request_id), url=url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == request_id
    return body


async def result_of(client: httpx.AsyncClient, method: str, params: Any = None) -> Any:
    body = await rpc(client, method, params)
    assert "error" not in body, body
    return body["result"]


async def send(
    client: httpx.AsyncClient, text: str, *, configuration: dict[str, Any] | None = None, **fields
) -> dict[str, Any]:
    """message/send (blocking unless `configuration` says otherwise); the resulting Task."""
    params: dict[str, Any] = {"message": user_message(text, **fields)}
    if configuration is not None:
        params["configuration"] = configuration
    return await result_of(client, "message/send", params)


async def eventually(
    check: Callable[[], Awaitable[Any]], *, timeout_s: float = 5.0, interval_s: float = 0.02
) -> Any:
    """Call `check` until it returns something truthy (then return it) or `timeout_s` passes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        value = await check()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout_s}s (last value {value!r})")
        await asyncio.sleep(interval_s)


# --- SSE ----------------------------------------------------------------------------------------


@dataclass
class SSEEvent:
    id: int | None
    data: dict[str, Any]
    # When it arrived (loop time), for streams read as they come.
    at: float = 0.0


@dataclass
class SSEBody:
    events: list[SSEEvent] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    # The order in which events ("event") and comments ("comment") arrived.
    sequence: list[str] = field(default_factory=list)


def parse_sse(text: str) -> SSEBody:
    """Parse an SSE body strictly: every block is comments, or `id:` then one `data:` line."""
    body = SSEBody()
    normalized = text.replace("\r\n", "\n")
    assert normalized == "" or normalized.endswith("\n\n"), f"unterminated SSE block: {text!r}"
    for block in normalized.split("\n\n"):
        if not block:
            continue
        event_id: int | None = None
        data: list[str] = []
        for line in block.split("\n"):
            if line.startswith(":"):
                body.comments.append(line[1:].strip())
                body.sequence.append("comment")
            elif line.startswith("id:"):
                event_id = int(line[3:].strip())
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            else:
                raise AssertionError(f"unexpected SSE line {line!r} in {text!r}")
        if data:
            body.events.append(SSEEvent(event_id, json.loads("\n".join(data))))
            body.sequence.append("event")
    return body


async def stream(
    client: httpx.AsyncClient,
    method: str,
    params: Any,
    *,
    request_id: Any = "stream-1",
    headers: dict[str, str] | None = None,
    url: str = "/",
) -> tuple[httpx.Response, SSEBody]:
    """Call a streaming method and read its whole SSE body (the stream must end)."""
    response = await post(client, request(method, params, request_id), url=url, headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream"), response.headers
    return response, parse_sse(response.text)


async def read_live_stream(
    client: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    *,
    headers: dict[str, str] | None = None,
    timeout_s: float = 15.0,
) -> list[SSEEvent]:
    """Read SSE events from a real server as they arrive, until the stream ends."""
    events: list[SSEEvent] = []
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout_s):
        async with client.stream(
            "POST", url, json=body, headers={**JSON_HEADERS, **(headers or {})}
        ) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            buffer = ""
            async for chunk in response.aiter_text():
                buffer += chunk.replace("\r\n", "\n")
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    for event in parse_sse(block + "\n\n").events:
                        event.at = loop.time()
                        events.append(event)
    return events


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC error response a streaming or plain method answered with (JSON or SSE)."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("text/event-stream"):
        events = parse_sse(response.text).events
        assert len(events) == 1, response.text
        return events[0].data
    return response.json()


def buffered_request(
    method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> Request:
    """A request for `A2AApplication.respond_buffered` (the buffered entry the adapters use):
    `body` sent as JSON."""
    raw = b"" if body is None else json.dumps(body).encode()
    all_headers = {"host": "testserver", "content-type": "application/json", **(headers or {})}
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "scheme": "http",
        "server": ("testserver", 80),
        "query_string": b"",
        "headers": [(k.encode(), v.encode()) for k, v in all_headers.items()],
    }
    return Request(scope, body=raw)
