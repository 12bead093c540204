"""A reference, not an agent server: `floor_stdlib` with the request and the task as pydantic
models (validated in, serialized out), as every pydantic-based A2A server does at least.

Its figures are the floor under any handler that keeps pydantic in the request path.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, extra="allow")


class TextPart(Model):
    kind: Literal["text"] = "text"
    text: str


class Message(Model):
    kind: Literal["message"] = "message"
    message_id: str
    role: Literal["user", "agent"]
    parts: list[TextPart]
    context_id: str | None = None
    task_id: str | None = None


class Artifact(Model):
    artifact_id: str
    name: str | None = None
    parts: list[TextPart]


class TaskStatus(Model):
    state: str
    timestamp: str | None = None


class Task(Model):
    kind: Literal["task"] = "task"
    id: str
    context_id: str
    status: TaskStatus
    artifacts: list[Artifact] | None = None
    history: list[Message] | None = None


class SendParams(Model):
    message: Message


class GetParams(Model):
    id: str


_tasks: dict[str, str] = {}
_loop = asyncio.new_event_loop()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def _handle(request: dict[str, Any]) -> Task:
    if request["method"] == "tasks/get":
        return Task.model_validate_json(_tasks[GetParams.model_validate(request["params"]).id])
    message = SendParams.model_validate(request["params"]).message
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    text = "\n".join(p.text for p in message.parts)
    task = Task(
        id=task_id,
        context_id=context_id,
        status=TaskStatus(state="completed", timestamp=_now()),
        artifacts=[
            Artifact(artifact_id=str(uuid.uuid4()), name="echo", parts=[TextPart(text=text)])
        ],
        history=[message.model_copy(update={"task_id": task_id, "context_id": context_id})],
    )
    _tasks[task_id] = task.model_dump_json(by_alias=True, exclude_none=True)
    return task


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    request = json.loads(event["body"])
    task = _loop.run_until_complete(_handle(request))
    result = task.model_dump_json(by_alias=True, exclude_none=True)
    body = '{"jsonrpc":"2.0","id":' + json.dumps(request.get("id")) + ',"result":' + result + "}"
    return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": body}
