"""Ours, the echo agent as an a2a-sdk AgentExecutor (echo_sdk.py), through the AWS adapter's
HTTP handler (Mangum, powertools logs and metrics): the cold-start cost of the a2a-sdk bridge.

The store is A2A_STORE_URL (memory://, or dynamodb://... for the DynamoDB row). The queue is the
in-process one, as in the peer, where the request handler runs the agent itself: a blocking
message/send waits for the turn in the same invocation.
"""

from __future__ import annotations

from echo_sdk import echo

from a2a_serverless import Settings
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler

handler = make_http_handler(echo, Settings.from_env(), queue=InProcessQueue())
