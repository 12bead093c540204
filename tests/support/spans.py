"""OpenTelemetry's SDK set up for the tracing tests: ended spans kept in memory, or written to a
file by the processes that run the functions.

- `memory_exporter()`: the test process's TracerProvider (set once per process, as
  OpenTelemetry allows) with an `InMemorySpanExporter`; `recorded(exporter)` reads its spans.
- A function's process (tests/aws/runtime/functions.py, tests/gcp/runtime/functions_main.py)
  calls `install_from_env()` on import: with SPANS_FILE_ENV set it exports every ended span as
  one JSON line to that file (appended, so the HTTP and the worker processes share one file);
  `read_spans(path)` reads them back.

A span is a plain dict either way (see `as_dict`), so the same assertions read both.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

SPANS_FILE_ENV = "TEST_SPANS_FILE"

_lock = threading.Lock()
_memory: InMemorySpanExporter | None = None


def as_dict(span: ReadableSpan) -> dict[str, Any]:
    context = span.context
    assert context is not None
    return {
        "name": span.name,
        "kind": span.kind.name,
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
        "parent_id": format(span.parent.span_id, "016x") if span.parent else None,
        "links": [
            {
                "trace_id": format(link.context.trace_id, "032x"),
                "span_id": format(link.context.span_id, "016x"),
            }
            for link in span.links
        ],
        "attributes": dict(span.attributes or {}),
        "status": span.status.status_code.name,
        "pid": os.getpid(),
    }


class FileSpanExporter(SpanExporter):
    """Appends each span as a JSON line to a file (several processes may share it)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(json.dumps(as_dict(span), default=str) + "\n" for span in spans)
        with _lock, open(self.path, "a") as out:
            out.write(lines)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def install_from_env() -> None:
    """In a function's process: export spans to $TEST_SPANS_FILE, if it is set."""
    path = os.environ.get(SPANS_FILE_ENV)
    if not path:
        return
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path)))
    trace.set_tracer_provider(provider)


def memory_exporter() -> InMemorySpanExporter:
    """The test process's in-memory exporter (its TracerProvider is made on the first call)."""
    global _memory
    with _lock:
        if _memory is None:
            _memory = InMemorySpanExporter()
            provider = TracerProvider()
            provider.add_span_processor(SimpleSpanProcessor(_memory))
            trace.set_tracer_provider(provider)
        return _memory


def recorded(exporter: InMemorySpanExporter) -> list[dict[str, Any]]:
    return [as_dict(span) for span in exporter.get_finished_spans()]


def read_spans(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def by_kind(spans: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [span for span in spans if span["kind"] == kind]
