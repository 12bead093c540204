"""Ours on Google Cloud: the GCP adapter's HTTP function, as a deployment's main.py defines it.

    functions-framework --target a2a --source handler_gcp.py

The store is A2A_STORE_URL (firestore://... against the Firestore emulator in the bench). A
deployment queues each turn on Pub/Sub for its worker function; here, as in the AWS rows, the
queue is the in-process one and the request runs the agent itself: a blocking message/send waits
for the turn in the same request, so the figure is the HTTP function's cold start, not a second
function's.
"""

from __future__ import annotations

from echo_ours import echo

from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_gcp import make_http_handler

# The Runtime, built on the first request, runs the jobs of an in-process queue given unbound.
a2a = make_http_handler(echo, queue=InProcessQueue())
