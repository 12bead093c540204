"""A2A 0.3's JSON-RPC objects (`jsonrpc_models.py`) <-> the internal model (A2A 1.0's).

`*_in` functions take 0.3 objects as read (a request's message; on the client, a result or a
stream event) and return internal ones; `*_out` functions take internal objects and return 0.3's
JSON values (dicts ready to encode): the `result` of its methods and stream events. The mapping:

- TextPart `{kind: "text", text}` <-> Part `text`; FilePart `{kind: "file", file: {bytes |
  uri, mimeType, name}}` <-> Part `raw` (both standard base64 text) or `url`, with
  `media_type` and `filename`; DataPart `{kind: "data", data}` <-> Part `data` when it is a JSON
  object. `data` holding any other JSON value (a list, a string, a number, null) goes out as a
  DataPart `{"value": <it>}` with `metadata.data_part_compat = true`, and such a DataPart comes
  in as that value: the convention of the official SDK's 0.3 compatibility layer, so a 0.3
  client sees the same thing from us as from it. `media_type` and `filename` on a text or data
  part have no place in 0.3's parts and are not written (neither does the official SDK).
- `kind` on Task, Message and the update events; a status update's `final` is true when its
  state ends the stream (`TaskState.ends_stream`: terminal or interrupted), computed here.
- States and roles are the internal values, which are 0.3's names.

Members come in the order 0.3's clients have always read from us, and a member the internal
model leaves out (None) is not written (tests/unit/test_v03_jsonrpc_convert.py holds the bytes).
What is not a task, a message, an event or a task list (push configs, written by
`jsonrpc_params.py`; the card) is written as its own JSON. Requests' params are
`jsonrpc_params.py`'s, which converts their messages here.
"""

from __future__ import annotations

from typing import Any

from .. import codec
from .. import models as m
from . import jsonrpc_models as v03

JSON = dict[str, Any]

DATA_PART_COMPAT = "data_part_compat"


# --- 0.3 -> internal ------------------------------------------------------------------------------


def part_in(part: v03.TextPart | v03.FilePart | v03.DataPart) -> m.Part:
    if isinstance(part, v03.TextPart):
        return m.Part(text=part.text, metadata=part.metadata)
    if isinstance(part, v03.FilePart):
        file = part.file
        if isinstance(file, v03.FileWithBytes):
            return m.Part(
                raw=file.bytes,
                media_type=file.mime_type,
                filename=file.name,
                metadata=part.metadata,
            )
        return m.Part(
            url=file.uri, media_type=file.mime_type, filename=file.name, metadata=part.metadata
        )
    metadata = part.metadata
    if metadata and metadata.get(DATA_PART_COMPAT) is True and "value" in part.data:
        rest = {key: value for key, value in metadata.items() if key != DATA_PART_COMPAT}
        return m.Part(data=part.data["value"], metadata=rest or None)
    return m.Part(data=part.data, metadata=metadata)


def message_in(message: v03.Message) -> m.Message:
    return m.Message(
        message_id=message.message_id,
        role=message.role,
        parts=[part_in(part) for part in message.parts],
        context_id=message.context_id,
        task_id=message.task_id,
        reference_task_ids=message.reference_task_ids,
        extensions=message.extensions,
        metadata=message.metadata,
    )


def status_in(status: v03.TaskStatus) -> m.TaskStatus:
    return m.TaskStatus(
        state=status.state,
        message=None if status.message is None else message_in(status.message),
        timestamp=status.timestamp,
    )


def artifact_in(artifact: v03.Artifact) -> m.Artifact:
    return m.Artifact(
        artifact_id=artifact.artifact_id,
        parts=[part_in(part) for part in artifact.parts],
        name=artifact.name,
        description=artifact.description,
        extensions=artifact.extensions,
        metadata=artifact.metadata,
    )


def task_in(task: v03.Task) -> m.Task:
    return m.Task(
        id=task.id,
        context_id=task.context_id,
        status=status_in(task.status),
        artifacts=None if task.artifacts is None else [artifact_in(a) for a in task.artifacts],
        history=None if task.history is None else [message_in(h) for h in task.history],
        metadata=task.metadata,
    )


def stream_result_in(result: v03.StreamResult) -> m.StreamResult:
    """A stream's `result` (or message/send's: a Task or a Message) as the internal model."""
    if isinstance(result, v03.TaskStatusUpdateEvent):
        return m.TaskStatusUpdateEvent(
            task_id=result.task_id,
            context_id=result.context_id,
            status=status_in(result.status),
            metadata=result.metadata,
        )
    if isinstance(result, v03.TaskArtifactUpdateEvent):
        return m.TaskArtifactUpdateEvent(
            task_id=result.task_id,
            context_id=result.context_id,
            artifact=artifact_in(result.artifact),
            append=result.append,
            last_chunk=result.last_chunk,
            metadata=result.metadata,
        )
    if isinstance(result, v03.Task):
        return task_in(result)
    return message_in(result)


