"""What the transports share: the Transport protocol, a method call, and the errors they answer.

The app serves three transport bindings, peers over the same `TaskService`: JSON-RPC (jsonrpc.py,
both protocol versions on one endpoint), A2A 0.3's HTTP+JSON (rest/) and A2A 1.0's HTTP+JSON
(v10/rest.py). Each is a `Transport`: it takes an authenticated `Request` and answers a `Response`
in its own wire form, and says how an authentication refusal looks on it. None holds a method
list of its own: each dispatches through its version's tables (v03/, v10/). None imports
another; what more than one of them needs is here:

- a method as the service is called: `Method` (its params model and handler), `Call` (what a
  handler gets besides the params), `parse_params` (parts counted, then validated),
  `parse_last_event_id`, `render`;
- `a2a_error`: the protocol error answered for a failure, a store outage included;
- `sse_frames`: a stream of events as SSE frames, a failure after the start as its last frame.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from . import limits
from .codec import ValidationError
from .errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    ServiceUnavailableError,
    invalid_params_from_validation,
)
from .http import SSE_KEEPALIVE
from .models import A2AModel, AgentCard
from .sentinel import Sentinel
from .service import Caller, StreamEvent, StreamItem, TaskService
from .store.base import StoreUnavailable

if TYPE_CHECKING:
    from .auth import AuthError
    from .http import Request, Response

log = logging.getLogger("a2a_serverless.transport")

# Builds the authenticated extended card for this caller (the methods raise -32007 without one).
ExtendedCard = Callable[[], AgentCard]


class Transport(Protocol):
    """One A2A transport binding over HTTP."""

    async def serve(
        self, request: Request, caller: Caller, extended_card: ExtendedCard | None
    ) -> Response:
        """The answer to `request`, from an authenticated `caller`. Never raises: a failure is
        an error in this transport's wire form."""
        ...

    def refuse(self, error: AuthError) -> Response:
        """How this transport answers a request whose caller was refused (401/403/503)."""
        ...


def a2a_error(error: A2AError | StoreUnavailable) -> A2AError:
    """The protocol error a transport answers for `error`. A store outage is logged in one line
    (its cause may name the table or endpoint, which clients are not told): an outage is not a
    bug, so no traceback."""
    if isinstance(error, A2AError):
        return error
    log.warning("answering that the service is unavailable: %s", error)
    return ServiceUnavailableError()


# --- a method call --------------------------------------------------------------------------------


class Call(msgspec.Struct):
    """What a method handler gets besides its params."""

    service: TaskService
    caller: Caller
    last_event_id: int | None
    # Builds the authenticated extended card for this caller (raises -32007 if there is none).
    extended_card: ExtendedCard | None = None


Handler = Callable[[Any, Call], Awaitable[Any]]


class ParamsType(Protocol):
    """What a method's params are validated by: a model class, or a reader of one (1.0's
    `ProtoJSON`)."""

    def model_validate(self, obj: object, /) -> Any: ...


class Method(msgspec.Struct, frozen=True):
    params: ParamsType | None
    handler: Handler
    streaming: bool = False
    # Every field of the params object is optional, so `params` may be left out altogether.
    params_optional: bool = False
    # For a method that sends a message: its params made non-blocking (for a notification).
    non_blocking: Callable[[Any], Any] | None = None
    # The parts a raw (unvalidated) params object lists, counted before validation (limits).
    raw_parts: Callable[[dict[str, Any]], int] | None = None


ABSENT = Sentinel("absent")  # params left out (null is a value they may have)


def parse_params(method: Method, raw: Any, service: TaskService) -> Any:
    """A method's params from its raw JSON value (`ABSENT` when left out): its parts counted,
    then validated (the service holds the validated params to the other limits)."""
    if method.params is None:
        if raw is not ABSENT and raw is not None and not isinstance(raw, dict | list):
            raise InvalidParamsError("params must be an object")
        return None
    if raw is ABSENT or raw is None:
        if not method.params_optional:
            raise InvalidParamsError("params are required for this method")
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidParamsError("params must be an object (named parameters)")
    if method.raw_parts is not None:
        # Before validation, which would otherwise build every part of a huge list first.
        limits.check_parts_count(method.raw_parts(raw), service.settings)
    try:
        params = method.params.model_validate(raw)
    except ValidationError as exc:
        raise invalid_params_from_validation(exc) from None
    return params


def raw_message_parts(raw: dict[str, Any]) -> int:
    """The parts the (unvalidated) `message` of a send request lists, for the parts limit."""
    return limits.raw_parts_count(raw.get("message"), "parts")


def parse_last_event_id(value: str | None) -> int | None:
    """The SSE `Last-Event-ID` header: the event number a stream resumes after."""
    if value is None or value.strip() == "":
        return None
    value = value.strip()
    # ASCII digits only: str.isdigit() also takes "²" (superscript two), and the length bound keeps
    # int() away from huge inputs.
    if not (value.isascii() and value.isdigit() and len(value) <= 19):
        raise InvalidParamsError("Last-Event-ID must be a non-negative event number")
    number = int(value)
    if number > limits.MAX_INT64:
        raise InvalidParamsError("Last-Event-ID must be a non-negative event number")
    return number


def render(result: Any) -> Any:
    """A handler's result as JSON values."""
    if isinstance(result, A2AModel):
        return result.model_dump()
    if isinstance(result, list):
        return [render(item) for item in result]
    return result


# --- streams --------------------------------------------------------------------------------------


async def sse_frames(
    events: AsyncIterator[StreamItem],
    event_frame: Callable[[StreamEvent], bytes],
    error_frame: Callable[[A2AError], bytes],
) -> AsyncIterator[bytes]:
    """`events` as SSE frames; a failure after the stream began is its last frame."""
    try:
        async for item in events:
            yield event_frame(item) if isinstance(item, StreamEvent) else SSE_KEEPALIVE
    except (A2AError, StoreUnavailable) as error:
        yield error_frame(a2a_error(error))
    except Exception:
        log.exception("error while streaming")
        yield error_frame(InternalError())
    finally:
        with contextlib.suppress(Exception):
            await events.aclose()  # type: ignore[attr-defined]
