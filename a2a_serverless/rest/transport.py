"""A2A 0.3's HTTP+JSON binding (the routes under /v1/) as a `Transport` (transport.py).

Reads the request into an `HttpRequest`, finds its route (`routepaths.v03_route`), lets the 0.3
codec's route table answer it (`v03.rest.handle`), and writes the reply:
a JSON body, or an SSE stream whose events are `StreamResponse`s and whose failure after the
start is one `event: error`. A 1.0 client (`A2A-Version: 1.0`) is told that these routes are
0.3's and where 1.0's are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import A2AError, MethodNotFoundError, VersionNotSupportedError
from ..http import BodyTooLarge, Request, Response, json_response, query_string
from ..httpjson import RestReply, RestStreamReply, read_request, stream_response
from ..limits import RequestTooLargeError
from ..routepaths import v03_route
from ..service import Caller, TaskService
from ..transport import ExtendedCard
from ..v03.rest import error_body, error_reply, handle, stream_event_body
from ..versions import HEADER as VERSION_HEADER
from ..versions import V10, requested_version

if TYPE_CHECKING:
    from ..auth import AuthError


class RestTransport:
    def __init__(self, service: TaskService) -> None:
        self.service = service

    async def serve(
        self, request: Request, caller: Caller, extended_card: ExtendedCard | None
    ) -> Response:
        reply: RestReply | RestStreamReply
        limit = self.service.settings.max_body_bytes
        try:
            version = requested_version(request.headers.get(VERSION_HEADER), query_string(request))
            if version == V10:
                raise VersionNotSupportedError(
                    "The /v1/ routes are A2A 0.3's HTTP+JSON binding: send A2A-Version: 0.3 "
                    "(or none) here; A2A 1.0's routes have no /v1 prefix (/message:send, "
                    "/tasks/{id}, ...: the card's supportedInterfaces)",
                    data={"requestedVersion": "1.0", "supportedVersions": ["0.3"]},
                )
            http_request = await read_request(request, limit)
            route = v03_route(request.path)
            if route is None:
                raise MethodNotFoundError(
                    f"No REST endpoint at {request.path}",
                    data={"method": request.method, "path": request.path},
                )
        except A2AError as error:
            reply = error_reply(error)
        except BodyTooLarge:
            reply = error_reply(RequestTooLargeError(limit))
        else:
            reply = await handle(
                http_request, route, self.service, caller, extended_card=extended_card
            )
        if isinstance(reply, RestStreamReply):
            return stream_response(reply, stream_event_body, error_body)
        response = json_response(reply.status, reply.body, reply.headers)
        response.refusal = refusal
        return response

    def refuse(self, error: AuthError) -> Response:
        return json_response(error.status, error.to_json(), list(error.headers()))


def refusal(error: A2AError) -> Response:
    """An error answered instead of a response (the platform's response limit, budget.py)."""
    reply = error_reply(error)
    return json_response(reply.status, reply.body, reply.headers)