# --- internal -> 0.3 ------------------------------------------------------------------------------


def part_out(part: m.Part) -> JSON:
    out: JSON
    metadata = part.metadata
    if part.text is not None:
        if metadata is None:  # the common part, at once
            return {"kind": "text", "text": part.text}
        out = {"kind": "text", "text": part.text}
    elif part.raw is not None or part.url is not None:
        content: JSON = {"bytes": part.raw} if part.raw is not None else {"uri": part.url}
        if part.media_type is not None:
            content["mimeType"] = part.media_type
        if part.filename is not None:
            content["name"] = part.filename
        out = {"kind": "file", "file": content}
    elif isinstance(part.data, dict):
        out = {"kind": "data", "data": part.data}
    else:
        out = {"kind": "data", "data": {"value": part.data}}
        metadata = {**(metadata or {}), DATA_PART_COMPAT: True}
    if metadata is not None:
        out["metadata"] = metadata
    return out


def message_out(message: m.Message) -> JSON:
    out: JSON = {
        "kind": "message",
        "messageId": message.message_id,
        "role": message.role,
        "parts": [part_out(part) for part in message.parts],
    }
    if message.context_id is not None:
        out["contextId"] = message.context_id
    if message.task_id is not None:
        out["taskId"] = message.task_id
    if message.reference_task_ids is not None:
        out["referenceTaskIds"] = message.reference_task_ids
    if message.extensions is not None:
        out["extensions"] = message.extensions
    if message.metadata is not None:
        out["metadata"] = message.metadata
    return out


def status_out(status: m.TaskStatus) -> JSON:
    out: JSON = {"state": status.state.value}
    if status.message is not None:
        out["message"] = message_out(status.message)
    if status.timestamp is not None:
        out["timestamp"] = status.timestamp
    return out


def artifact_out(artifact: m.Artifact) -> JSON:
    out: JSON = {
        "artifactId": artifact.artifact_id,
        "parts": [part_out(part) for part in artifact.parts],
    }
    if artifact.name is not None:
        out["name"] = artifact.name
    if artifact.description is not None:
        out["description"] = artifact.description
    if artifact.extensions is not None:
        out["extensions"] = artifact.extensions
    if artifact.metadata is not None:
        out["metadata"] = artifact.metadata
    return out


def task_out(task: m.Task) -> JSON:
    out: JSON = {
        "kind": "task",
        "id": task.id,
        "contextId": task.context_id,
        "status": status_out(task.status),
    }
    if task.artifacts is not None:
        out["artifacts"] = [artifact_out(artifact) for artifact in task.artifacts]
    if task.history is not None:
        out["history"] = [message_out(message) for message in task.history]
    if task.metadata is not None:
        out["metadata"] = task.metadata
    return out


def status_update_out(event: m.TaskStatusUpdateEvent) -> JSON:
    out: JSON = {
        "kind": "status-update",
        "taskId": event.task_id,
        "contextId": event.context_id,
        "status": status_out(event.status),
        "final": event.status.state.ends_stream,
    }
    if event.metadata is not None:
        out["metadata"] = event.metadata
    return out


def artifact_update_out(event: m.TaskArtifactUpdateEvent) -> JSON:
    out: JSON = {
        "kind": "artifact-update",
        "taskId": event.task_id,
        "contextId": event.context_id,
        "artifact": artifact_out(event.artifact),
    }
    if event.append is not None:
        out["append"] = event.append
    if event.last_chunk is not None:
        out["lastChunk"] = event.last_chunk
    if event.metadata is not None:
        out["metadata"] = event.metadata
    return out


def stream_result_out(result: m.StreamResult) -> JSON:
    """A stream's `result`: the Task, Message or update event itself, told apart by `kind`."""
    if isinstance(result, m.TaskStatusUpdateEvent):
        return status_update_out(result)
    if isinstance(result, m.TaskArtifactUpdateEvent):
        return artifact_update_out(result)
    if isinstance(result, m.Task):
        return task_out(result)
    return message_out(result)


def result_out(result: Any) -> Any:
    """A method's `result`: a Task or a Message (message/send, tasks/get, tasks/cancel), a task
    list, or what has no other form than the internal model's JSON."""
    if isinstance(result, m.Task):
        return task_out(result)
    if isinstance(result, m.Message):
        return message_out(result)
    if isinstance(result, m.ListTasksResponse):
        return {
            "tasks": [task_out(task) for task in result.tasks],
            "totalSize": result.total_size,
            "pageSize": result.page_size,
            "nextPageToken": result.next_page_token,
        }
    return codec.to_builtins(result)
