"""The HTTP+JSON/REST transport (spec §3.2.3): `routes` maps requests to the TaskService,
`proto_json` converts between the REST wire form (proto JSON) and our models' JSON form."""

from __future__ import annotations

from ..httpjson import HttpRequest, RestReply, RestStreamReply
from ..limits import RequestTooLargeError
from ..routepaths import is_rest_path
from .routes import (
    error_body,
    error_reply,
    handle,
    stream_event_body,
)

__all__ = [
    "HttpRequest",
    "RequestTooLargeError",
    "RestReply",
    "RestStreamReply",
    "error_body",
    "error_reply",
    "handle",
    "is_rest_path",
    "stream_event_body",
]
