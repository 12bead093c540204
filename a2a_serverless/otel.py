"""OpenTelemetry spans for the hooks of tracing.py (`A2A_OTEL=true`, the `otel` extra).

Only the OpenTelemetry API is used: the spans go to whatever TracerProvider the application set
up (the SDK with its exporter, the AWS Distro for OpenTelemetry layer, ...), and without one
they are the API's no-op spans that still carry the trace context. Attribute names follow the
semantic conventions (HTTP, messaging, database, RPC); the kit's own are under `a2a.`:

- SERVER span per request: `http.request.method`, `url.path`, `url.scheme`, `server.address`,
  `server.port`, `client.address`, `user_agent.original`, `http.response.status_code`,
  `error.type` (5xx); JSON-RPC requests add `rpc.system` ("jsonrpc"), `rpc.method` (the A2A
  method, also the span's name), `rpc.jsonrpc.version`, `rpc.jsonrpc.request_id`.
- PRODUCER span `send <queue>` per enqueue and CONSUMER span `process <queue>` per delivered
  job (the turn, or a webhook delivery job): `messaging.system` (aws_sqs, gcp_pubsub,
  gcp_cloud_tasks, a2a_inprocess), `messaging.operation.type` / `.name`,
  `messaging.destination.name`, `messaging.message.id`, and `a2a.task.id`, `a2a.job.kind`,
  `a2a.job.id`. The consumer span is a child of the producer's context (one trace end to end)
  and has a link to it, as the messaging conventions ask.
- CLIENT span per webhook request: `http.request.method`, `url.full` (its query hidden),
  `server.address`, `server.port`, `http.response.status_code`, `error.type`.
- A span per store call: `db.system.name` (aws.dynamodb, gcp.firestore, sqlite, memory),
  `db.operation.name` (the Store method), `db.collection.name` (the table or collection);
  CLIENT for a remote database, INTERNAL for one in the process.
- INTERNAL span `invoke_agent <agent>` around the agent's work in a turn (inside its CONSUMER
  span): `gen_ai.operation.name` ("invoke_agent"), `gen_ai.agent.name`, `a2a.task.id`,
  `a2a.context.id`, and `a2a.turn.outcome` (the state the turn left the task in, or "stopped").
  A SERVER span gets `a2a.task.id` once the request's task is known.

Every string attribute and span name goes through `tracing.bounded` (escaped, at most
`tracing.MAX_ATTRIBUTE_CHARS` characters, a cut marked): most come from the request.

An exception leaving a span is recorded on it with status ERROR, except `RetryJob` (a planned
retry: an event on the span).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import (
    Link,
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    TraceState,
)

from .queue.base import RetryJob
from .store.base import Store
from .tracecontext import TraceContext, TracedJob, bounded

TRACER_NAME = "a2a_serverless"
StoreT = TypeVar("StoreT")
# The Store protocol's calls (store/base.py), each made a span.
STORE_CALLS = frozenset(
    {
        "create_task",
        "update_task",
        "get_task",
        "list_tasks",
        "read_events",
        "find_idempotency_key",
        "put_reply",
        "find_reply",
        "put_push_config",
        "get_push_config",
        "list_push_configs",
        "delete_push_config",
    }
)
# Stores that live in the process: their spans are INTERNAL, not CLIENT.
IN_PROCESS_DATABASES = frozenset({"sqlite", "memory"})


def span_context(context: TraceContext) -> SpanContext:
    """A carried context as the remote parent of a span."""
    state = TraceState.from_header([context.tracestate]) if context.tracestate else None
    return SpanContext(
        trace_id=int(context.trace_id, 16),
        span_id=int(context.span_id, 16),
        is_remote=True,
        trace_flags=TraceFlags(context.flags),
        trace_state=state,
    )


def carried(context: SpanContext) -> TraceContext | None:
    """A span's context as the kit carries it (None if it is not valid)."""
    if not context.is_valid:
        return None
    state = context.trace_state.to_header() if context.trace_state else ""
    return TraceContext(
        format(context.trace_id, "032x"),
        format(context.span_id, "016x"),
        int(context.trace_flags),
        state or None,
    )


def _parent(context: TraceContext | None) -> otel_context.Context:
    """The context a span starts in: the carried one as its remote parent, or an empty one (a
    new trace, never the context the code happens to run in)."""
    if context is None:
        return otel_context.Context()
    return trace.set_span_in_context(NonRecordingSpan(span_context(context)))


