"""A2A v1.0 over HTTP+JSON (spec v1.0 §11): routes, request assembly, `google.rpc.Status` errors.

`handle(request, route, service, caller)` answers one request on a v1.0 route (`routepaths.py`
says which route a path names) with a `RestReply` (HTTP status, JSON body) or a
`RestStreamReply` (SSE of `StreamResponse`). It never raises. The ASGI app (asgi.py)
authenticates the caller, checks the version and reads the body first, and writes the reply.
Imported on the first v1.0 HTTP+JSON request only: a v0.3 deployment never loads it.

Routes (a2a.proto's `google.api.http` options), each also under `/{tenant}/`:

    POST   /message:send                              SendMessage
    POST   /message:stream                            SendStreamingMessage (SSE)
    GET    /tasks/{id}?historyLength=                 GetTask
    GET    /tasks?contextId=&status=&pageSize=&pageToken=&historyLength=
                 &statusTimestampAfter=&includeArtifacts=    ListTasks
    POST   /tasks/{id}:cancel                         CancelTask (body optional)
    GET    /tasks/{id}:subscribe                      SubscribeToTask (SSE; the proto's verb)
    POST   /tasks/{id}:subscribe                      the same (§11.3.2 verb; body optional)
    POST   /tasks/{taskId}/pushNotificationConfigs            CreateTaskPushNotificationConfig
    GET    /tasks/{taskId}/pushNotificationConfigs?pageSize=&pageToken=   ...Configs (paged)
    GET    /tasks/{taskId}/pushNotificationConfigs/{id}       GetTaskPushNotificationConfig
    DELETE /tasks/{taskId}/pushNotificationConfigs/{id}       DeleteTaskPushNotificationConfig
    GET    /extendedAgentCard                         GetExtendedAgentCard

One place for each rule: a request is assembled, as gRPC transcoding has it, from the body
(`body: "*"` routes), the path's fields and the query parameters into the v1.0 request object
of the JSON-RPC method of the same name; it is then checked, translated and served by that
method's entry in `v10/methods.py`'s table (the same limits, conversions, results and stream
events as v1.0 over JSON-RPC), and its errors carry the same details (`v10/errors.py`).

Requests:

- Version: these routes are v1.0 only. A request must say `A2A-Version: 1.0` (header or query
  parameter, `versions.py`); one without it is A2A 0.3 (spec v1.0 §3.6.2: an empty version
  means 0.3), which these routes do not speak, so it gets VersionNotSupportedError (HTTP 400)
  pointing at the header and at the v0.3 routes under `/v1/`. The official SDK's server does
  the same; its clients always send the header.
- Bodies are JSON objects, `Content-Type: application/a2a+json` or `application/json` (any
  parameters); another type is 415. Cancel and subscribe take an empty body too; cancel's must
  still carry one of those types. Bodies are parsed strictly and held to the configured limits
  (`limits.py`), as over JSON-RPC.
- Query parameters take camelCase names (spec §11.5) or the proto field names (`page_size`);
  `A2A-Version` is taken too; any other is refused (400), so a misspelt filter never silently
  lists everything. Integers are decimal digits, booleans `true`/`false`, `status` the enum
  name (`TASK_STATE_WORKING`), `statusTimestampAfter` RFC 3339 (`2026-01-31T12:00:00Z`).
- A field given in the path (`id`, `taskId`, `tenant`) may be repeated in the body only with
  the same value: a body naming another task or tenant than its URL is refused (400).
- `Last-Event-ID` resumes message:stream and :subscribe after that event, as over JSON-RPC.
  `A2A-Extensions` (or `X-A2A-Extensions`) activates extensions and is echoed on success.

Tenants: `tenant` (the `/{tenant}/` path segment, or the request's `tenant` field) is the
spec's opaque routing key for deployments that put several agents behind one endpoint. This
server is one agent and advertises no tenant on its card, so it accepts any tenant and routes
every one to that agent. A tenant is never an identity and never widens what a caller sees:
tasks and push configs stay scoped by the authenticated owner (the caller's identity, or the
single anonymous owner without authentication), so naming any tenant reaches exactly the
caller's own tasks, the same under every tenant and over every binding — never another
owner's. (JSON-RPC v1.0 reads the `tenant` field the same way.)

Responses: `Content-Type: application/a2a+json`; streams `text/event-stream`, each event
`id: <event log position>` and `data: <StreamResponse>` (a Task first, then updates; the stream
ends at a terminal or interrupted state). SubscribeToTask refuses a task already in a terminal
state (UnsupportedOperationError). An error after a stream began is one `event: error` whose
data is the error body below, and the stream ends.

Errors are `google.rpc.Status` (spec §11.6), with the A2A error's details:

    {"error": {"code": <HTTP status>, "status": "NOT_FOUND", "message": "...",
               "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org",
                            "metadata": {...}}, <google.rpc.BadRequest for invalid params>]}}

The HTTP status of each A2A error is the spec's §5.4 table: TaskNotFound 404; TaskNotCancelable,
PushNotificationNotSupported, UnsupportedOperation, ContentTypeNotSupported,
ExtendedAgentCardNotConfigured, ExtensionSupportRequired, VersionNotSupported 400;
InvalidAgentResponse 500. The others keep the status the v0.3 binding gives them: invalid
params or request 400 (413 for a body or file over its limit), no such route 404, a wrong verb
405 (with `Allow`), a body that is not JSON 415, a push config conflict 409, authentication
401/403, the store unreachable 503 (`Retry-After`), an unexpected failure 500 (logged, without
internals).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import httpjson
from ..auth import AuthError
from ..errors import (
    A2AError,
    AuthorizationError,
    InvalidParamsError,
    MethodNotAllowedError,
    MethodNotFoundError,
    VersionNotSupportedError,
)
from ..extensions import HEADER as V03_EXTENSIONS_HEADER
from ..extensions import V1_HEADER as EXTENSIONS_HEADER
from ..http import (
    BodyTooLarge,
    Request,
    Response,
    allow_header,
    json_bytes,
    query_string,
)
from ..httpjson import (
    Headers,
    HttpRequest,
    RestBinding,
    RestReply,
    RestStreamReply,
    json_body,
    parse_query,
    query_bool,
    query_int,
    query_value,
    read_request,
    stream_response,
)
from ..limits import RequestTooLargeError
from ..routepaths import Route, v10_route
from ..service import Caller, TaskService
from ..transport import ExtendedCard, Method, parse_params
from ..versions import HEADER as VERSION_HEADER
from ..versions import QUERY_PARAMETER as VERSION_QUERY_PARAMETER
from ..versions import V10, requested_version
from . import errors
from .methods import METHODS, event_result

log = logging.getLogger("a2a_serverless.v10.rest")

CONTENT_TYPE = "application/a2a+json"
MEDIA_TYPES = (CONTENT_TYPE, "application/json")
_NOT_JSON = "The request body must be JSON (Content-Type: application/a2a+json or application/json)"

# A2A error code (v1.0) -> HTTP status and google.rpc.Code name (spec v1.0 §5.4).
_SPEC_STATUS = {
    -32001: (404, "NOT_FOUND"),
    -32002: (400, "FAILED_PRECONDITION"),
    -32003: (400, "FAILED_PRECONDITION"),
    -32004: (400, "FAILED_PRECONDITION"),
    -32005: (400, "INVALID_ARGUMENT"),
    -32006: (500, "INTERNAL"),
    -32007: (400, "FAILED_PRECONDITION"),
    -32008: (400, "FAILED_PRECONDITION"),
    -32009: (400, "FAILED_PRECONDITION"),
}
# The google.rpc.Code name of the other errors, by their HTTP status.
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ALREADY_EXISTS",
    413: "INVALID_ARGUMENT",
    415: "INVALID_ARGUMENT",
    500: "INTERNAL",
    502: "INTERNAL",
    503: "UNAVAILABLE",
}


def _unchanged(result: Any) -> Any:
    return result


@dataclass(frozen=True, slots=True)
class Operation:
    """One verb of one route (ROUTES, also read by scripts/openapi_gen.py)."""

    # The v1.0 method (v10/methods.py's METHODS) this verb on this route is.
    method: str
    # True: a body is required; False: it may be empty; None: the verb takes none (ignored).
    body: bool | None = None
    # The verb changes state: even an empty body must be typed JSON (httpjson.json_body).
    typed: bool = False
    # The query parameters it takes (json names) and their types.
    query: tuple[tuple[str, type], ...] = ()
    headers: Headers = field(default_factory=list)
    # Its result is the reply's body as it is (methods.py encodes it).
    result: Callable[[Any], Any] = _unchanged


_LIST_QUERY = (
    ("contextId", str),
    ("status", str),
    ("pageSize", int),
    ("pageToken", str),
    ("historyLength", int),
    ("statusTimestampAfter", str),
    ("includeArtifacts", bool),
)

# Route name (routepaths.V10_PATHS) -> HTTP verb -> what it is.
ROUTES: dict[str, dict[str, Operation]] = {
    "message:send": {"POST": Operation("SendMessage", body=True)},
    "message:stream": {"POST": Operation("SendStreamingMessage", body=True)},
    "tasks": {"GET": Operation("ListTasks", query=_LIST_QUERY)},
    "task": {"GET": Operation("GetTask", query=(("historyLength", int),))},
    "task:cancel": {"POST": Operation("CancelTask", body=False, typed=True)},
    "task:subscribe": {
        "GET": Operation("SubscribeToTask"),
        "POST": Operation("SubscribeToTask", body=False),
    },
    "pushConfigs": {
        "GET": Operation(
            "ListTaskPushNotificationConfigs", query=(("pageSize", int), ("pageToken", str))
        ),
        "POST": Operation("CreateTaskPushNotificationConfig", body=True),
    },
    "pushConfig": {
        "GET": Operation("GetTaskPushNotificationConfig"),
        "DELETE": Operation("DeleteTaskPushNotificationConfig"),
    },
    # The card for this caller only: never kept by a shared cache.
    "extendedAgentCard": {
        "GET": Operation("GetExtendedAgentCard", headers=[(b"cache-control", b"private, no-store")])
    },
}


# --- errors ---------------------------------------------------------------------------------------


def _status(error: A2AError) -> tuple[int, str]:
    found = _SPEC_STATUS.get(errors.code_of(error))
    if found is not None:
        return found
    status = error.rest_status
    return status, _STATUS_NAMES.get(status, "UNKNOWN")


def error_body(error: A2AError) -> dict[str, Any]:
    """The `google.rpc.Status` of an error, as HTTP+JSON sends it."""
    status, name = _status(error)
    return {
        "error": {
            "code": status,
            "status": name,
            "message": error.message,
            "details": errors.details(error),
        }
    }


def error_reply(error: A2AError, headers: Headers | None = None) -> RestReply:
    return RestReply(_status(error)[0], error_body(error), [*error.headers, *(headers or [])])


def auth_refusal(error: AuthError) -> RestReply:
    """An authentication failure (answered before the body is read) as a v1.0 error: 401 or
    403 with its challenge headers; the reason is PERMISSION_DENIED, as over JSON-RPC."""
    refusal = AuthorizationError(
        error.reason,
        data={"httpStatus": error.status, "error": error.error_code},
        status=error.status,
        headers=error.headers(),
    )
    return error_reply(refusal)


def version_required(version: str) -> VersionNotSupportedError:
    """The refusal of a request on these routes that does not ask for v1.0."""
    return VersionNotSupportedError(
        f"These routes are A2A 1.0's HTTP+JSON binding and this request asked for A2A {version}"
        " (no A2A-Version means 0.3): send the header 'A2A-Version: 1.0', or use the A2A 0.3 "
        "HTTP+JSON routes under /v1/",
        data={"requestedVersion": version, "supportedVersions": ["1.0"]},
    )


# The data of one SSE event: a StreamResponse, as over JSON-RPC.
event_body = event_result


# --- requests -------------------------------------------------------------------------------------


async def handle(
    request: HttpRequest,
    route: Route,
    service: TaskService,
    caller: Caller,
    *,
    extended_card: ExtendedCard | None = None,
) -> RestReply | RestStreamReply:
    return await httpjson.handle(
        BINDING, request, route, service, caller, extended_card=extended_card
    )


def _read_params(
    request: HttpRequest, route: Route, operation: Operation, method: Method, service: TaskService
) -> Any:
    raw = _assemble(request, route, operation, service.settings.max_json_depth)
    return parse_params(method, raw, service)


def _assemble(
    request: HttpRequest, route: Route, operation: Operation, max_json_depth: int
) -> dict[str, Any]:
    """The v1.0 request object of a call: its body, then its query parameters, then the fields
    its path gives (which a body may repeat only with the same value)."""
    allowed = (*(name for name, _ in operation.query), VERSION_QUERY_PARAMETER)
    query = parse_query(request.query_string, allowed)
    raw: dict[str, Any] = {}
    if operation.body is not None:
        body = json_body(
            request,
            max_json_depth,
            required=operation.body,
            media_types=MEDIA_TYPES,
            refusal=_NOT_JSON,
            typed=operation.typed,
        )
        raw = body or {}
    for name, kind in operation.query:
        value: Any
        if kind is int:
            value = query_int(query, name)
        elif kind is bool:
            value = query_bool(query, name)
        else:
            value = query_value(query, name)
        if value is not None:
            raw[name] = value
    fields = dict(route.params)
    if route.tenant is not None:
        fields["tenant"] = route.tenant
    for name, value in fields.items():
        given = raw.get(name)
        if given not in (None, "", value):
            raise InvalidParamsError(
                f"The body's {name} is not the path's ({value!r})",
                data={"errors": [{"field": name, "message": f"must be {value!r} or left out"}]},
            )
        raw[name] = value
    return raw


BINDING = RestBinding(
    routes=ROUTES,
    methods=METHODS,
    params=_read_params,
    error_reply=error_reply,
    # 1.0's name first; 0.3's is taken too.
    extensions_headers=(EXTENSIONS_HEADER, V03_EXTENSIONS_HEADER),
    log=log,
)


# --- over HTTP ------------------------------------------------------------------------------------


class V10RestTransport:
    """These routes as a `Transport` (transport.py): the request read, the reply written in
    1.0's media type, streams as SSE of `StreamResponse`s with a failure as one `event: error`."""

    def __init__(self, service: TaskService) -> None:
        self.service = service

    async def serve(
        self, request: Request, caller: Caller, extended_card: ExtendedCard | None
    ) -> Response:
        reply: RestReply | RestStreamReply
        route = v10_route(request.path)
        limit = self.service.settings.max_body_bytes
        try:
            if route is None:
                raise MethodNotFoundError(
                    f"No A2A 1.0 HTTP+JSON route at {request.path}",
                    data={"method": request.method, "path": request.path},
                )
            version = requested_version(request.headers.get(VERSION_HEADER), query_string(request))
            if version != V10:
                raise version_required(version)
            http_request = await read_request(request, limit)
        except A2AError as error:
            reply = error_reply(error)
        except BodyTooLarge:
            reply = error_reply(RequestTooLargeError(limit))
        else:
            reply = await handle(
                http_request, route, self.service, caller, extended_card=extended_card
            )
        return response(reply)

    def refuse(self, error: AuthError) -> Response:
        return response(auth_refusal(error))


def unrouted(error: A2AError) -> Response:
    """A path or verb the app does not serve, answered to a 1.0 client in 1.0's error form (a
    `google.rpc.Status`), as the routes it does know answer their errors."""
    allowed = error.allowed if isinstance(error, MethodNotAllowedError) else []
    return response(error_reply(error, allow_header(allowed) if allowed else None))


def response(reply: RestReply | RestStreamReply) -> Response:
    if isinstance(reply, RestStreamReply):
        return stream_response(reply, event_body, error_body)
    content_type = (b"content-type", CONTENT_TYPE.encode())
    return Response(
        reply.status, [content_type, *reply.headers], json_bytes(reply.body), refusal=refusal
    )


def refusal(error: A2AError) -> Response:
    """An error answered instead of a response (the platform's response limit, budget.py)."""
    return response(error_reply(error))
