"""What the two HTTP+JSON bindings share (A2A 0.3's under /v1/, rest/; A2A 1.0's, v10/rest.py).

The request as they read it (`HttpRequest`: method, path, query, headers, body), their replies
(`RestReply`, `RestStreamReply`) and a streamed one as SSE, the strict readers of query
parameters and JSON bodies, and the one request handler (`handle`): a request on a route is
answered through its version's `RestBinding` (the route table onto the method table, how a
call's params are read, the error reply, the extensions headers). It never raises: every
failure becomes the version's error reply, unexpected ones logged and answered with 500
without internals.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import parse_qs

from . import limits
from .errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    MethodNotAllowedError,
    UnsupportedMediaTypeError,
)
from .extensions import echo_headers
from .http import SSE_HEADERS, Headers, Request, Response, query_string, sse_frame
from .observability import correlated
from .routepaths import Route
from .service import Caller, StreamEvent, StreamItem, TaskService
from .store.base import StoreUnavailable
from .transport import Call, ExtendedCard, Method, a2a_error, parse_last_event_id, sse_frames

__all__ = [
    "Headers",
    "HttpRequest",
    "RestBinding",
    "RestOperation",
    "RestReply",
    "RestStreamReply",
    "handle",
    "json_body",
    "parse_query",
    "query_bool",
    "query_int",
    "query_value",
    "read_request",
    "stream_response",
]


@dataclass(frozen=True, slots=True)
class HttpRequest:
    method: str
    # Relative to the app's root path, e.g. "/v1/tasks/abc".
    path: str
    query_string: str = ""
    # Lower-case names.
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass(frozen=True, slots=True)
class RestReply:
    status: int
    body: Any
    headers: Headers = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RestStreamReply:
    events: AsyncIterator[StreamItem]
    headers: Headers = field(default_factory=list)


def parse_query(query_string: str, allowed: tuple[str, ...]) -> dict[str, list[str]]:
    """The query parameters by json name (proto field names are taken too); a parameter not in
    `allowed` is refused (400), so a misspelt filter never silently lists everything."""
    parsed = parse_qs(query_string, keep_blank_values=True) if query_string else {}
    names = {name: name for name in allowed}
    names.update({_snake(name): name for name in allowed})
    query: dict[str, list[str]] = {}
    unknown = []
    for key, values in parsed.items():
        if key not in names:
            unknown.append(key)
            continue
        query.setdefault(names[key], []).extend(values)
    if unknown:
        errors = [{"field": key, "message": "Unknown query parameter"} for key in sorted(unknown)]
        raise InvalidParamsError(data={"errors": errors})
    return query


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def query_value(query: Mapping[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise InvalidParamsError(
            data={"errors": [{"field": name, "message": "Given more than once"}]}
        )
    return values[0]


_INTEGER = re.compile(r"-?[0-9]{1,20}")
_BOOLEANS = {"true": True, "True": True, "1": True, "false": False, "False": False, "0": False}


def query_int(query: Mapping[str, list[str]], name: str) -> int | None:
    value = query_value(query, name)
    if value is None:
        return None
    if not _INTEGER.fullmatch(value):
        raise InvalidParamsError(
            data={"errors": [{"field": name, "message": "Must be an integer (decimal digits)"}]}
        )
    return int(value)


def query_bool(query: Mapping[str, list[str]], name: str) -> bool | None:
    value = query_value(query, name)
    if value is None:
        return None
    if value not in _BOOLEANS:
        raise InvalidParamsError(
            data={"errors": [{"field": name, "message": "Must be true or false"}]}
        )
    return _BOOLEANS[value]


def json_body(
    request: HttpRequest,
    max_json_depth: int,
    *,
    required: bool,
    media_types: tuple[str, ...] = ("application/json",),
    refusal: str | None = None,
    typed: bool = False,
) -> dict[str, Any] | None:
    """The request's JSON object body (None if it has none and may have none); a body of a
    media type not in `media_types` is refused with 415 (`refusal`, if given, says why).

    `typed`: the call changes state, so even an empty body must be sent as one of
    `media_types`. A page of another origin can POST an empty text/plain, form or multipart
    body, or one with no Content-Type, without a CORS preflight; JSON it cannot."""
    raw = request.body
    empty = not raw.strip()
    if empty and not typed:
        if required:
            raise InvalidParamsError("A request body (a JSON object) is required")
        return None
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() not in media_types:
        raise UnsupportedMediaTypeError(
            refusal, data={"contentType": content_type or None, "expected": media_types[0]}
        )
    if empty:
        if required:
            raise InvalidParamsError("A request body (a JSON object) is required")
        return None
    value = limits.parse_json(raw, max_json_depth)
    if not isinstance(value, dict):
        raise InvalidParamsError("The request body must be a JSON object")
    return value


# --- the request handler -------------------------------------------------------------------------


class RestOperation(Protocol):
    """One verb on one route of a version's route table, as the handler reads it."""

    # The version's method (its METHODS key) the verb is.
    @property
    def method(self) -> str: ...

    # The method's result as the reply's body (0.3: in proto JSON; 1.0: as it is).
    @property
    def result(self) -> Callable[[Any], Any]: ...

    # Headers of a successful reply.
    @property
    def headers(self) -> Headers: ...


