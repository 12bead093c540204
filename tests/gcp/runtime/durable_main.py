"""The user's main.py in the durable-call tests: an orchestrator calling the agent named
"worker" in A2A_REMOTE_AGENTS (the test's, on loopback), as the HTTP function and the worker.

It records each run of its turn (ECHO_RUNS_FILE) before and after the call, so a test can see
that the turn suspended and was replayed."""

import os

from a2a_serverless import Context, TaskUpdater
from a2a_serverless.agent import Agent
from a2a_serverless_gcp import http_function, worker_function


def note(line: str) -> None:
    runs_file = os.environ.get("ECHO_RUNS_FILE")
    if runs_file:
        with open(runs_file, "a") as runs:
            runs.write(line + "\n")


class Orchestrator:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        note("run")
        await updater.start_work("planning")
        result = await context.call("worker", context.text)
        note("continued")
        await updater.complete(f"worker said: {result.text}")


orchestrator = Agent(name="Orchestrator", description="calls a worker", executor=Orchestrator())
a2a = http_function(orchestrator)
worker = worker_function(orchestrator)
