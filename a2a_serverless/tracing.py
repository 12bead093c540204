"""Trace context across the queue (W3C `traceparent`), and the seam for OpenTelemetry spans.

A turn crosses a queue between the request that asked for it and the worker that runs it, and
another one before its webhook goes out. This module carries the request's trace over both
hops, so a trace viewer shows one trace from the client's request to the webhook it receives:

- **The carried context.** The request's `traceparent` (and `tracestate`) header is parsed
  strictly (W3C Trace Context level 1; an invalid value is ignored, never an error to the
  client) into a `TraceContext`, the current one for the request (a context variable,
  `current()`). A queued `Job` takes the current context (queue/base.py: its JSON's
  `traceparent` field, which jobs queued before it existed simply lack), the consumer makes it
  current again for the turn (`consuming`), and the notifier sends it on each webhook as
  `traceparent` (`client_request`). Adapters may copy it into their queue's own metadata too.
- **Spans** (`A2A_OTEL=true`, the `otel` extra: `opentelemetry-api`). `enable()` loads
  a2a_serverless/otel.py, which turns each hook here into a span through the OpenTelemetry
  API: a SERVER span per request, a PRODUCER span per enqueue, a CONSUMER span per delivered
  job (the turn; a child of the producer's context and linked to it), a CLIENT span per
  webhook request and one per store call. The carried context is then the current span's, so
  the webhook's `traceparent` names its own delivery span. Where the spans go is the
  application's TracerProvider (the OpenTelemetry SDK, an AWS Distro layer, ...).

With spans off, this module imports nothing beyond the standard library and each hook is a
check of one global: nothing of OpenTelemetry is loaded, whether it is installed or not.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .queue.base import Job
    from .store.base import Store

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"

# version "-" trace-id "-" parent-id "-" trace-flags, lower-case hex only (W3C §3.2.2).
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")
_ZERO_TRACE = "0" * 32
_ZERO_SPAN = "0" * 16
# tracestate list members (W3C §3.3.1): a simple or a multi-tenant key, then a value.
_TRACESTATE_MEMBER = re.compile(
    r"(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})"
    r"=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]"
)
MAX_TRACESTATE_MEMBERS = 32
# The length every vendor must propagate (§3.3.1.5); a longer tracestate is dropped whole.
MAX_TRACESTATE_CHARS = 512


@dataclass(frozen=True, slots=True)
class TraceContext:
    """A W3C trace context: the trace, the parent span in it, the flags and vendors' state."""

    trace_id: str  # 32 lower-case hex digits, not all zero
    span_id: str  # 16 lower-case hex digits, not all zero
    flags: int = 0
    tracestate: str | None = None

    @property
    def sampled(self) -> bool:
        return bool(self.flags & 1)

    def traceparent(self) -> str:
        return f"00-{self.trace_id}-{self.span_id}-{self.flags:02x}"

    def headers(self) -> dict[str, str]:
        """`traceparent` (and `tracestate`, when there is one) for an outgoing request."""
        headers = {TRACEPARENT: self.traceparent()}
        if self.tracestate:
            headers[TRACESTATE] = self.tracestate
        return headers


def parse_traceparent(value: str | None, tracestate: str | None = None) -> TraceContext | None:
    """The context of a `traceparent` value (with its `tracestate`), None if it is not valid.

    Strict as W3C Trace Context level 1 asks: version ``ff`` and all-zero ids are invalid,
    version ``00`` has nothing after the flags; a later version may append fields after a dash
    (ignored: the context is read as version 00, keeping only the `sampled` flag). An invalid
    `tracestate` is dropped and the `traceparent` kept.
    """
    if not value:
        return None
    value = value.strip(" \t")
    match = _TRACEPARENT.match(value)
    if match is None:
        return None
    version, trace_id, span_id, flags = match.groups()
    if version == "ff" or trace_id == _ZERO_TRACE or span_id == _ZERO_SPAN:
        return None
    rest = value[match.end() :]
    if version == "00":
        if rest:
            return None
        flag_bits = int(flags, 16)
    else:
        if rest and not rest.startswith("-"):
            return None
        flag_bits = int(flags, 16) & 1
    return TraceContext(trace_id, span_id, flag_bits, parse_tracestate(tracestate))


