"""The ASGI application: routes HTTP requests to the card, the JSON-RPC endpoint and health.

Deliberately a small plain-ASGI app rather than a framework: it is what every entry point runs
(uvicorn locally, Mangum on Lambda, functions-framework on GCP), and on a Lambda cold start
every imported module is paid for. It still mounts anywhere an ASGI app can — e.g.
`fastapi_app.mount("/agent", a2a_app)` — and the JSON-RPC endpoint follows the mount's root path.

Routes:
    GET  /.well-known/agent-card.json   the agent card (also /.well-known/agent.json)
    POST <rpc_path> (default /)          JSON-RPC 2.0, SSE for streaming methods
    *    /v1/...                         HTTP+JSON/REST (rest/routes.py lists the routes)
    GET  /.well-known/jwks.json          public keys verifying our webhook JWTs (push enabled)
    GET  /v1/openapi.json                an OpenAPI 3.1 document of the REST routes (public)
    GET  /health                         liveness, no store access
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from . import jsonrpc
from .auth import AuthError, RequestView
from .card import build_card, join_url, request_base_url
from .errors import A2AError, InternalError, a2a_error
from .extensions import HEADER as EXTENSIONS_HEADER
from .extensions import header_value
from .models import AgentCard
from .runtime import Runtime
from .service import Caller, StreamEvent
from .store.base import StoreUnavailable

if TYPE_CHECKING:
    # The REST transport is imported on the first /v1/ request: a JSON-RPC deployment never
    # loads it (a cold start pays for every module imported).
    from . import rest

log = logging.getLogger("a2a_serverless.asgi")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
JWKS_PATH = "/.well-known/jwks.json"
OPENAPI_PATH = "/v1/openapi.json"
# rest.routes.PREFIX, without importing the transport to know where it lives.
REST_PREFIX = "/v1/"
JSON = b"application/json"


class BodyTooLarge(Exception):
    pass


class Request:
    """The parts of an ASGI HTTP scope this app uses."""

    def __init__(self, scope: Scope, receive: Receive) -> None:
        self.scope = scope
        self.receive = receive
        self.method: str = scope["method"]
        root_path: str = scope.get("root_path", "")
        path: str = scope["path"]
        # Servers differ on whether `path` includes the mount's root path.
        self.path = path[len(root_path) :] if root_path and path.startswith(root_path) else path
        self.path = self.path or "/"
        self.headers: dict[str, str] = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
        }

    def base_url(self) -> str:
        return request_base_url(
            scheme=self.scope.get("scheme", "http"),
            headers=self.headers,
            server=self.scope.get("server"),
            root_path=self.scope.get("root_path", ""),
            aws_event=self.scope.get("aws.event"),
        )

    async def body(self, limit: int) -> bytes:
        declared = self.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise BodyTooLarge
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


def json_bytes(payload: Any) -> bytes:
    """`payload` as compact UTF-8 JSON.

    A string that cannot be UTF-8 (a lone surrogate, which an agent could produce; requests are
    refused them) goes out escaped as `\\udXXX` rather than failing the whole response.
    """
    try:
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return json.dumps(payload, separators=(",", ":")).encode()


async def send_json(
    send: Send, status: int, payload: Any, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send_bytes(send, status, json_bytes(payload), JSON, headers)


async def send_bytes(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes | None,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    head = [(b"content-length", str(len(body)).encode())]
    if content_type:
        head.append((b"content-type", content_type))
    await send({"type": "http.response.start", "status": status, "headers": head + (headers or [])})
    await send({"type": "http.response.body", "body": body})


def sse_frame(data: Any, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return head.encode() + b"data: " + json_bytes(data) + b"\n\n"


SSE_KEEPALIVE = b": keep-alive\n\n"
SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    # Stops nginx-style proxies from buffering the stream.
    (b"x-accel-buffering", b"no"),
]


class A2AApplication:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._rpc_path = "/" + runtime.settings.rpc_path.strip("/")
        self._cards: dict[str, bytes] = {}
        self._openapi: bytes | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        try:
            await self._route(request, send)
        except Exception:
            log.exception("unhandled error serving %s %s", request.method, request.path)
            await send_json(send, 500, {"error": "internal server error"})

    async def _route(self, request: Request, send: Send) -> None:
        path, method = request.path, request.method
        if path == self._rpc_path and method == "POST":
            caller = await self._authenticate(request, send, jsonrpc_errors=True)
            if caller is not None:
                await self._jsonrpc(request, send, caller)
        elif path in CARD_PATHS and method in ("GET", "HEAD"):
            if not self.runtime.security.protects_card or await self._authenticate(request, send):
                await self._card(request, send)
        elif path == JWKS_PATH and method in ("GET", "HEAD"):
            await self._jwks(send)
        elif path == OPENAPI_PATH and method in ("GET", "HEAD"):
            await self._openapi_document(send)
        elif path == "/health" and method == "GET":
            await send_json(send, 200, {"status": "ok"})
        elif path.startswith(REST_PREFIX) or path == REST_PREFIX.rstrip("/"):
            caller = await self._authenticate(request, send)
            if caller is not None:
                await self._rest(request, send, caller)
        elif path == self._rpc_path or path in CARD_PATHS:
            await send_json(send, 405, {"error": "method not allowed"})
        else:
            await send_json(send, 404, {"error": "not found"})

    async def _authenticate(
        self, request: Request, send: Send, *, jsonrpc_errors: bool = False
    ) -> Caller | None:
        """The caller of a request, or None after answering 401/403/503 for it.

        Runs before the body is read, so unauthenticated requests cost nothing more.
        """
        security = self.runtime.security
        if not security.enabled:
            return Caller()
        try:
            view = RequestView.from_asgi_scope(request.scope, request.headers)
            identity = await security.authenticate(view)
        except AuthError as error:
            body = error.jsonrpc_body(None) if jsonrpc_errors else error.to_json()
            await send_json(send, error.status, body, error.headers())
            return None
        return Caller(owner=identity.owner, identity=identity)

    # --- the agent card -------------------------------------------------------------------------

    def card_url(self, request: Request) -> str:
        settings = self.runtime.settings
        if settings.public_url:
            return join_url(settings.public_url.rstrip("/"), self._rpc_path)
        return join_url(request.base_url(), self._rpc_path)

    def rest_url(self, request: Request) -> str:
        """The HTTP+JSON interface's URL: the app's base, which REST clients append /v1/... to."""
        settings = self.runtime.settings
        return (settings.public_url or request.base_url()).rstrip("/")

    def public_card(self, request: Request) -> AgentCard:
        return build_card(
            self.runtime.agent,
            url=self.card_url(request),
            rest_url=self.rest_url(request),
            streaming=self.runtime.settings.streaming,
            push_notifications=self.runtime.service.push_notifications,
            security=self.runtime.security,
        )

    def extended_card(self, request: Request, caller: Caller) -> Callable[[], AgentCard] | None:
        """What `agent/getAuthenticatedExtendedCard` serves this caller, if anything: the public
        card with the extended skills the caller's scopes allow."""
        agent, security = self.runtime.agent, self.runtime.security
        identity = caller.identity
        if not agent.extended_skills or not security.enabled or identity is None:
            return None

        def build() -> AgentCard:
            skills = security.allowed_skills(identity, [*agent.skills, *agent.extended_skills])
            return self.public_card(request).model_copy(update={"skills": skills})

        return build

    async def _card(self, request: Request, send: Send) -> None:
        url = self.card_url(request)
        body = self._cards.get(url)
        if body is None:
            body = self.public_card(request).dump_json()
            if len(self._cards) < 64:  # a handful of hosts at most; never grow unbounded
                self._cards[url] = body
        await send_bytes(send, 200, body, JSON, [(b"cache-control", b"public, max-age=300")])

    async def _jwks(self, send: Send) -> None:
        """The public keys that verify our webhook JWTs (only where push is offered)."""
        notifier = self.runtime.notifier
        if notifier is None:
            await send_json(send, 404, {"error": "push notifications are not enabled"})
            return
        cache = [(b"cache-control", b"public, max-age=300")]
        await send_json(send, 200, notifier.jwks_document(), cache)

    async def _openapi_document(self, send: Send) -> None:
        """The REST routes as OpenAPI 3.1: public, like the card (it holds nothing secret)."""
        if self._openapi is None:
            from .rest import openapi  # only ever needed by tools, never on a cold start

            self._openapi = json_bytes(openapi.document(self.runtime.settings))
        cache = [(b"cache-control", b"public, max-age=300")]
        await send_bytes(send, 200, self._openapi, JSON, cache)

    # --- JSON-RPC -------------------------------------------------------------------------------

    async def _jsonrpc(self, request: Request, send: Send, caller: Caller) -> None:
        try:
            raw = await request.body(self.runtime.settings.max_body_bytes)
        except BodyTooLarge:
            from .rest import RequestTooLargeError

            error = RequestTooLargeError(self.runtime.settings.max_body_bytes)
            await send_json(send, 413, jsonrpc.error_response(None, error))
            return
        reply = await jsonrpc.handle(
            raw,
            self.runtime.service,
            caller,
            last_event_id_header=request.headers.get("last-event-id"),
            extensions_header=request.headers.get(EXTENSIONS_HEADER),
            extended_card=self.extended_card(request, caller),
        )
        echo = _extensions_echo(reply.extensions)
        if isinstance(reply, jsonrpc.StreamReply):
            await self._stream(request, send, reply, echo)
        elif reply.body is None:
            await send_bytes(send, 204, b"", None, echo)
        elif reply.status != 200:
            await send_json(send, reply.status, reply.body, [*reply.headers, *echo])
        elif reply.as_sse:
            start = {"type": "http.response.start", "status": 200, "headers": SSE_HEADERS}
            await send(start)
            await send({"type": "http.response.body", "body": sse_frame(reply.body)})
        else:
            await send_json(send, 200, reply.body, [*reply.headers, *echo])

    async def _stream(
        self,
        request: Request,
        send: Send,
        reply: jsonrpc.StreamReply,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        await self._sse(
            request,
            send,
            reply.events,
            lambda event: _event_frame(reply.request_id, event),
            lambda error: sse_frame(jsonrpc.error_response(reply.request_id, error)),
            headers,
        )

    async def _sse(
        self,
        request: Request,
        send: Send,
        events: AsyncIterator[StreamEvent | None],
        event_frame: Callable[[StreamEvent], bytes],
        error_frame: Callable[[A2AError], bytes],
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        """Send `events` as an SSE response until they end or the client goes away."""
        start_headers = SSE_HEADERS + (headers or [])
        await send({"type": "http.response.start", "status": 200, "headers": start_headers})
        writer = asyncio.ensure_future(_write_events(send, events, event_frame, error_frame))
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
                await events.aclose()  # type: ignore[attr-defined]
        if writer.done() and not writer.cancelled() and writer.exception() is None:
            with contextlib.suppress(OSError):
                await send({"type": "http.response.body", "body": b""})

    # --- HTTP+JSON/REST ---------------------------------------------------------------------------

    async def _rest(self, request: Request, send: Send, caller: Caller) -> None:
        from . import rest

        try:
            raw = await request.body(self.runtime.settings.max_body_bytes)
        except BodyTooLarge:
            error = rest.RequestTooLargeError(self.runtime.settings.max_body_bytes)
            reply: rest.Reply | rest.StreamReply = rest.error_reply(error)
        else:
            http_request = rest.HttpRequest(
                method=request.method,
                path=request.path,
                query_string=request.scope.get("query_string", b"").decode("latin-1"),
                headers=request.headers,
                body=raw,
            )
            reply = await rest.handle(
                http_request,
                self.runtime.service,
                caller,
                extended_card=self.extended_card(request, caller),
            )
        if isinstance(reply, rest.StreamReply):
            await self._sse(
                request, send, reply.events, _rest_event_frame, _rest_error_frame, reply.headers
            )
        else:
            await send_json(send, reply.status, reply.body, reply.headers)

    # --- lifespan -------------------------------------------------------------------------------

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.runtime.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _write_events(
    send: Send,
    events: AsyncIterator[StreamEvent | None],
    event_frame: Callable[[StreamEvent], bytes],
    error_frame: Callable[[A2AError], bytes],
) -> None:
    try:
        async for item in events:
            frame = SSE_KEEPALIVE if item is None else event_frame(item)
            await send({"type": "http.response.body", "body": frame, "more_body": True})
    except (A2AError, StoreUnavailable) as error:
        frame = error_frame(a2a_error(error))
        await send({"type": "http.response.body", "body": frame, "more_body": True})
    except Exception:
        log.exception("error while streaming")
        frame = error_frame(InternalError())
        await send({"type": "http.response.body", "body": frame, "more_body": True})


def _event_frame(request_id: jsonrpc.RequestId, event: StreamEvent) -> bytes:
    return sse_frame(jsonrpc.stream_event_body(request_id, event), event.seq)


def _rest_event_frame(event: StreamEvent) -> bytes:
    from . import rest

    return sse_frame(rest.stream_event_body(event), event.seq)


def _rest_error_frame(error: A2AError) -> bytes:
    """A REST stream that fails after it began: one `event: error` with the error body."""
    from . import rest

    return b"event: error\n" + sse_frame(rest.error_body(error))


def _extensions_echo(activated: tuple[str, ...]) -> list[tuple[bytes, bytes]]:
    """The response header listing the extensions a request activated (none: no header)."""
    if not activated:
        return []
    return [(EXTENSIONS_HEADER.encode(), header_value(activated).encode())]


async def _wait_for_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
