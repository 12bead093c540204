"""The protocol's errors (spec §8) as exceptions.

Anything in the core that must end a request with an A2A error raises one of these; the
transports turn it into a JSON-RPC error object (or, for REST, an HTTP status). Each class
carries its JSON-RPC code, the spec's typical message and, for REST, an HTTP status.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from .codec import ValidationError
from .exceptions import A2AServerlessError

log = logging.getLogger("a2a_serverless.errors")


class A2AError(A2AServerlessError):
    """A protocol error: its JSON-RPC code, the spec's message and the HTTP status REST answers
    with (the branch of the kit's exception tree the transports answer; exceptions.py)."""

    code: ClassVar[int] = -32603
    default_message: ClassVar[str] = "Internal error"
    http_status: ClassVar[int] = 500

    def __init__(self, message: str | None = None, data: Any = None) -> None:
        self.message = message or self.default_message
        self.data = data
        # Response headers that go with this error (e.g. WWW-Authenticate), on either transport.
        self.headers: list[tuple[bytes, bytes]] = []
        super().__init__(self.message)

    @property
    def rest_status(self) -> int:
        """The HTTP status of a REST response carrying this error."""
        return self.http_status

    @property
    def jsonrpc_status(self) -> int:
        """The HTTP status of a JSON-RPC response carrying this error: 200, as JSON-RPC over
        HTTP has it, except for authorization failures, which keep their 401/403."""
        return 200

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


class MethodNotAllowedError(MethodNotFoundError):
    """An HTTP route that exists, asked with a verb it does not take (405, with an Allow
    header), on either version's HTTP+JSON binding or the JSON-RPC and card paths."""

    http_status = 405

    def __init__(self, method: str, path: str, allowed: list[str]) -> None:
        super().__init__(
            f"{method} is not allowed on {path} (allowed: {', '.join(allowed)})",
            data={"method": method, "allowed": allowed},
        )
        self.allowed = allowed


class InvalidParamsError(A2AError):
    code = -32602
    default_message = "Invalid parameters"
    http_status = 400


class PushConfigConflictError(InvalidParamsError):
    """A push config the task cannot take: its URL is already another config's on that task, or
    the task has as many configs as it may. JSON-RPC: -32602; REST: HTTP 409."""

    http_status = 409


class InternalError(A2AError):
    code = -32603
    default_message = "Internal error"
    http_status = 500


class TaskNotFoundError(A2AError):
    code = -32001
    default_message = "Task not found"
    http_status = 404


class PushConfigNotFoundError(TaskNotFoundError):
    """A task has no push config of the id asked for: TaskNotFoundError, as spec 1.0 §3.1.8
    names it. (0.3 names no error for it; its codec answers invalid params, v03/errors.py.)"""


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


class FinishedTaskError(UnsupportedOperationError):
    """A message to a task in a terminal state: UnsupportedOperationError, as spec 1.0 §3.1.1
    names it. (0.3 names no error for it; its codec answers invalid params, v03/errors.py.)"""


class ContentTypeNotSupportedError(A2AError):
    code = -32005
    default_message = "Incompatible content types"
    http_status = 415


class InvalidAgentResponseError(A2AError):
    code = -32006
    default_message = "Invalid agent response"
    http_status = 502


class UnsupportedMediaTypeError(InvalidRequestError):
    """A request body that is not `application/json` (415; -32600 over JSON-RPC)."""

    http_status = 415
    default_message = "The request body must be JSON (Content-Type: application/json)"


class ServiceUnavailableError(A2AError):
    """The task store cannot be reached right now (the store raised `StoreUnavailable`).

    REST answers HTTP 503 with `Retry-After`. JSON-RPC answers, as for its other errors, HTTP 200
    with -32603, this message and `data` saying why and when to retry (and the same header).
    The request may be sent again as it was: `message/send` is idempotent by messageId.
    """

    code = -32603
    default_message = "The task store is unavailable; retry in a few seconds"
    http_status = 503
    retry_after_s: ClassVar[int] = 5

    def __init__(self, message: str | None = None) -> None:
        data = {"reason": "store-unavailable", "retryAfterSeconds": self.retry_after_s}
        super().__init__(message, data)
        self.headers = [(b"retry-after", str(self.retry_after_s).encode())]


class AuthenticatedExtendedCardNotConfiguredError(A2AError):
    code = -32007
    default_message = "Authenticated Extended Card is not configured"
    http_status = 404


class ExtensionSupportRequiredError(InvalidRequestError):
    """An extension the agent requires was not activated by the request.

    v0.3 has no code of its own for this and answers -32600 (as it always has); v1.0 answers
    -32008 (`v10/jsonrpc.py` maps it).
    """

    v1_code: ClassVar[int] = -32008


class VersionNotSupportedError(A2AError):
    """The request's `A2A-Version` is one this server does not speak (a v1.0 error: -32009)."""

    code = -32009
    default_message = "Version not supported"
    http_status = 400


class AuthorizationError(A2AError):
    """The caller may not do what the request asks (e.g. use a skill whose scopes it lacks):
    HTTP 403 (401 for an anonymous caller) over both transports.

    A2A defines no JSON-RPC code for this; like the authentication failures answered before a
    request's body is read, it uses -32000 (the implementation-defined range A2A's own codes
    avoid), and `data` says which failure it was.
    """

    code = -32000
    default_message = "Forbidden"
    http_status = 403

    def __init__(
        self,
        message: str | None = None,
        data: Any = None,
        *,
        status: int = 403,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        super().__init__(message, data)
        self.status = status
        self.headers = list(headers or [])

    @property
    def rest_status(self) -> int:
        return self.status

    @property
    def jsonrpc_status(self) -> int:
        return self.status


def invalid_params_from_validation(exc: ValidationError) -> InvalidParamsError:
    """An InvalidParamsError listing each field a models' ValidationError complained about.

    The `data.errors` shape ({field, message}) follows the spec's §9.5 example; `field` is the
    dotted path of wire names and list indices (`message.parts.0.text`).
    """
    errors = []
    for item in exc.errors():
        field = ".".join(str(part) for part in item["loc"]) or "params"
        errors.append({"field": field, "message": item["msg"]})
    return InvalidParamsError(data={"errors": errors})
