"""A2A v1.0 over JSON-RPC: its methods by name, and errors with `google.rpc.ErrorInfo` details.

The envelope, the limits, authentication and the method dispatch are `jsonrpc.handle`'s, the
same for both versions; this module gives it v1.0's `Protocol`: its eleven methods (`methods.py`,
shared with the HTTP+JSON binding), its error objects and its stream events (`StreamResponse`).

Errors (spec v1.0 §9.5): `error.data` is the list of details `errors.py` builds (a
`google.rpc.ErrorInfo` naming the A2A error, and a `google.rpc.BadRequest` for invalid params),
the same details the HTTP+JSON binding (`rest.py`) sends.
"""

from __future__ import annotations

from typing import Any

from ..errors import A2AError, MethodNotFoundError
from ..jsonrpc import Protocol
from .errors import code_of, details
from .methods import METHODS, event_result


def error_object(error: A2AError) -> dict[str, Any]:
    return {"code": code_of(error), "message": error.message, "data": details(error)}


# The JSON-RPC methods of A2A 0.3 (v03/methods.py serves them): named here, not imported, so
# that the 1.0 codec stands without the 0.3 one (tests/unit/test_codecs.py holds the lists
# together).
V03_METHOD_NAMES = frozenset(
    {
        "message/send",
        "message/stream",
        "tasks/get",
        "tasks/list",
        "tasks/cancel",
        "tasks/resubscribe",
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/get",
        "tasks/pushNotificationConfig/list",
        "tasks/pushNotificationConfig/delete",
        "agent/getAuthenticatedExtendedCard",
    }
)


def unknown_method(name: str) -> A2AError:
    if name in V03_METHOD_NAMES:
        return MethodNotFoundError(
            f"{name!r} is an A2A 0.3 method; this request asked for A2A 1.0 (A2A-Version), "
            "whose methods are SendMessage, GetTask, ...",
            data={"method": name, "version": "1.0"},
        )
    return MethodNotFoundError(data={"method": name})


V10 = Protocol(
    version="1.0",
    methods=METHODS,
    error_object=error_object,
    event_result=event_result,
    unknown_method=unknown_method,
    stream_errors_as_sse=False,
)
