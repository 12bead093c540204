"""The Lambda handlers of the AWS process races (tests/aws/runtime/test_races_processes.py).

    http_handler    make_http_handler(agent, store=...)
    worker_handler  make_worker_handler(agent, store=...)

The agent is the scenario's (RACE_AGENT, tests/reliability/race_instance.py), the store the
A2A_STORE_URL table wrapped in the process's ledger; everything else is configured from the
environment as in a deployment (SQS queue, timing). Handlers are made on first access, as in
tests/aws/runtime/functions.py.
"""

from __future__ import annotations

import os
from typing import Any

from a2a_serverless.store import open_store
from tests.reliability.race_instance import ledger_store, race_agent


def __getattr__(name: str) -> Any:
    from a2a_serverless_aws import make_http_handler, make_worker_handler

    store = ledger_store(open_store(os.environ["A2A_STORE_URL"]))
    if name == "http_handler":
        handler: Any = make_http_handler(race_agent(), store=store)
    elif name == "worker_handler":
        handler = make_worker_handler(race_agent(), store=store)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = handler
    return handler
