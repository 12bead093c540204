"""W3C trace context: strict parsing of `traceparent` / `tracestate`, and how a Job carries it."""

from __future__ import annotations

import json

import pytest

from a2a_serverless import tracing
from a2a_serverless.queue.base import RunAgentJob, RunTurn, decode_job, encode_job
from a2a_serverless.tracing import TraceContext, parse_traceparent, parse_tracestate

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"


def test_a_valid_traceparent() -> None:
    context = parse_traceparent(f"00-{TRACE}-{SPAN}-01")
    assert context == TraceContext(TRACE, SPAN, 1)
    assert context.sampled
    assert context.traceparent() == f"00-{TRACE}-{SPAN}-01"
    assert context.headers() == {"traceparent": f"00-{TRACE}-{SPAN}-01"}
    assert not TraceContext(TRACE, SPAN, 0).sampled
    # Surrounding whitespace is not part of a header's value.
    assert parse_traceparent(f"  00-{TRACE}-{SPAN}-00\t") == TraceContext(TRACE, SPAN, 0)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "nonsense",
        f"00-{TRACE.upper()}-{SPAN}-01",  # upper-case hex is invalid
        f"00-{'0' * 32}-{SPAN}-01",  # all-zero trace id
        f"00-{TRACE}-{'0' * 16}-01",  # all-zero parent id
        f"ff-{TRACE}-{SPAN}-01",  # the forbidden version
        f"00-{TRACE}-{SPAN}-01-extra",  # version 00 has nothing after its flags
        f"00-{TRACE}-{SPAN}-1",
        f"00-{TRACE[:-1]}-{SPAN}-01",
        f"00_{TRACE}_{SPAN}_01",
        f"0g-{TRACE}-{SPAN}-01",
        f"01-{TRACE}-{SPAN}-01x",  # a later version's extra fields start with a dash
    ],
)
def test_invalid_traceparents_are_ignored(value: str) -> None:
    assert parse_traceparent(value) is None


def test_a_later_version_is_read_as_version_00() -> None:
    context = parse_traceparent(f"cc-{TRACE}-{SPAN}-ff-what-comes-later")
    assert context == TraceContext(TRACE, SPAN, 1)
    assert context.traceparent() == f"00-{TRACE}-{SPAN}-01"


def test_tracestate() -> None:
    assert parse_tracestate("congo=t61rcWkgMzE, rojo=00f067aa0ba902b7") == (
        "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
    )
    assert parse_tracestate("tenant@vendor=v , ,x=1") == "tenant@vendor=v,x=1"
    for bad in ("novalue", "UPPER=1", "a=1,a=2", "a=b=c", "=1", ",".join(["k=v"] * 2)):
        assert parse_tracestate(bad) is None
    assert parse_tracestate(",".join(f"k{i}=v" for i in range(33))) is None
    assert parse_tracestate("k=" + "v" * 600) is None
    assert parse_tracestate(None) is None and parse_tracestate("") is None
    # A bad tracestate is dropped; its traceparent stays.
    assert parse_traceparent(f"00-{TRACE}-{SPAN}-01", "BAD") == TraceContext(TRACE, SPAN, 1)
    context = parse_traceparent(f"00-{TRACE}-{SPAN}-01", "a=1")
    assert context is not None and context.headers()["tracestate"] == "a=1"


def test_from_headers() -> None:
    headers = {"traceparent": f"00-{TRACE}-{SPAN}-01", "tracestate": "a=1"}
    assert tracing.from_headers(headers) == TraceContext(TRACE, SPAN, 1, "a=1")
    assert tracing.from_headers({}) is None
    assert tracing.from_headers({"traceparent": "junk"}) is None


def test_the_current_context() -> None:
    context = TraceContext(TRACE, SPAN, 1)
    assert tracing.current() is None
    with tracing.use(context):
        assert tracing.current() == context
        with tracing.use(None):
            assert tracing.current() is None
        assert tracing.current() == context
    assert tracing.current() is None


def test_a_job_carries_its_trace_in_its_json() -> None:
    context = TraceContext(TRACE, SPAN, 1, "a=1")
    job = RunAgentJob(task_id="t", payload=RunTurn("m")).with_trace(context)
    data = json.loads(encode_job(job).decode())
    assert data["traceparent"] == f"00-{TRACE}-{SPAN}-01"
    assert data["tracestate"] == "a=1"
    assert decode_job(encode_job(job).decode()) == job
    # Jobs queued before the trace was carried, or with a broken one, still decode.
    untraced = RunAgentJob(task_id="t", payload=RunTurn("m"), id="j")
    assert "traceparent" not in encode_job(untraced).decode()
    assert decode_job(encode_job(untraced).decode()) == untraced
    data["traceparent"] = "broken"
    assert decode_job(json.dumps(data)).trace is None
    data["traceparent"] = 42
    assert decode_job(json.dumps(data)).trace is None


def test_producing_stamps_the_current_context_on_the_job() -> None:
    context = TraceContext(TRACE, SPAN, 1)
    job = RunAgentJob(task_id="t", payload=RunTurn("m"))
    with tracing.producing(job, "test", "q") as sent:
        assert sent is job  # nothing to carry
    with tracing.use(context), tracing.producing(job, "test", "q") as sent:
        assert sent.trace == context and sent.id == job.id
    with tracing.consuming(sent, "test", "q"):
        assert tracing.current() == context
    with tracing.use(context), tracing.consuming(job, "test", "q"):
        # A job without a trace starts afresh, whatever runs around its consumer.
        assert tracing.current() is None


def test_bounded_keeps_short_values_and_cuts_long_ones_saying_so() -> None:
    limit = tracing.MAX_ATTRIBUTE_CHARS
    assert tracing.bounded("abc") == "abc"
    assert tracing.bounded("é" * limit) == "é" * limit
    assert tracing.bounded("x" * (limit + 1)) == "x" * limit + "…[truncated, 513 chars]"
    assert tracing.bounded("abcdef", 4) == "abcd…[truncated, 6 chars]"


def test_bounded_escapes_control_characters_within_the_bound() -> None:
    assert tracing.bounded("a\nb\x1b[0m\x00") == "a\\nb\\x1b[0m\\x00"
    # Escaping may make a short value too long: it is cut, and says so.
    assert tracing.bounded("\n" * 3, 4) == "\\n\\n…[truncated, 3 chars]"
    assert len(tracing.bounded("\x00" * 10_000_000)) < 2 * tracing.MAX_ATTRIBUTE_CHARS
