"""Google Cloud Functions (gen2) / Cloud Run entry points of the example agent.

`scripts/package gcp` ships this file as the source bundle's main.py, next to
examples/trip_planner.py:

    functions-framework --target a2a      the A2A HTTP function (card, JSON-RPC, REST, SSE)
    functions-framework --target worker   the worker: Pub/Sub pushes and Cloud Tasks requests

Both functions deploy from the same source with different entry points, so each is built only
when functions-framework asks for its target (`entry_points`): the HTTP function then needs no
worker settings (A2A_WORKER_AUTH, ...) and the worker none of the HTTP function's.
"""

from a2a_serverless_gcp import entry_points
from examples.trip_planner import trip_planner

entry_points(__name__, trip_planner)
