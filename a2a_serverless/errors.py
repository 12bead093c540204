"""The protocol's errors (spec §8) as exceptions.

Anything in the core that must end a request with an A2A error raises one of these; the
transports turn it into a JSON-RPC error object (or, for REST, an HTTP status). Each class
carries its JSON-RPC code, the spec's typical message and, for REST, an HTTP status.
"""

from __future__ import annotations

from typing import Any, ClassVar


class A2AError(Exception):
    code: ClassVar[int] = -32603
    default_message: ClassVar[str] = "Internal error"
    http_status: ClassVar[int] = 500

    def __init__(self, message: str | None = None, data: Any = None) -> None:
        self.message = message or self.default_message
        self.data = data
        super().__init__(self.message)

    def to_jsonrpc(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class JSONParseError(A2AError):
    code = -32700
    default_message = "Invalid JSON payload"
    http_status = 400


class InvalidRequestError(A2AError):
    code = -32600
    default_message = "Request payload validation error"
    http_status = 400


class MethodNotFoundError(A2AError):
    code = -32601
    default_message = "Method not found"
    http_status = 404


class InvalidParamsError(A2AError):
    code = -32602
    default_message = "Invalid parameters"
    http_status = 400


class InternalError(A2AError):
    code = -32603
    default_message = "Internal error"
    http_status = 500


class TaskNotFoundError(A2AError):
    code = -32001
    default_message = "Task not found"
    http_status = 404


class TaskNotCancelableError(A2AError):
    code = -32002
    default_message = "Task cannot be canceled"
    http_status = 409


class PushNotificationNotSupportedError(A2AError):
    code = -32003
    default_message = "Push Notification is not supported"
    http_status = 400


class UnsupportedOperationError(A2AError):
    code = -32004
    default_message = "This operation is not supported"
    http_status = 400


class ContentTypeNotSupportedError(A2AError):
    code = -32005
    default_message = "Incompatible content types"
    http_status = 415


class InvalidAgentResponseError(A2AError):
    code = -32006
    default_message = "Invalid agent response"
    http_status = 502


class AuthenticatedExtendedCardNotConfiguredError(A2AError):
    code = -32007
    default_message = "Authenticated Extended Card is not configured"
    http_status = 404


def invalid_params_from_validation(exc: Any) -> InvalidParamsError:
    """An InvalidParamsError listing each field a pydantic ValidationError complained about.

    The `data.errors` shape ({field, message}) follows the spec's §9.5 example.
    """
    errors = []
    for item in exc.errors(include_url=False, include_input=False):
        field = ".".join(str(part) for part in item["loc"]) or "params"
        errors.append({"field": field, "message": item["msg"]})
    return InvalidParamsError(data={"errors": errors})
