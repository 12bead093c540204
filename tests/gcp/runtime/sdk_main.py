"""The user's main.py for an a2a-sdk agent on Google Cloud (tests/gcp/runtime/
test_a2a_sdk_function.py): the sample executors of tests/a2a_sdk, their HTTP function and
their worker.

    functions-framework --target a2a --source sdk_main.py
    functions-framework --target worker --source sdk_main.py
"""

from a2a_serverless_gcp import http_function, worker_function
from tests.a2a_sdk.sdk_agents import samples

a2a = http_function(samples)
worker = worker_function(samples)
