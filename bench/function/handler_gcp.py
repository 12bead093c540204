"""Ours on Google Cloud: the GCP adapter's HTTP function, as a deployment's main.py defines it.

    functions-framework --target a2a --source handler_gcp.py

The store is A2A_STORE_URL (firestore://... against the Firestore emulator in the bench). A
deployment queues each turn on Pub/Sub for its worker function; here, as in the AWS rows, the
queue is the in-process one and the request runs the agent itself: a blocking message/send waits
for the turn in the same request, so the figure is the HTTP function's cold start, not a second
function's.
"""

from __future__ import annotations

import inspect
from typing import Any

from echo_ours import echo

from a2a_serverless.queue.base import Job
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_gcp import http_function
from a2a_serverless_gcp.functions import Deployment

queue = InProcessQueue()
a2a = http_function(echo, queue=queue)


def _deployment_of(function: Any) -> Deployment:
    # http_function builds the Runtime on the function's first request (after the platform's
    # fork) and keeps it in its Deployment, which it does not return: found in the served
    # function's closure. The bench's queue needs that runtime's job router.
    found = inspect.getclosurevars(inspect.unwrap(function)).nonlocals.get("deployment")
    if not isinstance(found, Deployment):
        raise RuntimeError("http_function's function no longer holds its Deployment: bench/")
    return found


deployment = _deployment_of(a2a)


async def run_job(job: Job) -> None:
    await deployment.runtime().jobs.handle(job)


queue.bind(run_job)