def parse_tracestate(value: str | None) -> str | None:
    """A `tracestate` value, normalised (members joined by ","), or None if it is not valid."""
    if not value or len(value) > MAX_TRACESTATE_CHARS:
        return None
    members: list[str] = []
    keys: set[str] = set()
    for raw in value.split(","):
        member = raw.strip(" \t")
        if not member:
            continue  # empty list members are allowed, and dropped
        if _TRACESTATE_MEMBER.fullmatch(member) is None:
            return None
        key = member.partition("=")[0]
        if key in keys:
            return None
        keys.add(key)
        members.append(member)
    if not members or len(members) > MAX_TRACESTATE_MEMBERS:
        return None
    return ",".join(members)


def from_headers(headers: Mapping[str, str]) -> TraceContext | None:
    """The trace context a request carries (header names in lower case), if a valid one."""
    traceparent = headers.get(TRACEPARENT)
    if traceparent is None:
        return None
    return parse_traceparent(traceparent, headers.get(TRACESTATE))


_current: ContextVar[TraceContext | None] = ContextVar("a2a_trace", default=None)


def current() -> TraceContext | None:
    """The context work done now belongs to: with spans on, the current span's; else the one
    carried in (by a request's `traceparent`, a job), None outside one."""
    if _backend is not None:
        return _backend.current() or _current.get()
    return _current.get()


class use:
    """Make `context` the current one for the block (None: no context). A plain class: it runs
    on every request that carries a `traceparent`."""

    __slots__ = ("_context", "_token")

    def __init__(self, context: TraceContext | None) -> None:
        self._context = context

    def __enter__(self) -> None:
        self._token = _current.set(self._context)

    def __exit__(self, *exc_info: object) -> None:
        _current.reset(self._token)


# --- spans: the hooks the kit calls, turned into spans by the backend (otel.py) ---------------


class Span(Protocol):
    """One span the backend started, made current by `with`. Ends when the block does (a
    request's span when its response, or its stream, is done)."""

    def __enter__(self) -> Any: ...

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None: ...

    def set_attribute(self, key: str, value: str | int | bool) -> None: ...


class RequestSpan(Span, Protocol):
    def answered(
        self, status: int, events: AsyncIterator[bytes] | None
    ) -> AsyncIterator[bytes] | None:
        """The response's status, and its SSE stream if it has one: the span ends with the
        stream (returned wrapped, each step run in the span's context), else at once."""
        ...


class Backend(Protocol):
    """What turns the hooks into spans: a2a_serverless.otel.OtelBackend."""

    def current(self) -> TraceContext | None: ...

    def server(
        self,
        parent: TraceContext | None,
        method: str,
        path: str,
        headers: Mapping[str, str],
        scope: Mapping[str, Any],
    ) -> RequestSpan: ...

    def producer(self, job: Job, system: str, destination: str) -> Span: ...

    def consumer(
        self,
        job: Job,
        system: str,
        destination: str,
        message_id: str | None,
        delivery_attempt: int | None,
    ) -> Span: ...

    def client_request(self, method: str, url: str) -> Span: ...

    def annotate(self, attributes: Mapping[str, str | int | bool], name: str | None) -> None: ...

    def failed(self, description: str) -> None: ...

    def traced_store(self, store: Store) -> Store: ...

    def flush(self) -> None: ...


_backend: Backend | None = None


def enabled() -> bool:
    """Whether spans are made (`enable()` was called)."""
    return _backend is not None


def enable() -> None:
    """Make spans through the OpenTelemetry API from now on, in this process (`A2A_OTEL=true`:
    the Runtime calls this). `MissingExtra` without the `otel` extra."""
    global _backend
    if _backend is None:
        from .extras import require_otel

        require_otel("A2A_OTEL=true (OpenTelemetry spans)")
        from .otel import OtelBackend

        _backend = OtelBackend()


