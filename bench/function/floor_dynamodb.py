"""A reference, not an agent server: the floor under a DynamoDB-backed handler's cold start.

floor_stdlib's handler (message/send and tasks/get from a dict on an asyncio loop), plus what
any handler keeping its tasks in DynamoDB through pynamodb pays at init whatever it does: the
imports of pynamodb's models and boto3, and one DynamoDB client (made by the same bundle, the
same way: a session of its own, the region and endpoint of A2A_STORE_URL's environment). It
sends no request. The bench prints the DynamoDB handler's cold start against this one.
"""

from __future__ import annotations

import boto3  # type: ignore[import-untyped]
import pynamodb.models  # noqa: F401  (the import is what is measured)
from floor_stdlib import handler

client = boto3.session.Session().client("dynamodb")

__all__ = ["client", "handler"]
