"""A reference, not an agent server: the least a Lambda handler on asyncio can do for the probe.

It answers message/send with a completed echo task and tasks/get from a dict, running each
request as a coroutine on one event loop, with the standard library only (json, uuid, asyncio).
Its cold start and warm latency are the floor under any A2A handler built the way ours is
(an async core behind a Lambda handler); the bench prints them next to ours.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime
from typing import Any

_tasks: dict[str, str] = {}
_loop = asyncio.new_event_loop()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def _handle(request: dict[str, Any]) -> dict[str, Any]:
    params = request["params"]
    if request["method"] == "tasks/get":
        stored: dict[str, Any] = json.loads(_tasks[params["id"]])
        return stored
    message = params["message"]
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    text = "\n".join(p["text"] for p in message["parts"] if p.get("kind") == "text")
    task = {
        "kind": "task",
        "id": task_id,
        "contextId": context_id,
        "status": {"state": "completed", "timestamp": _now()},
        "artifacts": [
            {
                "artifactId": str(uuid.uuid4()),
                "name": "echo",
                "parts": [{"kind": "text", "text": text}],
            }
        ],
        "history": [{**message, "taskId": task_id, "contextId": context_id}],
    }
    _tasks[task_id] = json.dumps(task)
    return task


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    request = json.loads(event["body"])
    result = _loop.run_until_complete(_handle(request))
    body = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": result})
    return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": body}