def disable() -> None:
    """Make no more spans (tests; a process otherwise keeps what its Runtime chose)."""
    global _backend
    _backend = None


class _Carried:
    """The span-less stand-in: makes a context current for its block, nothing more."""

    __slots__ = ("_context", "_token")

    def __init__(self, context: TraceContext | None) -> None:
        self._context = context

    def __enter__(self) -> _Carried:
        self._token = _current.set(self._context)
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        _current.reset(self._token)

    def set_attribute(self, key: str, value: str | int | bool) -> None:
        return None

    def answered(
        self, status: int, events: AsyncIterator[bytes] | None
    ) -> AsyncIterator[bytes] | None:
        # No span to end: a stream needs no wrapping (its job was queued before it started).
        return events


def serving(
    method: str, path: str, headers: Mapping[str, str], scope: Mapping[str, Any]
) -> RequestSpan | None:
    """The trace of one HTTP request: its `traceparent`, else a context the platform's entry
    point made current (e.g. from X-Cloud-Trace-Context). None, the common case without
    spans, when there is nothing to carry."""
    parent = from_headers(headers) if TRACEPARENT in headers else None
    if parent is None:
        parent = _current.get()
    if _backend is not None:
        return _backend.server(parent, method, path, headers, scope)
    if parent is None:
        return None
    return _Carried(parent)


class producing:
    """Around putting `job` on a queue: `with producing(job, "aws_sqs", url) as job:` gives the
    job carrying the context it is sent with (the PRODUCER span's, with spans on)."""

    __slots__ = ("_destination", "_job", "_span", "_system")

    def __init__(self, job: Job, system: str, destination: str) -> None:
        self._job = job
        self._system = system
        self._destination = destination
        self._span: Span | None = None

    def __enter__(self) -> Job:
        job = self._job
        if _backend is not None:
            self._span = _backend.producer(job, self._system, self._destination)
            self._span.__enter__()
        context = current()
        if context is None or context == job.trace:
            return job
        from dataclasses import replace

        return replace(job, trace=context)

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if self._span is not None:
            self._span.__exit__(exc_type, exc, tb)

    def sent(self, message_id: str | None) -> None:
        """The queue's id for the message (SQS MessageId, Pub/Sub message id, a task's name)."""
        if self._span is not None and message_id:
            self._span.set_attribute("messaging.message.id", message_id)


def consuming(
    job: Job,
    system: str,
    destination: str,
    *,
    message_id: str | None = None,
    delivery_attempt: int | None = None,
) -> Span:
    """Around handling one delivered job: its carried context is current (with spans on, a
    CONSUMER span, child of it and linked to it). A job without one starts afresh."""
    if _backend is not None:
        return _backend.consumer(job, system, destination, message_id, delivery_attempt)
    return _Carried(job.trace)


def client_request(method: str, url: str) -> Span:
    """Around one outgoing HTTP request (a webhook): with spans on, its CLIENT span. Send
    `current().headers()` within it."""
    if _backend is not None:
        return _backend.client_request(method, url)
    return _Carried(_current.get())


def annotate(attributes: Mapping[str, str | int | bool], *, name: str | None = None) -> None:
    """Add attributes to the current span (and rename it, when `name` is given), if any."""
    if _backend is not None:
        _backend.annotate(attributes, name)


def failed(description: str) -> None:
    """The current span's work failed though nothing was raised (e.g. the agent's turn failed
    and the task says so): its status becomes ERROR."""
    if _backend is not None:
        _backend.failed(description)


def traced_store(store: Store) -> Store:
    """`store`, its calls made as spans when spans are on."""
    if _backend is not None:
        return _backend.traced_store(store)
    return store


def flush() -> None:
    """Export the spans ended so far (a Lambda invocation is frozen once it returns)."""
    if _backend is not None:
        _backend.flush()