class ActiveSpan:
    """A started span, current for a `with` block and ended with it."""

    __slots__ = ("_token", "span")

    def __init__(self, span: trace.Span) -> None:
        self.span = span

    def __enter__(self) -> ActiveSpan:
        self._token = otel_context.attach(trace.set_span_in_context(self.span))
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            if exc is not None:
                record_exception(self.span, exc)
        finally:
            otel_context.detach(self._token)
            self._finish()

    def _finish(self) -> None:
        self.span.end()

    def set_attribute(self, key: str, value: str | int | bool) -> None:
        self.span.set_attribute(key, bounded(value) if isinstance(value, str) else value)


def record_exception(span: trace.Span, exc: BaseException) -> None:
    if isinstance(exc, RetryJob):
        span.add_event("retry", {"a2a.retry.reason": exc.reason, "a2a.retry.delay_s": exc.delay_s})
        return
    if not isinstance(exc, Exception):
        # Cancelled (the client left, the process stops): not a failure of the work itself.
        span.set_attribute("error.type", type(exc).__name__)
        return
    message = bounded(str(exc))
    span.record_exception(exc, attributes={"exception.message": message})
    span.set_attribute("error.type", type(exc).__qualname__)
    span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {message}"))


class RequestSpan(ActiveSpan):
    """A request's SERVER span: ends with its response, or with its stream."""

    __slots__ = ("_streaming",)

    def __init__(self, span: trace.Span) -> None:
        super().__init__(span)
        self._streaming = False

    def answered(
        self, status: int, events: AsyncIterator[bytes] | None
    ) -> AsyncIterator[bytes] | None:
        self.span.set_attribute("http.response.status_code", status)
        if status >= 500:
            self.span.set_attribute("error.type", str(status))
            self.span.set_status(Status(StatusCode.ERROR))
        if events is None:
            return None
        self._streaming = True
        return SpanStream(self.span, events)

    def _finish(self) -> None:
        if not self._streaming:
            self.span.end()


class SpanStream:
    """A response's SSE stream, each step run with its request's span current (the store reads
    it makes are the request's), the span ended when the stream ends or is closed."""

    def __init__(self, span: trace.Span, events: AsyncIterator[bytes]) -> None:
        self.span = span
        self.events = events
        self._ended = False

    def __aiter__(self) -> SpanStream:
        return self

    async def __anext__(self) -> bytes:
        token = otel_context.attach(trace.set_span_in_context(self.span))
        try:
            return await self.events.__anext__()
        except StopAsyncIteration:
            self._end()
            raise
        except BaseException as exc:
            record_exception(self.span, exc)
            self._end()
            raise
        finally:
            otel_context.detach(token)

    async def aclose(self) -> None:
        try:
            close = getattr(self.events, "aclose", None)
            if close is not None:
                await close()
        finally:
            self._end()

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self.span.end()


class TracedStore:
    """A Store whose calls are spans; everything else is the store's own."""

    def __init__(self, store: Store, tracer: trace.Tracer) -> None:
        self._store = store
        self._tracer = tracer
        self.db_system: str = getattr(store, "db_system", None) or type(store).__name__
        self.db_collection: str | None = getattr(store, "db_collection", None)
        self._kind = (
            SpanKind.INTERNAL if self.db_system in IN_PROCESS_DATABASES else SpanKind.CLIENT
        )

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if name not in STORE_CALLS:
            return attribute
        traced = self._traced(name, attribute)
        setattr(self, name, traced)  # made once per call name
        return traced

    def _traced(
        self, operation: str, call: Callable[..., Awaitable[Any]]
    ) -> Callable[..., Awaitable[Any]]:
        target = self.db_collection or self.db_system
        attributes: dict[str, str | int | bool] = {
            "db.system.name": self.db_system,
            "db.operation.name": operation,
        }
        if self.db_collection:
            attributes["db.collection.name"] = self.db_collection
        attributes = _bounded(attributes)

        @functools.wraps(call)
        async def traced(*args: Any, **kwargs: Any) -> Any:
            span = self._tracer.start_span(
                f"{operation} {target}", kind=self._kind, attributes=attributes
            )
            with ActiveSpan(span):
                return await call(*args, **kwargs)

        return traced


