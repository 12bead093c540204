"""What goes wrong when calling an agent, as typed exceptions.

An agent's A2A error comes back as the kit's own error class (`errors.py`: TaskNotFoundError,
InvalidParamsError, ...), whichever version and binding carried it: a JSON-RPC error object
(by its code; 1.0's `-32008`/`-32009` included), A2A 0.3's HTTP+JSON error body (`{"error":
{code, message, data}}`), or 1.0's `google.rpc.Status` (by its ErrorInfo `reason`). An answer
the client cannot read is InvalidAgentResponseError. What is no A2A answer at all (the agent
unreachable, an HTTP error without an A2A body, a response over its size limit, a card that
cannot be used) is a `ClientError`.
"""

from __future__ import annotations

from typing import Any

from .. import errors as e
from ..exceptions import A2AServerlessError, UnavailableError
from .wire import CODE_BY_REASON

_BY_CODE: dict[int, type[e.A2AError]] = {
    cls.code: cls
    for cls in (
        e.JSONParseError,
        e.InvalidRequestError,
        e.MethodNotFoundError,
        e.InvalidParamsError,
        e.InternalError,
        e.TaskNotFoundError,
        e.TaskNotCancelableError,
        e.PushNotificationNotSupportedError,
        e.UnsupportedOperationError,
        e.ContentTypeNotSupportedError,
        e.InvalidAgentResponseError,
        e.AuthenticatedExtendedCardNotConfiguredError,
        e.VersionNotSupportedError,
    )
}
_BY_CODE[e.ExtensionSupportRequiredError.v1_code] = e.ExtensionSupportRequiredError


class ClientError(A2AServerlessError):
    """The call got no A2A answer (see the module)."""


class AgentUnreachable(ClientError, UnavailableError):
    """The connection failed or timed out."""


class HTTPStatusError(ClientError):
    """An HTTP error status whose body is no A2A error."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class ResponseTooLarge(ClientError):
    """A response (or one stream event) over the client's limit, which the message names."""


class CardError(ClientError):
    """The agent card cannot be fetched or used (no interface this client speaks, a URL in it
    refused by the SSRF guard, ...)."""


def from_jsonrpc(error: Any, status: int = 200) -> e.A2AError:
    """The kit's error for a JSON-RPC error object."""
    if not isinstance(error, dict) or not isinstance(error.get("code"), int):
        return e.InvalidAgentResponseError(f"The agent's JSON-RPC error is malformed: {error!r}")
    return make(error["code"], error.get("message"), error.get("data"), status)


def make(code: int, message: Any, data: Any, status: int) -> e.A2AError:
    text = message if isinstance(message, str) else None
    if code == e.AuthorizationError.code or status in (401, 403):
        return e.AuthorizationError(text, data, status=status if status in (401, 403) else 403)
    if status == 503:
        error: e.A2AError = e.ServiceUnavailableError(text)
        error.data = data
        return error
    cls = _BY_CODE.get(code, e.A2AError)
    if cls is e.A2AError:
        error = e.A2AError(text, data)
        error.code = code  # type: ignore[misc]
        return error
    return cls(text, data)


def from_rest(status: int, body: Any, *, names_task: bool = False) -> e.A2AError | None:
    """The kit's error for an HTTP+JSON error answer, or None when the body is no A2A error.

    Read: A2A 1.0's `google.rpc.Status` (by its ErrorInfo's reason), A2A 0.3's `{"error":
    {code, message, data}}` (ours), and the bare `{"message": ...}` of the official 0.3 SDK's
    server, whose error is its HTTP status. `names_task`: the request's route names a task, so
    a bare 404 is TaskNotFound (and not a route that does not exist)."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if not isinstance(error, dict):
        message = body.get("message")
        if isinstance(message, str) and status >= 400:
            return make(_code_for_status(status, names_task), message, None, status)
        return None
    details = error.get("details")
    if isinstance(details, list):
        # 1.0: google.rpc.Status, the A2A error named by its ErrorInfo's reason.
        for detail in details:
            if isinstance(detail, dict) and detail.get("reason") in CODE_BY_REASON:
                reason = CODE_BY_REASON[detail["reason"]]
                return make(reason, error.get("message"), details, status)
        return make(_code_for_status(status, names_task), error.get("message"), details, status)
    code = error.get("code")
    if isinstance(code, int) and code < 0:
        return make(code, error.get("message"), error.get("data"), status)
    return make(
        _code_for_status(status, names_task), error.get("message"), error.get("data"), status
    )


def _code_for_status(status: int, names_task: bool) -> int:
    if status == 404:
        return e.TaskNotFoundError.code if names_task else e.MethodNotFoundError.code
    return {
        400: e.InvalidParamsError.code,
        405: e.MethodNotFoundError.code,
        409: e.TaskNotCancelableError.code,
        415: e.ContentTypeNotSupportedError.code,
    }.get(status, e.InternalError.code)
