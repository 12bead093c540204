"""Runs inside a fresh `python -S` process on the GCP bundle: functions-framework loads a
function from its source file and serves one message/send.

    python -S probe_gcp.py cold <source file> <result.json>

What the platform's `functions-framework --target $FUNCTION_TARGET` does at start-up:
`functions_framework.create_app(target, source)` imports the framework (Flask included), executes
the source file, and, the target being an ASGI function (`functions_framework.aio.http`), returns
its Starlette app. Then one JSON-RPC message/send is POSTed to `/` through that app, on an
asyncio loop, as uvicorn hands a request to it. gunicorn's arbiter, its fork and the uvicorn
worker's boot are not part of the process (the same for every function, whatever it serves).
The result is written as probe.py writes it; the process exits right after the response.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import asyncio  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from collections.abc import Awaitable, Callable  # noqa: E402
from typing import Any  # noqa: E402

from events import send_body  # noqa: E402
from probe import TEXT, _checked_task, _memory_kib, finish  # noqa: E402

Message = dict[str, Any]
Asgi = Callable[
    [Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]
HOST = "a2a-bench-abcdefghij-ew.a.run.app"


async def post(app: Asgi, body: bytes, path: str = "/") -> tuple[int, bytes]:
    """One POST through an ASGI app, as uvicorn makes it; the status and the whole body."""
    scope: Message = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", HOST.encode()),
            (b"content-type", b"application/json"),
            (b"accept", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"user-agent", b"a2a-bench"),
            (b"x-forwarded-proto", b"https"),
        ],
        "client": ("169.254.1.1", 40000),
        "server": ("127.0.0.1", 8080),
    }
    received = False
    finished = asyncio.Event()
    status = 0
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": body, "more_body": False}
        # The client stays connected until the response is complete.
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                finished.set()

    await app(scope, receive, send)
    return status, b"".join(chunks)


def cold(source: str) -> dict[str, Any]:
    target = os.environ["FUNCTION_TARGET"]
    imported_at = time.perf_counter()
    import functions_framework

    app = functions_framework.create_app(target, source)
    ready_at = time.perf_counter()
    loop = asyncio.new_event_loop()
    status, body = loop.run_until_complete(post(app, send_body(TEXT).encode()))
    served_at = time.perf_counter()
    _checked_task({"statusCode": status, "body": body.decode()})
    return {
        "preamble_ms": (imported_at - STARTED) * 1000,
        "import_ms": (ready_at - imported_at) * 1000,
        "first_request_ms": (served_at - ready_at) * 1000,
        "memory_kib": _memory_kib(),
    }


def main() -> None:
    mode, source, out = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode != "cold":
        raise SystemExit(f"probe_gcp.py measures cold starts only, not {mode!r}")
    finish(out, cold(os.path.join(os.path.dirname(os.path.abspath(__file__)), source)))


if __name__ == "__main__":
    main()