class OtelBackend:
    """tracing.Backend through the OpenTelemetry API."""

    def __init__(self) -> None:
        # A ProxyTracer until the application sets its TracerProvider, then that provider's.
        self.tracer = trace.get_tracer(TRACER_NAME)

    def current(self) -> TraceContext | None:
        return carried(trace.get_current_span().get_span_context())

    def server(
        self,
        parent: TraceContext | None,
        method: str,
        path: str,
        headers: Mapping[str, str],
        scope: Mapping[str, Any],
    ) -> RequestSpan:
        attributes: dict[str, str | int] = {
            "http.request.method": method,
            "url.path": path,
            "url.scheme": str(scope.get("scheme", "http")),
        }
        host = headers.get("host")
        if host:
            address, port = _host_and_port(host)
            attributes["server.address"] = address
            if port is not None:
                attributes["server.port"] = port
        client = scope.get("client")
        if client:
            attributes["client.address"] = str(client[0])
        agent = headers.get("user-agent")
        if agent:
            attributes["user_agent.original"] = agent
        version = scope.get("http_version")
        if version:
            attributes["network.protocol.version"] = str(version)
        span = self.tracer.start_span(
            bounded(method),
            context=_parent(parent),
            kind=SpanKind.SERVER,
            attributes=_bounded(attributes),
        )
        return RequestSpan(span)

    def producer(self, job: TracedJob, system: str, destination: str) -> ActiveSpan:
        span = self.tracer.start_span(
            f"send {destination}",
            kind=SpanKind.PRODUCER,
            attributes=_bounded(
                {
                    "messaging.system": system,
                    "messaging.operation.type": "send",
                    "messaging.operation.name": "send",
                    "messaging.destination.name": destination,
                    **_job_attributes(job),
                }
            ),
        )
        return ActiveSpan(span)

    def consumer(
        self,
        job: TracedJob,
        system: str,
        destination: str,
        message_id: str | None,
        delivery_attempt: int | None,
    ) -> ActiveSpan:
        attributes: dict[str, str | int] = {
            "messaging.system": system,
            "messaging.operation.type": "process",
            "messaging.operation.name": "process",
            "messaging.destination.name": destination,
            **_job_attributes(job),
        }
        if message_id:
            attributes["messaging.message.id"] = message_id
        if delivery_attempt is not None:
            key = (
                "messaging.gcp_pubsub.message.delivery_attempt"
                if system == "gcp_pubsub"
                else "a2a.delivery.attempt"
            )
            attributes[key] = delivery_attempt
        links = [Link(span_context(job.trace))] if job.trace is not None else []
        span = self.tracer.start_span(
            f"process {destination}",
            context=_parent(job.trace),
            kind=SpanKind.CONSUMER,
            attributes=_bounded(attributes),
            links=links,
        )
        return ActiveSpan(span)

    def client_request(self, method: str, url: str) -> ActiveSpan:
        parts = urlsplit(url)
        attributes: dict[str, str | int] = {
            "http.request.method": method,
            "url.full": url,
            "server.address": parts.hostname or "",
        }
        port = parts.port or (443 if parts.scheme == "https" else 80)
        attributes["server.port"] = port
        span = self.tracer.start_span(method, kind=SpanKind.CLIENT, attributes=_bounded(attributes))
        return ActiveSpan(span)

    def internal(self, name: str, attributes: Mapping[str, str | int | bool]) -> ActiveSpan:
        span = self.tracer.start_span(
            bounded(name), kind=SpanKind.INTERNAL, attributes=_bounded(attributes)
        )
        return ActiveSpan(span)

    def annotate(self, attributes: Mapping[str, str | int | bool], name: str | None) -> None:
        span = trace.get_current_span()
        if not span.is_recording():
            return
        span.set_attributes(_bounded(attributes))
        if name is not None:
            span.update_name(bounded(name))

    def failed(self, description: str) -> None:
        trace.get_current_span().set_status(Status(StatusCode.ERROR, bounded(description)))

    def traced_store(self, store: StoreT) -> StoreT:
        if isinstance(store, TracedStore):
            return store
        return cast(StoreT, TracedStore(cast(Store, store), self.tracer))

    def flush(self) -> None:
        force_flush = getattr(trace.get_tracer_provider(), "force_flush", None)
        if force_flush is not None:
            force_flush()


def _bounded(attributes: Mapping[str, str | int | bool]) -> dict[str, str | int | bool]:
    """`attributes` with each string value bounded (tracing.bounded)."""
    return {
        key: bounded(value) if isinstance(value, str) else value
        for key, value in attributes.items()
    }


def _job_attributes(job: TracedJob) -> dict[str, str | int]:
    return {
        "a2a.task.id": job.task_id,
        "a2a.job.kind": job.kind,
        "a2a.job.id": job.id,
        "a2a.job.attempt": job.attempt,
    }


def _host_and_port(host: str) -> tuple[str, int | None]:
    """A Host header's name (IPv6 without brackets) and port, if it names one."""
    name, colon, port = host.rpartition(":")
    if not colon or not port.isdigit() or (name.startswith("[") and not name.endswith("]")):
        name, port = host, ""
    return name.strip("[]"), int(port) if port else None
