"""The JSON-RPC 2.0 binding: envelope checks, dispatch through a version's method table, errors.

`handle(body, ..., protocol=...)` turns one request body into an `RpcReply` (a JSON object to
send, or nothing for a notification) or an `RpcStreamReply` (SSE events, for the streaming
methods). Each protocol version gives its `Protocol` (its method table, how it writes errors and
stream events): `v03/jsonrpc.py`, `v10/jsonrpc.py`. It never raises: every failure becomes a
JSON-RPC error object, and unexpected ones are logged and reported as -32603 without internals.
Bodies are parsed strictly and checked against the configured limits before any method runs
(limits.py).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec

from . import limits, tracing
from .errors import A2AError, InternalError, InvalidRequestError
from .observability import correlated_rpc
from .service import Caller, StreamEvent, StreamItem, TaskService
from .store.base import StoreUnavailable
from .transport import (
    ABSENT,
    Call,
    ExtendedCard,
    Method,
    a2a_error,
    parse_last_event_id,
    parse_params,
    render,
)

log = logging.getLogger("a2a_serverless.jsonrpc")

RequestId = str | int | None


class RpcReply(msgspec.Struct):
    """A JSON-RPC response object; None for a notification (no body is sent).

    `as_sse` is set for errors of v0.3's streaming methods: clients of those expect an event
    stream, so the error goes out as its single event (as the official SDK's servers do).
    """

    body: dict[str, Any] | None
    as_sse: bool = False
    # Extensions activated for the request: echoed in the X-A2A-Extensions response header.
    extensions: tuple[str, ...] = ()
    # Authorization failures keep their HTTP status (and headers) over JSON-RPC too.
    status: int = 200
    headers: tuple[tuple[bytes, bytes], ...] = ()


class RpcStreamReply(msgspec.Struct):
    request_id: RequestId
    events: AsyncIterator[StreamItem]
    extensions: tuple[str, ...] = ()
    # How the protocol version of the request writes one event's `result`.
    event_result: Callable[[StreamEvent], Any] = lambda event: event.payload.model_dump()


class Protocol(msgspec.Struct, frozen=True):
    """One protocol version's JSON-RPC: its methods and how it writes errors and stream events.

    v0.3's is `v03.jsonrpc.V03`; v1.0's is `v10.jsonrpc.V10`, imported only for v1.0 requests.
    """

    version: str
    methods: dict[str, Method]
    # The JSON-RPC `error` object of an A2A error.
    error_object: Callable[[A2AError], dict[str, Any]]
    # The `result` of one stream event.
    event_result: Callable[[StreamEvent], Any]
    # The error for a method this version does not have (e.g. another version's).
    unknown_method: Callable[[str], A2AError]
    # An error a streaming method raises before its stream starts goes out as the stream's one
    # SSE event (v0.3, as its official servers do), or as a plain JSON-RPC response (v1.0, as
    # its official servers and conformance kit have it).
    stream_errors_as_sse: bool = True
    # The `result` of a method's answer (v1.0's handlers answer JSON already).
    result: Callable[[Any], Any] = render


async def handle(
    raw: bytes,
    service: TaskService,
    caller: Caller,
    *,
    last_event_id_header: str | None = None,
    extensions_header: str | None = None,
    extended_card: ExtendedCard | None = None,
    protocol: Protocol,
) -> RpcReply | RpcStreamReply:
    settings = service.settings
    try:
        request = limits.parse_json(raw, settings.max_json_depth)
    except A2AError as error:
        return RpcReply(error_response(None, error, protocol))
    try:
        _check_envelope(request)
    except InvalidRequestError as error:
        # Not a valid Request object, so not a notification either: always answered.
        request_id = request.get("id") if isinstance(request, dict) else None
        valid_id = request_id if _valid_id(request_id) else None
        return RpcReply(error_response(valid_id, error, protocol))
    notification = "id" not in request
    request_id = request.get("id")
    method = protocol.methods.get(request["method"])
    streaming = method is not None and method.streaming
    try:
        if method is None:
            raise protocol.unknown_method(request["method"])
        params = parse_params(method, request.get("params", ABSENT), service)
        if notification and method.non_blocking is not None:
            # Nobody waits for a notification's answer, so never hold it open.
            params = method.non_blocking(params)
        last_event_id = parse_last_event_id(last_event_id_header)
        caller = service.activate_extensions(caller, extensions_header)
        call = Call(service, caller, last_event_id, extended_card)
        if tracing.enabled():
            _annotate(request["method"], request_id)
        with correlated_rpc(request_id):
            result = await method.handler(params, call)
    except (A2AError, StoreUnavailable) as caught:
        answer = a2a_error(caught)
        if tracing.enabled():
            tracing.annotate({"rpc.jsonrpc.error_code": answer.code})
        body = None if notification else error_response(request_id, answer, protocol)
        status = answer.jsonrpc_status
        as_sse = streaming and status == 200 and protocol.stream_errors_as_sse
        return RpcReply(body, as_sse, (), status, tuple(answer.headers))
    except Exception:
        log.exception("unexpected error in JSON-RPC method %r", request.get("method"))
        body = None if notification else error_response(request_id, InternalError(), protocol)
        return RpcReply(body, streaming and protocol.stream_errors_as_sse)
    activated = caller.extensions
    if method.streaming:
        if notification:
            await result.aclose()
            return RpcReply(None)
        return RpcStreamReply(request_id, result, activated, protocol.event_result)
    if notification:
        return RpcReply(None)
    body = {"jsonrpc": "2.0", "id": request_id, "result": protocol.result(result)}
    return RpcReply(body, extensions=activated)


def _annotate(method: str, request_id: Any) -> None:
    """The request's span names its A2A method (RPC semantic conventions)."""
    attributes: dict[str, str | int | bool] = {
        "rpc.system": "jsonrpc",
        "rpc.method": method,
        "rpc.jsonrpc.version": "2.0",
    }
    if request_id is not None:
        attributes["rpc.jsonrpc.request_id"] = str(request_id)
    tracing.annotate(attributes, name=method)


def _check_envelope(request: Any) -> None:
    if isinstance(request, list):
        raise InvalidRequestError("Batch requests are not supported")
    if not isinstance(request, dict):
        raise InvalidRequestError("A JSON-RPC request must be a JSON object")
    if request.get("jsonrpc") != "2.0":
        raise InvalidRequestError("'jsonrpc' must be exactly \"2.0\"")
    if "id" in request and not _valid_id(request["id"]):
        raise InvalidRequestError("'id' must be a string, an integer or null")
    if not isinstance(request.get("method"), str):
        raise InvalidRequestError("'method' must be a string")


def _valid_id(value: Any) -> bool:
    return (
        value is None
        or isinstance(value, str)
        or (isinstance(value, int) and not isinstance(value, bool))
    )


def error_response(
    request_id: RequestId, error: A2AError, protocol: Protocol | None = None
) -> dict[str, Any]:
    error_object = protocol.error_object(error) if protocol is not None else error.to_jsonrpc()
    return {"jsonrpc": "2.0", "id": request_id, "error": error_object}


def stream_event_body(
    request_id: RequestId, event: StreamEvent, protocol: Protocol | None = None
) -> dict[str, Any]:
    result = protocol.event_result(event) if protocol is not None else event.payload.model_dump()
    return {"jsonrpc": "2.0", "id": request_id, "result": result}
