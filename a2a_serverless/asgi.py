"""The HTTP application: routes requests to the card, the JSON-RPC endpoint, REST and health.

Deliberately small and framework-free: it is what every entry point runs (uvicorn locally, the
Lambda handler, functions-framework on GCP), and on a Lambda cold start every imported module is
paid for. Two ways in:

- `A2AApplication` is an ASGI app: it mounts anywhere an ASGI app can — e.g.
  `fastapi_app.mount("/agent", a2a_app)` — and the JSON-RPC endpoint follows the mount's root
  path. SSE responses stream, and stop when the client goes away.
- `respond(request)` / `respond_buffered(request)` answer one `Request` with a `Response` object
  (http.py): what platforms that hand over a whole request and take back a whole response (API
  Gateway, Cloud Functions) call directly, without an ASGI message exchange per request.

The app routes; it answers no A2A method itself. The three transport bindings are peers over the
TaskService (transport.py): JSON-RPC (jsonrpc.py, both versions), A2A 0.3's HTTP+JSON (rest/) and
A2A 1.0's (v10/rest.py). A request for one is authenticated here, then the transport answers it,
authentication refusals included, in its own wire form. The REST bindings are imported on their
first request: a JSON-RPC deployment never loads them (a cold start pays for every module).

Routes (the paths are routepaths.py's):
    GET  /.well-known/agent-card.json   the agent card (also /.well-known/agent.json)
    POST <rpc_path> (default /)          JSON-RPC 2.0, SSE for streaming methods
    *    /v1/...                         HTTP+JSON/REST of A2A 0.3 (v03/rest.py lists them)
    *    /message:send, /tasks/..., ...  HTTP+JSON of A2A 1.0, each also under /{tenant}/
                                         (routepaths.py, v10/rest.py)
    GET  /.well-known/jwks.json          public keys verifying our webhook JWTs (push enabled)
    GET  /v1/openapi.json                OpenAPI 3.1 of both versions' HTTP+JSON routes (public)
    GET  /health                         liveness, no store access
    *    /_inspector/...                     the inspector page and its API (inspector/), in dev
                                         mode or with A2A_INSPECTOR and authentication
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import msgspec

from . import jsonrpc_transport, tracing
from .errors import (
    AuthenticatedExtendedCardNotConfiguredError,
    MethodNotAllowedError,
    MethodNotFoundError,
    VersionNotSupportedError,
)
from .http import (
    JSON_HEADERS,
    PUBLIC_CACHE,
    Receive,
    Request,
    Response,
    Scope,
    Send,
    allow_header,
    buffered,
    is_json,
    json_bytes,
    json_response,
    query_string,
    send_response,
)
from .models import AgentCard
from .origins import OriginPolicy
from .publicurl import join_url, platform_base_url, trusted_networks
from .routepaths import (
    CARD_PATHS,
    HEALTH_PATH,
    JWKS_PATH,
    OPENAPI_PATH,
    is_callback_path,
    is_inspector_path,
    is_rest_path,
    v10_route,
)
from .runtime import Runtime
from .service import Caller
from .transport import ExtendedCard, Transport
from .versions import HEADER as VERSION_HEADER
from .versions import V10, requested_version

if TYPE_CHECKING:
    from .auth import AuthError
    from .budget import ResponseBudget
    from .inspector import Inspector

# What the adapters build requests and read responses with (http.py), and the ASGI types.
__all__ = ["A2AApplication", "Receive", "Request", "Response", "Scope", "Send"]

log = logging.getLogger("a2a_serverless.asgi")

# A card built from the request's headers is for that request's client only; a shared cache
# must not hand it to others (Vary too, for caches that ignore `private`).
PRIVATE_CARD_CACHE = [
    (b"cache-control", b"private, max-age=300"),
    (b"vary", b"Host, X-Forwarded-Host, X-Forwarded-Proto, X-Forwarded-Prefix"),
]
# Every caller of an app without authentication (a frozen value, shared).
ANONYMOUS = Caller()


class _ServedCard(msgspec.Struct, frozen=True):
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


class A2AApplication:
    """The app. `budget`: the response limit of the platform it answers on (budget.py), applied
    to whole bodies it sends over ASGI (`respond_buffered` takes its own)."""

    def __init__(self, runtime: Runtime, *, budget: ResponseBudget | None = None) -> None:
        self.runtime = runtime
        self.budget = budget
        self._rpc_path = "/" + runtime.settings.rpc_path.strip("/")
        self._cards: dict[str, _ServedCard] = {}
        self._openapi: bytes | None = None
        self.origin_policy = OriginPolicy(runtime.settings)
        self._trusted_proxies = trusted_networks(runtime.settings.trusted_proxies)
        self._jsonrpc: Transport = jsonrpc_transport.JsonRpcTransport(runtime.service)
        # Built on their first request (their modules imported then).
        self._rest: Transport | None = None
        self._rest_v10: Transport | None = None
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
        if self.budget is not None and response.events is None:
            # A whole body (streams go out live, as they are written).
            response = await self.budget.fit(response, request.headers)
        await send_response(request, send, response)

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

    async def respond_buffered(
        self, request: Request, budget: ResponseBudget | None = None
    ) -> Response:
        """`respond`, with an SSE stream run to its end and returned as one body: for platforms
        that buffer responses (the stream then covers what a blocking call waits for). With a
        `budget`, the platform's response limit (budget.py), the answer is kept within it."""
        response = await self.respond(request)
        if budget is None:
            return await buffered(response)
        return await budget.fit(response, request.headers)

    async def _route(self, request: Request) -> Response:
        """The route table: each path (routepaths.py) and who answers it, in the order tried."""
        path, method = request.path, request.method
        if path == self._rpc_path and method == "POST":
            content_type = request.headers.get("content-type")
            if not is_json(content_type):
                return jsonrpc_transport.not_json(content_type)
            return await self._serve(self._jsonrpc, request)
        if path in CARD_PATHS and method in ("GET", "HEAD"):
            if self.runtime.authenticates and self.runtime.security.protects_card:
                caller = await self._authenticate(request)
                if isinstance(caller, Response):
                    return caller
            return self._card(request)
        if path == JWKS_PATH and method in ("GET", "HEAD"):
            return self._jwks()
        if path == OPENAPI_PATH and method in ("GET", "HEAD"):
            return self._openapi_document()
        if path == HEALTH_PATH and method == "GET":
            return json_response(200, {"status": "ok"})
        if is_callback_path(path):
            # A durable call's callback: its own checks (an unguessable path and a token), no
            # caller authentication (the remote agent sends it).
            return await self.runtime.durable_calls.callback(request)
        if self._inspector is not None and is_inspector_path(path):
            return await self._inspector.respond(request)
        if is_rest_path(path):
            return await self._serve(self._rest_transport(), request)
        if v10_route(path) is not None:
            return await self._serve(self._rest_v10_transport(), request)
        return self._unrouted(request)

    def _unrouted(self, request: Request) -> Response:
        """404, or 405 on a path served with other methods; in 1.0's error form to a client
        that asked for 1.0."""
        path, method = request.path, request.method
        allowed = ["POST"] if path == self._rpc_path else ["GET", "HEAD"]
        if path == self._rpc_path or path in CARD_PATHS:
            if _asks_for_v10(request):
                from .v10 import rest as v10_rest

                return v10_rest.unrouted(MethodNotAllowedError(method, path, allowed))
            return json_response(405, {"error": "method not allowed"}, allow_header(allowed))
        if _asks_for_v10(request):
            from .v10 import rest as v10_rest

            return v10_rest.unrouted(
                MethodNotFoundError(
                    f"No A2A 1.0 HTTP+JSON route at {path}", data={"method": method, "path": path}
                )
            )
        return json_response(404, {"error": "not found"})

    def _rest_transport(self) -> Transport:
        if self._rest is None:
            from .rest.transport import RestTransport

            self._rest = RestTransport(self.runtime.service)
        return self._rest

    def _rest_v10_transport(self) -> Transport:
        if self._rest_v10 is None:
            from .v10.rest import V10RestTransport

            self._rest_v10 = V10RestTransport(self.runtime.service)
        return self._rest_v10

    async def _serve(self, transport: Transport, request: Request) -> Response:
        """A request for `transport`: authenticated (before its body is read, so a refused
        request costs nothing more), then answered by the transport."""
        caller = await self._caller(request) if self.runtime.authenticates else ANONYMOUS
        if not isinstance(caller, Caller):
            return transport.refuse(caller)
        return await transport.serve(request, caller, self.extended_card(request, caller))

    async def _caller(self, request: Request) -> Caller | AuthError:
        if not self.runtime.authenticates:
            return ANONYMOUS
        # Here: an app without authentication loads nothing of auth/.
        from .auth import AuthError, RequestView

        security = self.runtime.security
        try:
            view = RequestView.from_asgi_scope(request.scope, request.headers)
            identity = await security.authenticate(view)
        except AuthError as error:
            return error
        return Caller(owner=identity.owner, identity=identity)

    async def _authenticate(self, request: Request) -> Caller | Response:
        """The caller of a request to a page (the card, the inspector), or the 401/403/503
        response refusing it."""
        caller = await self._caller(request)
        if not isinstance(caller, Caller):
            return json_response(caller.status, caller.to_json(), list(caller.headers()))
        return caller

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
        from .card import build_card  # on the first card: a message needs none

        return build_card(
            self.runtime.agent,
            url=self.card_url(request),
            rest_url=self.rest_url(request),
            # Buffered streams are streams the server serves: a card that said `streaming:
            # false` would oblige it to refuse them (spec 1.0 §3.3.4).
            streaming=self.runtime.settings.streaming or self.runtime.settings.buffered_streams,
            push_notifications=self.runtime.service.push_notifications,
            security=self.runtime.security,
        )

    def extended_card(self, request: Request, caller: Caller) -> ExtendedCard | None:
        """What `agent/getAuthenticatedExtendedCard` serves this caller: the public card with the
        extended skills the caller's scopes allow. None where the card does not declare one
        (`extendedAgentCard: false`, which 1.0 answers with UnsupportedOperationError); a caller
        without an identity gets a builder that says there is none for it (-32007)."""
        agent, identity = self.runtime.agent, caller.identity
        if not agent.extended_skills or not self.runtime.authenticates:
            return None
        if identity is None:
            return _no_extended_card

        def build() -> AgentCard:
            skills = self.runtime.security.allowed_skills(
                identity, [*agent.skills, *agent.extended_skills]
            )
            return self.public_card(request).model_copy(update={"skills": skills})

        return build

    def _card(self, request: Request) -> Response:
        """The card, with the caching headers of spec v1.0 §8.6: a conditional GET whose
        If-None-Match names its ETag (or, without one, whose If-Modified-Since is not older than
        when this instance built it) is answered 304 without a body."""
        url = self.card_url(request)
        served = self._cards.get(url)
        if served is None:
            from .card import card_document

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
        """Both versions' HTTP+JSON routes as OpenAPI 3.1: public, like the card (it holds
        nothing secret)."""
        if self._openapi is None:
            from .rest import openapi  # only ever needed by tools, never on a cold start

            self._openapi = json_bytes(openapi.document(self.runtime.settings))
        return Response(200, [*JSON_HEADERS, PUBLIC_CACHE], self._openapi)

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


def _asks_for_v10(request: Request) -> bool:
    try:
        return requested_version(request.headers.get(VERSION_HEADER), query_string(request)) == V10
    except VersionNotSupportedError:
        return False


def _inspector(app: A2AApplication) -> Inspector | None:
    """The inspector, where it is served; imported only then (a cold start never pays for it)."""
    runtime = app.runtime
    if not (runtime.settings.dev_mode or runtime.settings.inspector):
        return None
    from .inspector import Inspector, inspector_enabled

    if not inspector_enabled(runtime):
        return None
    return Inspector(runtime, app._authenticate, app._rpc_path)


def _no_extended_card() -> AgentCard:
    raise AuthenticatedExtendedCardNotConfiguredError(
        "This agent has no extended agent card for this caller"
    )
