"""The Lambda handlers of the a2a-sdk tests on the AWS path (tests/aws/runtime/
test_a2a_sdk_executors.py), as a user's handler module makes them for an a2a-sdk agent:

    http_handler    make_http_handler(samples)
    worker_handler  make_worker_handler(samples)

Each is made on first access: each function is configured (its timeout, ...) for its own.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from a2a_serverless_aws import make_http_handler, make_worker_handler
    from tests.a2a_sdk.sdk_agents import samples

    if name == "http_handler":
        handler: Any = make_http_handler(samples)
    elif name == "worker_handler":
        handler = make_worker_handler(samples)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = handler
    return handler
