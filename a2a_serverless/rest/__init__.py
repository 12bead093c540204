"""The HTTP+JSON/REST transport (spec §3.2.3): `routes` maps requests to the TaskService,
`proto_json` converts between the REST wire form (proto JSON) and our models' JSON form.

A lazy face (`lazyface.py`): importing `proto_json` alone (the client does) loads neither the
routes nor the service."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazyface import lazy_face

if TYPE_CHECKING:
    from ..httpjson import HttpRequest, RestReply, RestStreamReply
    from ..limits import RequestTooLargeError
    from ..routepaths import is_rest_path
    from .routes import error_body, error_reply, handle, stream_event_body

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
__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "HttpRequest": "..httpjson",
        "RestReply": "..httpjson",
        "RestStreamReply": "..httpjson",
        "RequestTooLargeError": "..limits",
        "is_rest_path": "..routepaths",
        "error_body": ".routes",
        "error_reply": ".routes",
        "handle": ".routes",
        "stream_event_body": ".routes",
    },
)
