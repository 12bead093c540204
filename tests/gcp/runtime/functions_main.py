"""The user's main.py in the runtime tests: one agent, its HTTP function and its worker.

    functions-framework --target a2a --source functions_main.py
    functions-framework --target worker --source functions_main.py

The agent records every turn it runs (ECHO_RUNS_FILE) so tests can count runs, and the message
"crash" kills the process running it, as an out-of-memory kill would: a poison job.
"""

import os

from a2a_serverless import agent
from a2a_serverless_gcp import http_function, worker_function

if os.environ.get("TEST_SPANS_FILE"):
    # The tracing tests: this process's spans go to that file (tests/support/spans.py).
    from tests.support.spans import install_from_env

    install_from_env()


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    runs_file = os.environ.get("ECHO_RUNS_FILE")
    if runs_file:
        with open(runs_file, "a") as runs:
            runs.write(text + "\n")
    if text == "crash":
        os._exit(70)
    return f"echo: {text}"


a2a = http_function(echo)
worker = worker_function(echo)
