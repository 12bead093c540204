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
  Inside a turn's CONSUMER span, `agent_run` is an INTERNAL span around the agent's own work.
- **Bounded attributes.** Whatever a request carries (a JSON-RPC id, a path, a task id, a
  user agent, a webhook URL) reaches a span only through `bounded()`: control characters
  escaped, and cut to `MAX_ATTRIBUTE_CHARS` with a marker saying how much was cut, so a 5 MB
  request id cannot become a 5 MB attribute that breaks the exporter's batches.

With spans off, this module imports nothing beyond the standard library and each hook is a
check of one global: nothing of OpenTelemetry is loaded, whether it is installed or not.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextvars import ContextVar
from typing import Any, Generic, Protocol, TypeVar

from .tracecontext import (
    MAX_ATTRIBUTE_CHARS,
    TRACEPARENT,
    TRACESTATE,
    TRUNCATED_MARKER,
    TraceContext,
    TracedJob,
    bounded,
    from_headers,
    parse_traceparent,
    parse_tracestate,
)

__all__ = [
    "MAX_ATTRIBUTE_CHARS",
    "TRACEPARENT",
    "TRACESTATE",
    "TRUNCATED_MARKER",
    "TraceContext",
    "bounded",
    "from_headers",
    "parse_traceparent",
    "parse_tracestate",
]


JobT = TypeVar("JobT", bound=TracedJob)
StoreT = TypeVar("StoreT")

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

    def producer(self, job: TracedJob, system: str, destination: str) -> Span: ...

    def consumer(
        self,
        job: TracedJob,
        system: str,
        destination: str,
        message_id: str | None,
        delivery_attempt: int | None,
    ) -> Span: ...

    def client_request(self, method: str, url: str) -> Span: ...

    def internal(self, name: str, attributes: Mapping[str, str | int | bool]) -> Span: ...

    def annotate(self, attributes: Mapping[str, str | int | bool], name: str | None) -> None: ...

    def failed(self, description: str) -> None: ...

    def traced_store(self, store: StoreT) -> StoreT: ...

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


class _NoSpan:
    """The span-less stand-in around work that keeps the current context: does nothing."""

    __slots__ = ()

    def __enter__(self) -> _NoSpan:
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        return None

    def set_attribute(self, key: str, value: str | int | bool) -> None:
        return None


_NO_SPAN = _NoSpan()


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


class producing(Generic[JobT]):
    """Around putting `job` on a queue: `with producing(job, "aws_sqs", url) as job:` gives the
    job carrying the context it is sent with (the PRODUCER span's, with spans on)."""

    __slots__ = ("_destination", "_job", "_span", "_system")

    def __init__(self, job: JobT, system: str, destination: str) -> None:
        self._job = job
        self._system = system
        self._destination = destination
        self._span: Span | None = None

    def __enter__(self) -> JobT:
        job = self._job
        if _backend is not None:
            self._span = _backend.producer(job, self._system, self._destination)
            self._span.__enter__()
        context = current()
        if context is None or context == job.trace:
            return job
        return job.with_trace(context)

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if self._span is not None:
            self._span.__exit__(exc_type, exc, tb)

    def sent(self, message_id: str | None) -> None:
        """The queue's id for the message (SQS MessageId, Pub/Sub message id, a task's name)."""
        if self._span is not None and message_id:
            self._span.set_attribute("messaging.message.id", message_id)


def consuming(
    job: TracedJob,
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


def agent_run(agent: str, task_id: str, context_id: str) -> Span:
    """Around the agent's own work in a turn: with spans on, an INTERNAL span `invoke_agent
    <agent>` (the GenAI semantic conventions' name) with the task and context ids. Set its
    `a2a.turn.outcome` before the block ends; `failed()` within it marks it ERROR."""
    if _backend is not None:
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": agent,
            "a2a.task.id": task_id,
            "a2a.context.id": context_id,
        }
        return _backend.internal(f"invoke_agent {agent}", attributes)
    # The turn's context is current already: nothing to carry (a _Carried costs a context
    # variable set and reset every turn).
    return _NO_SPAN


def annotate(attributes: Mapping[str, str | int | bool], *, name: str | None = None) -> None:
    """Add attributes to the current span (and rename it, when `name` is given), if any."""
    if _backend is not None:
        _backend.annotate(attributes, name)


def failed(description: str) -> None:
    """The current span's work failed though nothing was raised (e.g. the agent's turn failed
    and the task says so): its status becomes ERROR."""
    if _backend is not None:
        _backend.failed(description)


def traced_store(store: StoreT) -> StoreT:
    """`store`, its calls made as spans when spans are on."""
    if _backend is not None:
        return _backend.traced_store(store)
    return store


def flush() -> None:
    """Export the spans ended so far (a Lambda invocation is frozen once it returns)."""
    if _backend is not None:
        _backend.flush()
