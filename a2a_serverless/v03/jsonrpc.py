"""A2A 0.3 over JSON-RPC: its methods by name, its errors as spec 0.3 §8 writes them.

The envelope, the limits and the dispatch are `jsonrpc.handle`'s, the same for both versions;
this module gives it 0.3's `Protocol`: the methods of `methods.py`, error objects with the A2A
error's own code and data, results and stream events in 0.3's JSON-RPC shapes
(`jsonrpc_convert.py`), and a hint for a 1.0 method sent without `A2A-Version: 1.0`.
"""

from __future__ import annotations

from ..errors import A2AError, MethodNotFoundError, VersionNotSupportedError
from ..jsonrpc import Protocol
from .jsonrpc_convert import result_out, stream_result_out
from .methods import JSONRPC_METHODS

# The JSON-RPC methods of A2A 1.0 (v10/methods.py serves them): named here, not imported, so
# that 0.3 never loads the 1.0 codec (tests/unit/test_codecs.py holds the two lists together).
V10_METHOD_NAMES = frozenset(
    {
        "SendMessage",
        "SendStreamingMessage",
        "GetTask",
        "ListTasks",
        "CancelTask",
        "SubscribeToTask",
        "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig",
        "GetExtendedAgentCard",
    }
)


def unknown_method(name: str) -> A2AError:
    if name in V10_METHOD_NAMES:
        # A v1.0 method (SendMessage, GetTask, ...) from a client that did not say it speaks
        # v1.0: an empty A2A-Version means 0.3 (spec v1.0 §3.6.2), as the official SDK does too.
        return VersionNotSupportedError(
            f"{name!r} is not an A2A 0.3 method; A2A 1.0 methods need the header "
            "'A2A-Version: 1.0' (a request without it is served as A2A 0.3)",
            data={"method": name, "supportedVersions": ["0.3", "1.0"]},
        )
    return MethodNotFoundError(data={"method": name})


V03 = Protocol(
    version="0.3",
    methods=JSONRPC_METHODS,
    error_object=lambda error: error.to_jsonrpc(),
    event_result=lambda event: stream_result_out(event.payload),
    unknown_method=unknown_method,
    result=result_out,
)
