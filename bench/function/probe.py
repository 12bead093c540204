"""Runs inside a fresh `python -S` process on a Lambda bundle: imports a handler, serves events.

    python -S probe.py cold    <handler module> <result.json>
    python -S probe.py warm    <handler module> <result.json> [sends] [gets] [warmup]
    python -S probe.py profile <handler module> <result.json> [sends] [gets] [warmup]

`cold` imports the handler and serves one message/send (what a cold start does); `warm` then
serves `sends` message/send and `gets` tasks/get events one after the other, timing each
call, and reads the process's peak RSS; `profile` does the same under cProfile and writes
<result>.send.pstats and <result>.get.pstats. Results go to a JSON file, not stdout: handlers
print their own logs and metrics there. Standard library only, like Lambda's runtime interface
client, so the bundle's packages are the only ones loaded.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any, NoReturn  # noqa: E402

from events import (  # noqa: E402
    LambdaContext,
    completed,
    get_body,
    http_api_event,
    send_body,
    task_of,
)

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
TEXT = "hello, bench"


def _send(handler: Handler, request_id: int) -> dict[str, Any]:
    return handler(http_api_event(send_body(TEXT, request_id=request_id)), LambdaContext())


def _checked_task(response: dict[str, Any]) -> dict[str, Any]:
    task = task_of(response)
    state = task.get("status", {}).get("state")
    if not completed(state):
        raise ValueError(f"task is {state!r}, expected 'completed': {json.dumps(task)[:500]}")
    texts = [
        part.get("text")
        for artifact in task.get("artifacts") or []
        for part in artifact.get("parts") or []
    ]
    if texts != [TEXT]:
        raise ValueError(f"expected one artifact echoing {TEXT!r}, got {texts!r}")
    return task


def _memory_kib() -> dict[str, int]:
    """VmHWM (peak resident set) and VmRSS of this process, in KiB."""
    found: dict[str, int] = {}
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                found[name] = int(value.split()[0])
    return found


def cold(module_name: str) -> dict[str, Any]:
    imported_at = time.perf_counter()
    module = importlib.import_module(module_name)
    handler: Handler = module.handler
    ready_at = time.perf_counter()
    response = _send(handler, 1)
    served_at = time.perf_counter()
    _checked_task(response)
    return {
        "preamble_ms": (imported_at - STARTED) * 1000,
        "import_ms": (ready_at - imported_at) * 1000,
        "first_request_ms": (served_at - ready_at) * 1000,
        "memory_kib": _memory_kib(),
    }


def _timed_calls(
    handler: Handler, sends: int, gets: int, warmup: int, profile_to: str | None = None
) -> dict[str, Any]:
    """Time each call alone; with `profile_to`, also profile exactly the handler calls."""
    task_ids = [_checked_task(_send(handler, i))["id"] for i in range(warmup)]
    for i in range(warmup):
        _checked_task(handler(http_api_event(get_body(task_ids[i])), LambdaContext()))
    profiler: Any = None
    if profile_to is not None:
        import cProfile

        profiler = cProfile.Profile()
    clock = time.perf_counter_ns

    def call(event: dict[str, Any], durations: list[int]) -> dict[str, Any]:
        context = LambdaContext()
        if profiler is not None:
            profiler.enable()
        start = clock()
        response = handler(event, context)
        durations.append(clock() - start)
        if profiler is not None:
            profiler.disable()
        return response

    send_ns: list[int] = []
    bodies = [
        call(http_api_event(send_body(TEXT, request_id=i)), send_ns)["body"] for i in range(sends)
    ]
    if profiler is not None:
        profiler.dump_stats(f"{profile_to}.send.pstats")
        profiler.clear()
    ids = [_checked_task({"statusCode": 200, "body": body})["id"] for body in bodies]
    get_ns: list[int] = []
    responses = [
        call(http_api_event(get_body(ids[i % len(ids)], request_id=i)), get_ns) for i in range(gets)
    ]
    if profiler is not None:
        profiler.dump_stats(f"{profile_to}.get.pstats")
    for response in responses:
        _checked_task(response)
    return {"send_ns": send_ns, "get_ns": get_ns, "memory_kib": _memory_kib()}


def main() -> None:
    mode, module_name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    counts = [int(arg) for arg in sys.argv[4:7]]
    sends, gets, warmup = (counts + [2000, 2000, 50][len(counts) :])[:3]
    if mode == "cold":
        result = cold(module_name)
    else:
        handler: Handler = importlib.import_module(module_name).handler
        result = _timed_calls(handler, sends, gets, warmup, out if mode == "profile" else None)
    finish(out, result)


def finish(out: str, result: dict[str, Any]) -> NoReturn:
    """Write the result and exit at once."""
    with open(out, "w") as file:
        json.dump(result, file)
    sys.stdout.flush()
    sys.stderr.flush()
    # A Lambda process is frozen, never torn down, after it answers (and a function instance
    # lives on after its first request): skip interpreter shutdown.
    os._exit(0)


if __name__ == "__main__":
    main()
