"""Google Cloud Functions (gen2) / Cloud Run entry points of the example agent.

`scripts/package gcp` ships this file as the source bundle's main.py, next to
examples/trip_planner.py:

    functions-framework --target a2a      the A2A HTTP function (card, JSON-RPC, REST, SSE)
    functions-framework --target worker   the worker: Pub/Sub pushes and Cloud Tasks requests

Both functions deploy from the same source with different entry points, so each is built only
when functions-framework asks for its target: the HTTP function then needs no worker settings
(A2A_WORKER_AUTH, ...) and the worker none of the HTTP function's.
"""

from __future__ import annotations

from typing import Any

from examples.trip_planner import trip_planner


def __getattr__(name: str) -> Any:
    from a2a_serverless_gcp import http_function, worker_function

    if name == "a2a":
        function = http_function(trip_planner, name="a2a")
    elif name == "worker":
        function = worker_function(trip_planner, name="worker")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = function
    return function
