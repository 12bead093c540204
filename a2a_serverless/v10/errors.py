"""A2A v1.0 error details (spec v1.0 §3.3.2, §9.5, §11.6), the same for every binding.

An error's details are a list: first a `google.rpc.ErrorInfo` whose `reason` names the A2A
error (`TASK_NOT_FOUND`, ...), with domain `a2a-protocol.org` and, as `metadata`, what the
error's data says (string values, as ErrorInfo has them); invalid params add a
`google.rpc.BadRequest` listing each field. JSON-RPC carries the list as `error.data`
(`jsonrpc.py`), HTTP+JSON as the `google.rpc.Status`'s `details` (`rest.py`). The reasons are
the official SDK's, so its clients raise their own typed errors for ours.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import A2AError

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
DOMAIN = "a2a-protocol.org"

# JSON-RPC code -> ErrorInfo reason (the official SDK's names for them).
REASONS = {
    -32001: "TASK_NOT_FOUND",
    -32002: "TASK_NOT_CANCELABLE",
    -32003: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    -32004: "UNSUPPORTED_OPERATION",
    -32005: "CONTENT_TYPE_NOT_SUPPORTED",
    -32006: "INVALID_AGENT_RESPONSE",
    -32007: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    -32008: "EXTENSION_SUPPORT_REQUIRED",
    -32009: "VERSION_NOT_SUPPORTED",
    -32700: "PARSE_ERROR",
    -32600: "INVALID_REQUEST",
    -32601: "METHOD_NOT_FOUND",
    -32602: "INVALID_PARAMS",
    -32603: "INTERNAL_ERROR",
    -32000: "PERMISSION_DENIED",
}


def code_of(error: A2AError) -> int:
    """The v1.0 code of `error` (a few errors have a code of their own only in v1.0)."""
    return getattr(error, "v1_code", error.code)


def details(error: A2AError) -> list[dict[str, Any]]:
    info: dict[str, Any] = {
        "@type": ERROR_INFO,
        "reason": REASONS.get(code_of(error), "UNKNOWN_ERROR"),
        "domain": DOMAIN,
    }
    found: list[dict[str, Any]] = [info]
    data = error.data
    if isinstance(data, dict):
        metadata = {
            key: value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
            for key, value in data.items()
            if key != "errors"
        }
        if metadata:
            info["metadata"] = metadata
        errors = data.get("errors")
        if isinstance(errors, list) and errors:
            found.append(
                {
                    "@type": BAD_REQUEST,
                    "fieldViolations": [
                        {"field": str(e.get("field", "")), "description": str(e.get("message", ""))}
                        for e in errors
                        if isinstance(e, dict)
                    ],
                }
            )
    return found
