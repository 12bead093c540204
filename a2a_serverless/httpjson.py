"""What the two HTTP+JSON bindings share (A2A 0.3's under /v1/, rest/; A2A 1.0's, v10/rest.py).

The request as they read it (`HttpRequest`: method, path, query, headers, body), their replies
(`RestReply`, `RestStreamReply`) and a streamed one as SSE, and the strict readers of query
parameters and JSON bodies.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from . import limits
from .errors import A2AError, InvalidParamsError, UnsupportedMediaTypeError
from .http import SSE_HEADERS, Headers, Request, Response, query_string, sse_frame
from .service import StreamEvent, StreamItem
from .transport import sse_frames

__all__ = [
    "Headers",
    "HttpRequest",
    "RestReply",
    "RestStreamReply",
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
