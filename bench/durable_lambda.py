"""The orchestrator of bench/durable_aws.py as a Lambda deployment's handler module: its HTTP
function's handler is `bench.durable_lambda.http`, its worker function's
`bench.durable_lambda.worker`.

Its agent `ctx.call`s the remote agent at $BENCH_REMOTE_URL with its message's text and, once
past the call, appends a line to $BENCH_CONTINUED_FILE: the answer, its task id and
time.monotonic(), tab-separated. On Linux that clock is the machine's, so the bench compares
it with the moment the remote answered.
"""

from __future__ import annotations

import os
import time

from a2a_serverless import Context, agent
from a2a_serverless_aws import entry_points


@agent(
    name="Orchestrator",
    description="calls the remote agent",
    remote_agents={"worker": os.environ["BENCH_REMOTE_URL"]},
)
async def orchestrator(ctx: Context) -> str:
    result = await ctx.call("worker", ctx.text)
    continued = time.monotonic()
    # One short line per write, appended: the worker functions' processes share the file (a
    # local write, not worth a thread).
    with open(os.environ["BENCH_CONTINUED_FILE"], "a") as out:  # noqa: ASYNC230
        out.write(f"{result.text}\t{ctx.task_id}\t{continued!r}\n")
    return result.text


entry_points(__name__, orchestrator)
