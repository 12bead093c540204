"""Cloud Logging structured logs: one JSON object per line on stdout, and trace context.

Cloud Run and Cloud Functions (gen2) parse each JSON line written to stdout into a log entry
(https://cloud.google.com/logging/docs/structured-logging): `severity`, `message`, `time`,
`logging.googleapis.com/trace` (``projects/<project>/traces/<trace id>``, which puts the line
under its request in the console), `logging.googleapis.com/spanId`,
`logging.googleapis.com/labels` and `logging.googleapis.com/sourceLocation`.

The trace of the request being handled is kept in a context variable: the entry points set it
from `X-Cloud-Trace-Context` or W3C `traceparent`, and hand it to the core as its W3C trace
context (a2a_serverless/tracing.py), which every queued job carries in its JSON to the worker,
so the worker's lines join the trace of the request that queued the job. Where the core has a
more precise context of the same trace (an OpenTelemetry span, with A2A_OTEL), lines name its
span. Jobs queued by earlier versions carried the trace in a message attribute (`a2aTrace`) or
a task header (`X-A2A-Trace`): still read. The core's correlation ids (`correlation_ids()`:
task_id, rpc_id) become labels.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import secrets
import sys
import traceback
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from datetime import UTC, datetime

import msgspec

from a2a_serverless import tracing
from a2a_serverless.observability import correlation_ids

# The header and Pub/Sub attribute jobs queued by earlier versions carried their trace in.
TRACE_HEADER = "x-a2a-trace"
TRACE_ATTRIBUTE = "a2aTrace"

_SEVERITY = {
    logging.DEBUG: "DEBUG",
    logging.INFO: "INFO",
    logging.WARNING: "WARNING",
    logging.ERROR: "ERROR",
    logging.CRITICAL: "CRITICAL",
}
_CLOUD_TRACE = re.compile(r"^([0-9a-fA-F]{32})(?:/(\d+))?(?:;o=([01]))?$")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


class TraceContext(msgspec.Struct, frozen=True):
    trace_id: str  # 32 hex digits
    span_id: str | None = None  # 16 hex digits
    sampled: bool = False

    def header(self) -> str:
        """The `X-Cloud-Trace-Context`-style value."""
        span = f"/{int(self.span_id, 16)}" if self.span_id else ""
        return f"{self.trace_id}{span};o={int(self.sampled)}"

    def w3c(self) -> tracing.TraceContext:
        """As the core carries it. W3C needs a parent span: one without (a Cloud Trace header
        naming none, or span 0) gets a random one, which keeps the trace."""
        span_id = self.span_id if self.span_id and int(self.span_id, 16) else secrets.token_hex(8)
        return tracing.TraceContext(self.trace_id, span_id, int(self.sampled))

    @classmethod
    def of(cls, context: tracing.TraceContext | None) -> TraceContext | None:
        """The core's carried context, for log lines."""
        if context is None:
            return None
        return cls(context.trace_id, context.span_id, context.sampled)


_trace: ContextVar[TraceContext | None] = ContextVar("a2a_gcp_trace", default=None)


def parse_trace(value: str | None) -> TraceContext | None:
    """A trace from an `X-Cloud-Trace-Context` ("TRACE/SPAN;o=1") or `traceparent` value."""
    if not value:
        return None
    value = value.strip()
    match = _TRACEPARENT.match(value)
    if match is not None:
        trace_id, span_id, flags = match.groups()
        return TraceContext(trace_id, span_id, bool(int(flags, 16) & 1))
    match = _CLOUD_TRACE.match(value)
    if match is None:
        return None
    trace_id, span, sampled = match.groups()
    # Cloud Trace writes the span as a decimal number; log entries want 16 hex digits.
    span_id = f"{int(span):016x}" if span and int(span) < 2**64 else None
    return TraceContext(trace_id.lower(), span_id, sampled == "1")


def trace_from_headers(headers: Mapping[str, str]) -> TraceContext | None:
    """The trace of a request (header names lower-case): `X-Cloud-Trace-Context`, else
    `traceparent`."""
    for name in ("x-cloud-trace-context", "traceparent"):
        trace = parse_trace(headers.get(name))
        if trace is not None:
            return trace
    return None


def current_trace() -> TraceContext | None:
    """The trace log lines written now belong to: the one set for the block (`traced`), with
    the span of the core's current context when that is in the same trace; else the core's."""
    explicit = _trace.get()
    carried = tracing.current()
    if carried is not None and (explicit is None or explicit.trace_id == carried.trace_id):
        return TraceContext.of(carried)
    return explicit


@contextlib.contextmanager
def traced(trace: TraceContext | None) -> Iterator[None]:
    """Log lines written in this block belong to `trace` (None: to no trace)."""
    token = _trace.set(trace)
    try:
        yield
    finally:
        _trace.reset(token)


class CloudLoggingFormatter(logging.Formatter):
    """Formats a record as one line of Cloud Logging structured JSON."""

    def __init__(self, project_id: str | None = None) -> None:
        super().__init__()
        self.project_id = project_id

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info:
            # Error Reporting picks up a stack trace that is part of the message.
            message = f"{message}\n{''.join(traceback.format_exception(*record.exc_info))}"
        elif record.stack_info:
            message = f"{message}\n{record.stack_info}"
        entry: dict[str, object] = {
            "severity": _SEVERITY.get(record.levelno, "DEFAULT"),
            "message": message.rstrip("\n"),
            "time": datetime.fromtimestamp(record.created, UTC).isoformat().replace("+00:00", "Z"),
            "logger": record.name,
            "logging.googleapis.com/sourceLocation": {
                "file": record.pathname,
                "line": str(record.lineno),
                "function": record.funcName,
            },
        }
        trace = current_trace() if self.project_id else None
        if trace is not None and self.project_id:
            entry["logging.googleapis.com/trace"] = (
                f"projects/{self.project_id}/traces/{trace.trace_id}"
            )
            if trace.span_id:
                entry["logging.googleapis.com/spanId"] = trace.span_id
            entry["logging.googleapis.com/trace_sampled"] = trace.sampled
        labels = correlation_ids()
        if labels:
            entry["logging.googleapis.com/labels"] = labels
        return json.dumps(entry, ensure_ascii=False, default=str)


class _CloudLoggingHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Marks the handler `install_logging` added, so a second call changes nothing."""


def install_logging(project_id: str | None, level: str = "INFO") -> None:
    """Send every log record to stdout as Cloud Logging JSON (once per process).

    The root logger's other handlers are removed: on Cloud Run a plain-text handler would
    write every line a second time, unstructured. `project_id` names the project in
    `logging.googleapis.com/trace`; without it lines carry no trace.
    """
    root = logging.getLogger()
    resolved = logging.getLevelName(level.upper())
    if not isinstance(resolved, int):
        raise ValueError(f"A2A_LOG_LEVEL={level!r} is not a logging level")
    root.setLevel(resolved)
    if any(isinstance(h, _CloudLoggingHandler) for h in root.handlers):
        return
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = _CloudLoggingHandler(sys.stdout)
    handler.setFormatter(CloudLoggingFormatter(project_id))
    root.addHandler(handler)
