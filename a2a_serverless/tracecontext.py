"""The W3C trace context (Trace Context level 1): what a request's `traceparent` / `tracestate`
say, parsed strictly. A leaf module: the Job (queue/base.py) and the OpenTelemetry backend
(otel.py) use it without the hooks of tracing.py, which re-exports it. Also `bounded`, what
becomes of a request's value before it is a span's attribute."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol, Self

import msgspec

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"

# The patterns are compiled on first use, by re's own cache: a request without trace headers
# never needs them.
# version "-" trace-id "-" parent-id "-" trace-flags, lower-case hex only (W3C §3.2.2).
_TRACEPARENT = r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})"
_ZERO_TRACE = "0" * 32
_ZERO_SPAN = "0" * 16
# tracestate list members (W3C §3.3.1): a simple or a multi-tenant key, then a value.
_TRACESTATE_MEMBER = (
    r"(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})"
    r"=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]"
)
MAX_TRACESTATE_MEMBERS = 32
# The length every vendor must propagate (§3.3.1.5); a longer tracestate is dropped whole.
MAX_TRACESTATE_CHARS = 512

# The longest string attribute a span gets from a request. OpenTelemetry's SDK has no limit by
# default (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT is unset), and exporters send a batch as one
# message that a collector refuses whole past its size limit (4 MB for OTLP/gRPC).
MAX_ATTRIBUTE_CHARS = 512
TRUNCATED_MARKER = "…[truncated, {length} chars]"


def bounded(value: str, limit: int = MAX_ATTRIBUTE_CHARS) -> str:
    """`value` as a span may carry it: control characters escaped (`\\n`, `\\x1b`, as `repr`
    writes them), then cut to `limit` characters, a cut value ending in TRUNCATED_MARKER with
    the length the client sent."""
    # Each character escapes to one or more, so the first `limit` ones are all that can show.
    shown = value[:limit]
    if not shown.isprintable():
        shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)
    if len(value) > limit or len(shown) > limit:
        return shown[:limit] + TRUNCATED_MARKER.format(length=len(value))
    return shown


class TraceContext(msgspec.Struct, frozen=True):
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
    match = re.match(_TRACEPARENT, value)
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
        if re.fullmatch(_TRACESTATE_MEMBER, member) is None:
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


class TracedJob(Protocol):
    """What the tracing hooks read of a queue's Job (queue/base.py, which imports this module)."""

    @property
    def kind(self) -> str: ...
    @property
    def task_id(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def attempt(self) -> int: ...
    @property
    def trace(self) -> TraceContext | None: ...
    def with_trace(self, trace: TraceContext | None) -> Self: ...
