"""API Gateway HTTP API (payload 2.0) events and a Lambda context, as Lambda hands them over.

Standard library only: this module runs inside the Lambda bundles, next to the handler.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any

HOST = "abcdef1234.execute-api.us-east-1.amazonaws.com"
# Where the agent's JSON-RPC endpoint is: "/" alone, "/agent/" in the FastAPI app.
PATH_ENV = "BENCH_A2A_PATH"
# The A2A version the probe speaks: "0.3" (the default: message/send, tasks/get) or "1.0"
# (SendMessage, GetTask with the A2A-Version header), the version of the peer compared.
PROTOCOL_ENV = "BENCH_A2A_PROTOCOL"


def protocol() -> str:
    return os.environ.get(PROTOCOL_ENV, "0.3")


def http_api_event(body: str, *, path: str | None = None, method: str = "POST") -> dict[str, Any]:
    """An API Gateway v2 ($default route, $default stage) event carrying a JSON body, to
    `path` (default: $BENCH_A2A_PATH, else "/")."""
    if path is None:
        path = os.environ.get(PATH_ENV, "/")
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {
            "accept": "application/json",
            "content-length": str(len(body.encode())),
            "content-type": "application/json",
            "host": HOST,
            "user-agent": "a2a-bench",
            "x-forwarded-for": "203.0.113.7",
            "x-forwarded-port": "443",
            "x-forwarded-proto": "https",
            **({"a2a-version": "1.0"} if protocol() == "1.0" else {}),
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abcdef1234",
            "domainName": HOST,
            "domainPrefix": "abcdef1234",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "a2a-bench",
            },
            "requestId": uuid.uuid4().hex[:16],
            "routeKey": "$default",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": body,
        "isBase64Encoded": False,
    }


class LambdaContext:
    """The attributes of Lambda's context object that handlers and powertools read."""

    def __init__(self, timeout_s: float = 60.0) -> None:
        self.function_name = "a2a-bench"
        self.function_version = "$LATEST"
        self.invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:a2a-bench"
        self.memory_limit_in_mb = 1024
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = "/aws/lambda/a2a-bench"
        self.log_stream_name = "2025/01/01/[$LATEST]bench"
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def send_body(text: str, *, request_id: int = 1) -> str:
    """A JSON-RPC send (message/send in 0.3, SendMessage in 1.0, blocking either way) with a
    fresh messageId (every send is a new task)."""
    message_id = str(uuid.uuid4())
    if protocol() == "1.0":
        method = "SendMessage"
        message: dict[str, Any] = {
            "role": "ROLE_USER",
            "messageId": message_id,
            "parts": [{"text": text}],
        }
    else:
        method = "message/send"
        message = {
            "kind": "message",
            "role": "user",
            "messageId": message_id,
            "parts": [{"kind": "text", "text": text}],
        }
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"message": message}}
    )


def get_body(task_id: str, *, request_id: int = 1) -> str:
    method = "GetTask" if protocol() == "1.0" else "tasks/get"
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"id": task_id}}
    )


def task_of(response: dict[str, Any]) -> dict[str, Any]:
    """The Task in a handler's JSON-RPC response; ValueError if the call did not succeed."""
    status = response.get("statusCode")
    body = response.get("body") or ""
    if status != 200:
        raise ValueError(f"HTTP {status}: {body[:500]}")
    reply = json.loads(body)
    result = reply.get("result")
    if protocol() == "1.0" and isinstance(result, dict) and "task" in result:
        result = result["task"]  # SendMessage answers {"task": ...}; GetTask the Task itself
    if not isinstance(result, dict) or not ("kind" in result or "status" in result):
        raise ValueError(f"not a task result: {body[:500]}")
    if protocol() != "1.0" and result.get("kind") != "task":
        raise ValueError(f"not a task result: {body[:500]}")
    return result


def completed(state: object) -> bool:
    """The task's state says completed, in either version's spelling."""
    return state in ("completed", "TASK_STATE_COMPLETED")