_Operation = TypeVar("_Operation", bound=RestOperation)


@dataclass(frozen=True, slots=True)
class RestBinding(Generic[_Operation]):
    """One version's HTTP+JSON binding: what the handler needs of it."""

    # Route name (routepaths.Route.name) -> HTTP verb -> the operation.
    routes: Mapping[str, Mapping[str, _Operation]]
    # The version's method table (its `methods.py`).
    methods: Mapping[str, Method]
    # A call's params, read from the path, the query and the body, and validated.
    params: Callable[[HttpRequest, Route, _Operation, Method, TaskService], Any]
    # An error as the version answers it (with extra headers).
    error_reply: Callable[[A2AError, Headers], RestReply]
    # The headers that activate extensions, the first one given wins; the first is echoed.
    extensions_headers: tuple[str, ...]
    log: logging.Logger


async def handle(
    binding: RestBinding[Any],
    request: HttpRequest,
    route: Route,
    service: TaskService,
    caller: Caller,
    *,
    extended_card: ExtendedCard | None = None,
) -> RestReply | RestStreamReply:
    """The reply to one request on `route` (a route of `binding`'s table)."""
    operations = binding.routes[route.name]
    try:
        operation = operations.get(request.method)
        if operation is None:
            raise MethodNotAllowedError(request.method, request.path, list(operations))
        method = binding.methods[operation.method]
        headers = request.headers
        requested = next(
            (headers[name] for name in binding.extensions_headers if headers.get(name)), None
        )
        caller = service.activate_extensions(caller, requested)
        with correlated():
            params = binding.params(request, route, operation, method, service)
            # Read only where it means something: a stream resumes after that event.
            last_event_id = None
            if method.streaming:
                last_event_id = parse_last_event_id(headers.get("last-event-id"))
            call = Call(service, caller, last_event_id, extended_card)
            result = await method.handler(params, call)
    except MethodNotAllowedError as error:
        return binding.error_reply(error, [(b"allow", ", ".join(error.allowed).encode())])
    except (A2AError, StoreUnavailable) as error:
        return binding.error_reply(a2a_error(error), [])
    except Exception:
        binding.log.exception("unexpected error serving %s %s", request.method, request.path)
        return binding.error_reply(InternalError(), [])
    echo = echo_headers(caller.extensions, binding.extensions_headers[0])
    if method.streaming:
        return RestStreamReply(result, echo)
    return RestReply(200, operation.result(result), [*operation.headers, *echo])


# --- over HTTP ------------------------------------------------------------------------------------


async def read_request(request: Request, limit: int) -> HttpRequest:
    """The HTTP+JSON request as the bindings read it, its body at most `limit` bytes
    (`BodyTooLarge` otherwise)."""
    return HttpRequest(
        method=request.method,
        path=request.path,
        query_string=query_string(request),
        headers=request.headers,
        body=await request.body(limit),
    )


def stream_response(
    reply: RestStreamReply,
    event_body: Callable[[StreamEvent], Any],
    error_body: Callable[[A2AError], Any],
) -> Response:
    """A streamed reply as SSE: each event `id: <log position>` and `data: <event_body>`; a
    failure after the stream began is one `event: error` whose data is `error_body`."""

    def error_frame(error: A2AError) -> bytes:
        return b"event: error\n" + sse_frame(error_body(error))

    frames = sse_frames(
        reply.events, lambda event: sse_frame(event_body(event), event.seq), error_frame
    )
    return Response(200, [*SSE_HEADERS, *reply.headers], events=frames, error_frame=error_frame)
