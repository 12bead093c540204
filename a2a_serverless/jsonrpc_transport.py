"""The JSON-RPC endpoint as a `Transport` (transport.py): one POST, either protocol version.

jsonrpc.py answers a request body; this reads the HTTP request (the version it asks for, its
body under the size limit, its headers) and writes the reply: a JSON body, nothing for a
notification (204), or an SSE stream for the streaming methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import A2AError, UnsupportedMediaTypeError
from .extensions import HEADER as EXTENSIONS_HEADER
from .extensions import V1_HEADER as V1_EXTENSIONS_HEADER
from .extensions import echo_headers
from .http import (
    SSE_HEADERS,
    BodyTooLarge,
    Request,
    Response,
    json_response,
    query_string,
    sse_frame,
)
from .jsonrpc import Protocol, RpcStreamReply, error_response, handle, stream_event_body
from .limits import RequestTooLargeError
from .service import Caller, TaskService
from .transport import ExtendedCard, sse_frames
from .v03.jsonrpc import V03
from .versions import HEADER as VERSION_HEADER
from .versions import V10, requested_version

if TYPE_CHECKING:
    from .auth import AuthError


class JsonRpcTransport:
    """The JSON-RPC endpoint as a `Transport`: one POST, either protocol version.

    The version is the request's `A2A-Version` (header or query parameter): none or 0.3 is
    served with `V03`, 1.0 with `v10.jsonrpc.V10` (imported on the first v1.0 request, so a v0.3
    deployment never pays for it); each echoes its own extension header.
    """

    def __init__(self, service: TaskService) -> None:
        self.service = service
        self._v10: Protocol | None = None  # v10.jsonrpc.V10, imported on the first v1.0 request

    def _v10_protocol(self) -> Protocol:
        if self._v10 is None:
            from .v10.jsonrpc import V10

            self._v10 = V10
        return self._v10

    async def serve(
        self, request: Request, caller: Caller, extended_card: ExtendedCard | None
    ) -> Response:
        headers = request.headers
        try:
            version = requested_version(headers.get(VERSION_HEADER), query_string(request))
        except A2AError as error:
            return json_response(200, error_response(None, error, self._v10_protocol()))
        protocol, extensions_name = V03, EXTENSIONS_HEADER
        requested_extensions = headers.get(EXTENSIONS_HEADER)
        if version == V10:
            protocol, extensions_name = self._v10_protocol(), V1_EXTENSIONS_HEADER
            requested_extensions = headers.get(V1_EXTENSIONS_HEADER) or requested_extensions
        limit = self.service.settings.max_body_bytes
        try:
            raw = await request.body(limit)
        except BodyTooLarge:
            return json_response(413, error_response(None, RequestTooLargeError(limit), protocol))
        reply = await handle(
            raw,
            self.service,
            caller,
            last_event_id_header=headers.get("last-event-id"),
            extensions_header=requested_extensions,
            extended_card=extended_card,
            protocol=protocol,
        )
        echo = echo_headers(reply.extensions, extensions_name)
        if isinstance(reply, RpcStreamReply):
            request_id = reply.request_id

            def error_frame(error: A2AError) -> bytes:
                return sse_frame(error_response(request_id, error, protocol))

            frames = sse_frames(
                reply.events,
                lambda event: sse_frame(stream_event_body(request_id, event, protocol), event.seq),
                error_frame,
            )
            return Response(200, [*SSE_HEADERS, *echo], events=frames, error_frame=error_frame)
        if reply.body is None:
            return Response(204, echo)
        if reply.status != 200:
            return json_response(reply.status, reply.body, [*reply.headers, *echo])
        if reply.as_sse:
            return Response(200, SSE_HEADERS, sse_frame(reply.body))
        response = json_response(200, reply.body, [*reply.headers, *echo])
        answered_id = reply.body.get("id")

        def refusal(error: A2AError) -> Response:
            return json_response(200, error_response(answered_id, error, protocol))

        response.refusal = refusal
        return response

    def refuse(self, error: AuthError) -> Response:
        return json_response(error.status, error.jsonrpc_body(None), list(error.headers()))


def not_json(content_type: str | None) -> Response:
    """JSON-RPC is carried as application/json only (spec §3.2.1): a form, a multipart or a
    text/plain body — what a page of another origin can send without asking — is refused with
    415, before authentication or the body is read."""
    error = UnsupportedMediaTypeError(
        data={"contentType": content_type, "expected": "application/json"}
    )
    return json_response(415, error_response(None, error))
