"""HTTP primitives every transport and page answers with: the request, the response, JSON and SSE.

One request in (`Request`: an ASGI scope and its body), one `Response` out — a whole body, or an
SSE stream of frames. The ASGI app (asgi.py) routes requests to the transports (jsonrpc.py,
rest/, v10/rest.py) and the pages (the card, the inspector); each answers with these, and
platforms that hand over whole requests (API Gateway, Cloud Functions) build a `Request` and read
the `Response` without an ASGI message exchange. Knows nothing of A2A: it sits below every
module that serves HTTP, so none of them imports another to reach it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

import msgspec

from .codec import ENCODER
from .exceptions import LimitError
from .publicurl import from_trusted_proxy, request_base_url

if TYPE_CHECKING:
    from .publicurl import IPNetwork

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

JSON = b"application/json"
JSON_HEADERS: Headers = [(b"content-type", JSON)]
PUBLIC_CACHE = (b"cache-control", b"public, max-age=300")


class BodyTooLarge(LimitError):
    """A request body over the limit its reader was given (the transports answer 413)."""


class Request:
    """One HTTP request: the parts of an ASGI HTTP scope this app uses, and its body.

    The body is either given (`body=`: a platform that hands over whole requests) or read from
    the ASGI `receive` channel on first use. A platform that is not ASGI passes a scope with the
    keys the app reads: "method", "path", "root_path", "scheme", "server", "query_string" and
    its own extras (e.g. "aws.event").
    """

    __slots__ = ("_body", "headers", "method", "path", "receive", "scope")

    def __init__(
        self,
        scope: Scope,
        receive: Receive | None = None,
        *,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.scope = scope
        self.receive = receive
        self._body = body
        self.method: str = scope["method"]
        root_path: str = scope.get("root_path", "")
        path: str = scope["path"]
        # Servers differ on whether `path` includes the mount's root path.
        if root_path and path.startswith(root_path):
            path = path[len(root_path) :]
        self.path = path or "/"
        # Given (names in lower case) by a platform that has them as text already; else the
        # ASGI scope's.
        self.headers: dict[str, str] = (
            headers
            if headers is not None
            else {
                k.decode("latin-1").lower(): v.decode("latin-1")
                for k, v in scope.get("headers", [])
            }
        )

    def base_url(self, trusted_proxies: tuple[IPNetwork, ...] = ()) -> str:
        return request_base_url(
            scheme=self.scope.get("scheme", "http"),
            headers=self.headers,
            server=self.scope.get("server"),
            root_path=self.scope.get("root_path", ""),
            aws_event=self.scope.get("aws.event"),
            trust_forwarded=from_trusted_proxy(self.scope.get("client"), trusted_proxies),
        )

    async def body(self, limit: int) -> bytes:
        if self._body is not None:
            if len(self._body) > limit:
                raise BodyTooLarge
            return self._body
        declared = self.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise BodyTooLarge
        if self.receive is None:
            return b""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


class Response(msgspec.Struct):
    """What the app answers: a whole body, or (`events` set) an SSE stream of frames.

    `headers` carry no content-length: the ASGI path adds it, platforms compute their own.
    """

    status: int
    headers: Headers
    body: bytes = b""
    events: AsyncIterator[bytes] | None = None
    # How the transport that made this response answers an error instead of it (a whole body),
    # and writes one as the last frame of its stream: what keeps an answer within a platform's
    # response limit uses them (budget.py). The error is an A2A error (errors.py).
    refusal: Callable[[Any], Response] | None = None
    error_frame: Callable[[Any], bytes] | None = None


def json_bytes(payload: Any) -> bytes:
    """`payload` as compact UTF-8 JSON.

    A string that cannot be UTF-8 (a lone surrogate, which an agent could produce; requests are
    refused them) goes out escaped as `\\udXXX` rather than failing the whole response.
    """
    try:
        return ENCODER.encode(payload)
    except UnicodeEncodeError:
        # msgspec has no ASCII-only mode: the standard library's escapes what UTF-8 cannot hold.
        return _COMPACT_ASCII.encode(payload).encode()


# Built once: `json.dumps` with any option builds a new encoder object on every call.
# Responses are trees built by dump(), never circular: no need to track visited containers.
_COMPACT_ASCII = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def json_response(status: int, payload: Any, headers: Headers | None = None) -> Response:
    return Response(
        status, [*JSON_HEADERS, *headers] if headers else JSON_HEADERS, json_bytes(payload)
    )


def sse_frame(data: Any, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return head.encode() + b"data: " + json_bytes(data) + b"\n\n"


SSE_KEEPALIVE = b": keep-alive\n\n"
SSE_HEADERS: Headers = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    # Stops nginx-style proxies from buffering the stream.
    (b"x-accel-buffering", b"no"),
]


def allow_header(methods: list[str]) -> Headers:
    """The `Allow` header of a 405: the methods the route takes."""
    return [(b"allow", ", ".join(methods).encode())]


def is_json(content_type: str | None) -> bool:
    return (
        content_type is not None
        and content_type.split(";")[0].strip().lower() == "application/json"
    )


def query_string(request: Request) -> str:
    raw: bytes = request.scope.get("query_string", b"")
    return raw.decode("latin-1")


async def send_response(request: Request, send: Send, response: Response) -> None:
    """Send `response` over ASGI; an SSE stream until its frames end or the client goes away."""
    if response.events is None:
        length = (b"content-length", str(len(response.body)).encode())
        start = {"type": "http.response.start", "status": response.status}
        await send({**start, "headers": [length, *response.headers]})
        await send({"type": "http.response.body", "body": response.body})
        return
    frames = response.events
    start = {"type": "http.response.start", "status": response.status}
    await send({**start, "headers": response.headers})
    writer = asyncio.ensure_future(_write_frames(send, frames))
    assert request.receive is not None, "an ASGI request has a receive channel"
    disconnect = asyncio.ensure_future(_wait_for_disconnect(request.receive))
    try:
        await asyncio.wait({writer, disconnect}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (writer, disconnect):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await writer
        with contextlib.suppress(asyncio.CancelledError):
            await disconnect
        with contextlib.suppress(Exception):
            await frames.aclose()  # type: ignore[attr-defined]
    if writer.done() and not writer.cancelled() and writer.exception() is None:
        with contextlib.suppress(OSError):
            await send({"type": "http.response.body", "body": b""})


async def buffered(response: Response) -> Response:
    """`response` with an SSE stream run to its end and kept as one body: for platforms that
    buffer responses."""
    events = response.events
    if events is not None:
        try:
            response.body = b"".join([frame async for frame in events])
        finally:
            await events.aclose()  # type: ignore[attr-defined]
        response.events = None
    return response


async def _write_frames(send: Send, frames: AsyncIterator[bytes]) -> None:
    async for frame in frames:
        await send({"type": "http.response.body", "body": frame, "more_body": True})


async def _wait_for_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
