"""The HTTP application: routes requests to the card, the JSON-RPC endpoint, REST and health.

Deliberately small and framework-free: it is what every entry point runs (uvicorn locally, the
Lambda handler, functions-framework on GCP), and on a Lambda cold start every imported module is
paid for. Two ways in:

- `A2AApplication` is an ASGI app: it mounts anywhere an ASGI app can — e.g.
  `fastapi_app.mount("/agent", a2a_app)` — and the JSON-RPC endpoint follows the mount's root
  path. SSE responses stream, and stop when the client goes away.
- `respond(request)` / `respond_buffered(request)` answer one `Request` with a `Response` object:
  what platforms that hand over a whole request and take back a whole response (API Gateway,
  Cloud Functions) call directly, without an ASGI message exchange per request.

Routes:
    GET  /.well-known/agent-card.json   the agent card (also /.well-known/agent.json)
    POST <rpc_path> (default /)          JSON-RPC 2.0, SSE for streaming methods
    *    /v1/...                         HTTP+JSON/REST of A2A 0.3 (rest/routes.py lists them)
    *    /message:send, /tasks/..., ...  HTTP+JSON of A2A 1.0, each also under /{tenant}/
                                         (routepaths.py, v1/rest.py)
    GET  /.well-known/jwks.json          public keys verifying our webhook JWTs (push enabled)
    GET  /v1/openapi.json                an OpenAPI 3.1 document of the REST routes (public)
    GET  /health                         liveness, no store access
    *    /_inspector/...                     the inspector page and its API (inspector/), in dev
                                         mode or with A2A_INSPECTOR and authentication
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from . import jsonrpc, tracing
from .auth import AuthError, RequestView
from .card import (
    IPNetwork,
    build_card,
    card_document,
    from_trusted_proxy,
    join_url,
    platform_base_url,
    request_base_url,
    trusted_networks,
)
from .errors import (
    A2AError,
    InternalError,
    MethodNotAllowedError,
    MethodNotFoundError,
    VersionNotSupportedError,
    a2a_error,
)
from .extensions import HEADER as EXTENSIONS_HEADER
from .extensions import V1_HEADER as V1_EXTENSIONS_HEADER
from .extensions import echo_headers
from .models import AgentCard
from .origins import OriginPolicy
from .routepaths import V1Route, v1_route
from .runtime import Runtime
from .service import Caller, StreamEvent, StreamItem
from .store.base import StoreUnavailable
from .versions import HEADER as VERSION_HEADER
from .versions import V10, requested_version

if TYPE_CHECKING:
    # The REST transport is imported on the first /v1/ request: a JSON-RPC deployment never
    # loads it (a cold start pays for every module imported).
    from . import rest
    from .inspector import Inspector

log = logging.getLogger("a2a_serverless.asgi")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
JWKS_PATH = "/.well-known/jwks.json"
OPENAPI_PATH = "/v1/openapi.json"
# inspector.PREFIX: the inspector page and its API (dev mode, or A2A_INSPECTOR with auth).
INSPECTOR = "/_inspector"
# rest.routes.PREFIX, without importing the transport to know where it lives.
REST_PREFIX = "/v1/"
JSON = b"application/json"
JSON_HEADERS: Headers = [(b"content-type", JSON)]
PUBLIC_CACHE = (b"cache-control", b"public, max-age=300")
# A card built from the request's headers is for that request's client only; a shared cache
# must not hand it to others (Vary too, for caches that ignore `private`).
PRIVATE_CARD_CACHE = [
    (b"cache-control", b"private, max-age=300"),
    (b"vary", b"Host, X-Forwarded-Host, X-Forwarded-Proto, X-Forwarded-Prefix"),
]
# Every caller of an app without authentication (a frozen value, shared).
ANONYMOUS = Caller()


class BodyTooLarge(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _ServedCard:
    """A card's body as served, with its validators: the ETag is a hash of the body (so every
    instance serving the same card gives the same one), Last-Modified when this instance built
    it."""

    body: bytes
    etag: bytes
    last_modified: bytes
    built_at: float

    @classmethod
    def of(cls, body: bytes) -> _ServedCard:
        import hashlib
        from email.utils import formatdate

        now = float(int(time.time()))  # HTTP dates have whole seconds
        etag = b'"' + hashlib.sha256(body).hexdigest()[:32].encode() + b'"'
        return cls(body, etag, formatdate(now, usegmt=True).encode(), now)

    def not_modified(self, headers: dict[str, str]) -> bool:
        match = headers.get("if-none-match")
        if match is not None:
            # RFC 9110 §13.1.2: a weak comparison; If-Modified-Since is then ignored.
            tags = {t.strip().removeprefix("W/") for t in match.split(",")}
            return "*" in tags or self.etag.decode() in tags
        since = headers.get("if-modified-since")
        if since is None:
            return False
        from email.utils import parsedate_to_datetime

        try:
            return parsedate_to_datetime(since).timestamp() >= self.built_at
        except (TypeError, ValueError, IndexError, OverflowError):
            return False  # an unreadable date is ignored (RFC 9110 §13.1.3)


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


@dataclass(slots=True)
class Response:
    """What the app answers: a whole body, or (`events` set) an SSE stream of frames.

    `headers` carry no content-length: the ASGI path adds it, platforms compute their own.
    """

    status: int
    headers: Headers
    body: bytes = b""
    events: AsyncIterator[bytes] | None = None


def json_bytes(payload: Any) -> bytes:
    """`payload` as compact UTF-8 JSON.

    A string that cannot be UTF-8 (a lone surrogate, which an agent could produce; requests are
    refused them) goes out escaped as `\\udXXX` rather than failing the whole response.
    """
    try:
        return _COMPACT.encode(payload).encode()
    except UnicodeEncodeError:
        return _COMPACT_ASCII.encode(payload).encode()


# Built once: `json.dumps` with any option builds a new encoder object on every call.
# Responses are trees built by dump(), never circular: no need to track visited containers.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
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


class A2AApplication:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._rpc_path = "/" + runtime.settings.rpc_path.strip("/")
        self._cards: dict[str, _ServedCard] = {}
        self._openapi: bytes | None = None
        self.origin_policy = OriginPolicy(runtime.settings)
        self._trusted_proxies = trusted_networks(runtime.settings.trusted_proxies)
        self._inspector: Inspector | None = _inspector(self)

    # --- entry points ---------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        response = await self.respond(request)
        if response.events is None:
            length = (b"content-length", str(len(response.body)).encode())
            start = {"type": "http.response.start", "status": response.status}
            await send({**start, "headers": [length, *response.headers]})
            await send({"type": "http.response.body", "body": response.body})
        else:
            await _stream_sse(request, send, response)

    async def respond(self, request: Request) -> Response:
        """The response to `request`. Never raises: an unexpected error is a logged 500.

        The request's trace context (`traceparent`) is current while it is answered, so the
        jobs it queues carry it; with spans on, the answer is the request's SERVER span
        (tracing.py)."""
        span = tracing.serving(request.method, request.path, request.headers, request.scope)
        if span is None:
            return await self._respond(request)
        with span:
            response = await self._respond(request)
            response.events = span.answered(response.status, response.events)
        return response

    async def _respond(self, request: Request) -> Response:
        try:
            origins = self.origin_policy
            if not origins.host_allowed(request.headers):
                host = request.headers.get("host")
                return json_response(421, {"error": f"this server does not answer host {host!r}"})
            if not origins.origins:
                return await self._route(request)
            origin = origins.allowed_origin(request.headers)
            if origin is not None and origins.is_preflight(request.method, request.headers):
                return Response(204, origins.preflight_headers(origin, request.headers))
            response = await self._route(request)
            response.headers = [*response.headers, *origins.response_headers(origin)]
            return response
        except Exception:
            log.exception("unhandled error serving %s %s", request.method, request.path)
            return json_response(500, {"error": "internal server error"})

    async def respond_buffered(self, request: Request) -> Response:
        """`respond`, with an SSE stream run to its end and returned as one body: for platforms
        that buffer responses (the stream then covers what a blocking call waits for)."""
        response = await self.respond(request)
        events = response.events
        if events is not None:
            try:
                response.body = b"".join([frame async for frame in events])
            finally:
                await events.aclose()  # type: ignore[attr-defined]
            response.events = None
        return response

    async def _route(self, request: Request) -> Response:
        path, method = request.path, request.method
        if path == self._rpc_path and method == "POST":
            if not _is_json(request.headers.get("content-type")):
                return _not_json_rpc(request.headers.get("content-type"))
            caller = await self._authenticate(request, jsonrpc_errors=True)
            if isinstance(caller, Response):
                return caller
            return await self._jsonrpc(request, caller)
        if path in CARD_PATHS and method in ("GET", "HEAD"):
            if self.runtime.security.protects_card:
                caller = await self._authenticate(request)
                if isinstance(caller, Response):
                    return caller
            return self._card(request)
        if path == JWKS_PATH and method in ("GET", "HEAD"):
            return self._jwks()
        if path == OPENAPI_PATH and method in ("GET", "HEAD"):
            return self._openapi_document()
        if path == "/health" and method == "GET":
            return json_response(200, {"status": "ok"})
        if self._inspector is not None and (path == INSPECTOR or path.startswith(INSPECTOR + "/")):
            return await self._inspector.respond(request)
        if path.startswith(REST_PREFIX) or path == REST_PREFIX.rstrip("/"):
            caller = await self._authenticate(request)
            if isinstance(caller, Response):
                return caller
            return await self._rest(request, caller)
        route = v1_route(path)
        if route is not None:
            caller = await self._authenticate(request, v1_rest_errors=True)
            if isinstance(caller, Response):
                return caller
            return await self._rest_v1(request, route, caller)
        allowed = ["POST"] if path == self._rpc_path else ["GET", "HEAD"]
        if path == self._rpc_path or path in CARD_PATHS:
            if _asks_for_v10(request):
                return _v1_unrouted(MethodNotAllowedError(method, path, allowed))
            return json_response(405, {"error": "method not allowed"}, _allow(allowed))
        if _asks_for_v10(request):
            return _v1_unrouted(
                MethodNotFoundError(
                    f"No A2A 1.0 HTTP+JSON route at {path}", data={"method": method, "path": path}
                )
            )
        return json_response(404, {"error": "not found"})

    async def _authenticate(
        self, request: Request, *, jsonrpc_errors: bool = False, v1_rest_errors: bool = False
    ) -> Caller | Response:
        """The caller of a request, or the 401/403/503 response refusing it.

        Runs before the body is read, so unauthenticated requests cost nothing more.
        """
        security = self.runtime.security
        if not security.enabled:
            return ANONYMOUS
        try:
            view = RequestView.from_asgi_scope(request.scope, request.headers)
            identity = await security.authenticate(view)
        except AuthError as error:
            if v1_rest_errors:
                from .v1 import rest as v1_rest

                return _v1_rest_response(v1_rest.auth_refusal(error))
            body = error.jsonrpc_body(None) if jsonrpc_errors else error.to_json()
            return json_response(error.status, body, list(error.headers()))
        return Caller(owner=identity.owner, identity=identity)

    # --- the agent card -------------------------------------------------------------------------

    def card_url(self, request: Request) -> str:
        settings = self.runtime.settings
        if settings.public_url:
            return join_url(settings.public_url.rstrip("/"), self._rpc_path)
        return join_url(request.base_url(self._trusted_proxies), self._rpc_path)

    def rest_url(self, request: Request) -> str:
        """The HTTP+JSON interface's URL: the app's base, which REST clients append /v1/... to."""
        settings = self.runtime.settings
        return (settings.public_url or request.base_url(self._trusted_proxies)).rstrip("/")

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

    def _card(self, request: Request) -> Response:
        """The card, with the caching headers of spec v1.0 §8.6: a conditional GET whose
        If-None-Match names its ETag (or, without one, whose If-Modified-Since is not older than
        when this instance built it) is answered 304 without a body."""
        url = self.card_url(request)
        served = self._cards.get(url)
        if served is None:
            served = _ServedCard.of(json_bytes(card_document(self.public_card(request))))
            if len(self._cards) < 64:  # a handful of hosts at most; never grow unbounded
                self._cards[url] = served
        fixed = self.runtime.settings.public_url or platform_base_url(
            request.scope.get("aws.event")
        )
        caching = [PUBLIC_CACHE] if fixed else PRIVATE_CARD_CACHE
        headers = [*caching, (b"etag", served.etag), (b"last-modified", served.last_modified)]
        if served.not_modified(request.headers):
            return Response(304, headers)
        return Response(200, [*JSON_HEADERS, *headers], served.body)

    def _jwks(self) -> Response:
        """The public keys that verify our webhook JWTs (only where push is offered)."""
        notifier = self.runtime.notifier
        if notifier is None:
            return json_response(404, {"error": "push notifications are not enabled"})
        return json_response(200, notifier.jwks_document(), [PUBLIC_CACHE])

    def _openapi_document(self) -> Response:
        """The REST routes as OpenAPI 3.1: public, like the card (it holds nothing secret)."""
        if self._openapi is None:
            from .rest import openapi  # only ever needed by tools, never on a cold start

            self._openapi = json_bytes(openapi.document(self.runtime.settings))
        return Response(200, [*JSON_HEADERS, PUBLIC_CACHE], self._openapi)

    # --- JSON-RPC -------------------------------------------------------------------------------

    async def _jsonrpc(self, request: Request, caller: Caller) -> Response:
        headers = request.headers
        try:
            version = requested_version(headers.get(VERSION_HEADER), _query(request))
        except A2AError as error:
            from .v1.jsonrpc import V10 as V10_PROTOCOL

            return json_response(200, jsonrpc.error_response(None, error, V10_PROTOCOL))
        protocol = jsonrpc.V03
        extensions_name = EXTENSIONS_HEADER
        if version == V10:
            # Imported on the first v1.0 request: a v0.3 deployment never pays for it.
            from .v1.jsonrpc import V10 as V10_PROTOCOL

            protocol, extensions_name = V10_PROTOCOL, V1_EXTENSIONS_HEADER
            caller = replace(caller, protocol=V10)
        try:
            raw = await request.body(self.runtime.settings.max_body_bytes)
        except BodyTooLarge:
            from .rest import RequestTooLargeError

            too_large = RequestTooLargeError(self.runtime.settings.max_body_bytes)
            return json_response(413, jsonrpc.error_response(None, too_large, protocol))
        reply = await jsonrpc.handle(
            raw,
            self.runtime.service,
            caller,
            last_event_id_header=headers.get("last-event-id"),
            extensions_header=headers.get(V1_EXTENSIONS_HEADER) or headers.get(EXTENSIONS_HEADER)
            if version == V10
            else headers.get(EXTENSIONS_HEADER),
            extended_card=self.extended_card(request, caller),
            protocol=protocol,
        )
        echo = echo_headers(reply.extensions, extensions_name)
        if isinstance(reply, jsonrpc.RpcStreamReply):
            request_id = reply.request_id
            frames = _sse_frames(
                reply.events,
                lambda event: sse_frame(
                    jsonrpc.stream_event_body(request_id, event, protocol), event.seq
                ),
                lambda error: sse_frame(jsonrpc.error_response(request_id, error, protocol)),
            )
            return Response(200, [*SSE_HEADERS, *echo], events=frames)
        if reply.body is None:
            return Response(204, echo)
        if reply.status != 200:
            return json_response(reply.status, reply.body, [*reply.headers, *echo])
        if reply.as_sse:
            return Response(200, SSE_HEADERS, sse_frame(reply.body))
        return json_response(200, reply.body, [*reply.headers, *echo])

    # --- HTTP+JSON/REST ---------------------------------------------------------------------------

    async def _rest(self, request: Request, caller: Caller) -> Response:
        from . import rest

        reply: rest.RestReply | rest.RestStreamReply
        try:
            version = requested_version(request.headers.get(VERSION_HEADER), _query(request))
            if version == V10:
                raise VersionNotSupportedError(
                    "The /v1/ routes are A2A 0.3's HTTP+JSON binding: send A2A-Version: 0.3 "
                    "(or none) here; A2A 1.0's routes have no /v1 prefix (/message:send, "
                    "/tasks/{id}, ...: the card's supportedInterfaces)",
                    data={"requestedVersion": "1.0", "supportedVersions": ["0.3"]},
                )
            raw = await request.body(self.runtime.settings.max_body_bytes)
        except A2AError as error:
            reply = rest.error_reply(error)
        except BodyTooLarge:
            reply = rest.error_reply(
                rest.RequestTooLargeError(self.runtime.settings.max_body_bytes)
            )
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
        if isinstance(reply, rest.RestStreamReply):
            frames = _sse_frames(reply.events, _rest_event_frame, _rest_error_frame)
            return Response(200, [*SSE_HEADERS, *reply.headers], events=frames)
        return json_response(reply.status, reply.body, reply.headers)

    async def _rest_v1(self, request: Request, route: V1Route, caller: Caller) -> Response:
        # Imported on the first v1.0 HTTP+JSON request: a v0.3 deployment never pays for it.
        from .rest import HttpRequest as RestRequest
        from .rest import RequestTooLargeError
        from .v1 import rest as v1_rest

        reply: rest.RestReply | rest.RestStreamReply
        limit = self.runtime.settings.max_body_bytes
        try:
            version = requested_version(request.headers.get(VERSION_HEADER), _query(request))
            if version != V10:
                raise v1_rest.version_required(version)
            raw = await request.body(limit)
        except A2AError as error:
            reply = v1_rest.error_reply(error)
        except BodyTooLarge:
            reply = v1_rest.error_reply(RequestTooLargeError(limit))
        else:
            http_request = RestRequest(
                method=request.method,
                path=request.path,
                query_string=_query(request),
                headers=request.headers,
                body=raw,
            )
            # What the service records in this version's name (a push config's webhook format).
            caller = replace(caller, protocol=V10)
            reply = await v1_rest.handle(
                http_request,
                route,
                self.runtime.service,
                caller,
                extended_card=self.extended_card(request, caller),
            )
        return _v1_rest_response(reply)

    # --- lifespan -------------------------------------------------------------------------------

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.runtime.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.runtime.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


# --- SSE ------------------------------------------------------------------------------------------


async def _sse_frames(
    events: AsyncIterator[StreamItem],
    event_frame: Callable[[StreamEvent], bytes],
    error_frame: Callable[[A2AError], bytes],
) -> AsyncIterator[bytes]:
    """`events` as SSE frames; a failure after the stream began is its last frame."""
    try:
        async for item in events:
            yield event_frame(item) if isinstance(item, StreamEvent) else SSE_KEEPALIVE
    except (A2AError, StoreUnavailable) as error:
        yield error_frame(a2a_error(error))
    except Exception:
        log.exception("error while streaming")
        yield error_frame(InternalError())
    finally:
        with contextlib.suppress(Exception):
            await events.aclose()  # type: ignore[attr-defined]


async def _stream_sse(request: Request, send: Send, response: Response) -> None:
    """Send an SSE response over ASGI until its frames end or the client goes away."""
    frames = response.events
    assert frames is not None
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


async def _write_frames(send: Send, frames: AsyncIterator[bytes]) -> None:
    async for frame in frames:
        await send({"type": "http.response.body", "body": frame, "more_body": True})


async def _wait_for_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


def _rest_event_frame(event: StreamEvent) -> bytes:
    from . import rest

    return sse_frame(rest.stream_event_body(event), event.seq)


def _rest_error_frame(error: A2AError) -> bytes:
    """A REST stream that fails after it began: one `event: error` with the error body."""
    from . import rest

    return b"event: error\n" + sse_frame(rest.error_body(error))


def _asks_for_v10(request: Request) -> bool:
    try:
        return requested_version(request.headers.get(VERSION_HEADER), _query(request)) == V10
    except VersionNotSupportedError:
        return False


def _allow(methods: list[str]) -> list[tuple[bytes, bytes]]:
    return [(b"allow", ", ".join(methods).encode())]


def _v1_unrouted(error: A2AError) -> Response:
    """A path or verb we do not serve, answered to a 1.0 client in 1.0's error form (a
    `google.rpc.Status`), as the routes it does know answer their errors."""
    from .v1 import rest as v1_rest

    allowed = error.allowed if isinstance(error, MethodNotAllowedError) else []
    return _v1_rest_response(v1_rest.error_reply(error, _allow(allowed) if allowed else None))


def _v1_rest_response(reply: rest.RestReply | rest.RestStreamReply) -> Response:
    from . import rest
    from .v1 import rest as v1_rest

    if isinstance(reply, rest.RestStreamReply):
        frames = _sse_frames(reply.events, _v1_rest_event_frame, _v1_rest_error_frame)
        return Response(200, [*SSE_HEADERS, *reply.headers], events=frames)
    content_type = (b"content-type", v1_rest.CONTENT_TYPE.encode())
    return Response(reply.status, [content_type, *reply.headers], json_bytes(reply.body))


def _v1_rest_event_frame(event: StreamEvent) -> bytes:
    from .v1 import rest as v1_rest

    return sse_frame(v1_rest.event_body(event), event.seq)


def _v1_rest_error_frame(error: A2AError) -> bytes:
    from .v1 import rest as v1_rest

    return b"event: error\n" + sse_frame(v1_rest.error_body(error))


def _inspector(app: A2AApplication) -> Inspector | None:
    """The inspector, where it is served; imported only then (a cold start never pays for it)."""
    runtime = app.runtime
    if not (runtime.settings.dev_mode or runtime.settings.inspector):
        return None
    from .inspector import Inspector, inspector_enabled

    if not inspector_enabled(runtime):
        return None
    return Inspector(runtime, app._authenticate, app._rpc_path)


def _is_json(content_type: str | None) -> bool:
    return (
        content_type is not None
        and content_type.split(";")[0].strip().lower() == "application/json"
    )


def _not_json_rpc(content_type: str | None) -> Response:
    """JSON-RPC is carried as application/json only (spec §3.2.1): a form, a multipart or a
    text/plain body — what a page of another origin can send without asking — is refused with
    415, before authentication or the body is read."""
    from .rest.routes import UnsupportedMediaTypeError

    error = UnsupportedMediaTypeError(
        data={"contentType": content_type, "expected": "application/json"}
    )
    return json_response(415, jsonrpc.error_response(None, error))


def _query(request: Request) -> str:
    raw: bytes = request.scope.get("query_string", b"")
    return raw.decode("latin-1")
