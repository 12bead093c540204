"""The internal model -> A2A 0.3's JSON-RPC objects: the `result` of its methods and stream events.

0.3's JSON-RPC form is the spec's JSON schema (spec 0.3 §6): a `kind` on parts, messages, tasks
and events; a FilePart's `file` holding `bytes` (base64) or `uri`, with `mimeType` and `name`; a
status update's `final`, true when its state ends the stream (`TaskState.ends_stream`: terminal or
interrupted), computed here from the state rather than read from the event. Members come in the
order the schema's clients have always read from us, and a member the internal model leaves out
(None) is not written.

The functions read the internal objects' attributes and build JSON values (dicts ready to
encode), so 0.3's wire no longer is the internal model's own JSON: the internal model can become
A2A 1.0's with this module the one place that writes 0.3's shapes over JSON-RPC
(tests/unit/test_v03_jsonrpc_convert.py holds the output to the form clients read today). What is
not a task, a message or an event (a task list, push configs, the card) is written as the
internal model's JSON, which is 0.3's for those.
"""

from __future__ import annotations

from typing import Any

from .. import models as m
from ..service import StreamEvent
from ..transport import render

JSON = dict[str, Any]


def part_out(part: m.Part) -> JSON:
    out: JSON
    if isinstance(part, m.TextPart):
        out = {"kind": "text", "text": part.text}
    elif isinstance(part, m.FilePart):
        file = part.file
        content: JSON = (
            {"bytes": file.bytes} if isinstance(file, m.FileWithBytes) else {"uri": file.uri}
        )
        if file.mime_type is not None:
            content["mimeType"] = file.mime_type
        if file.name is not None:
            content["name"] = file.name
        out = {"kind": "file", "file": content}
    else:
        out = {"kind": "data", "data": part.data}
    if part.metadata is not None:
        out["metadata"] = part.metadata
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


def event_result(event: StreamEvent) -> JSON:
    """The `result` of one stream event."""
    return stream_result_out(event.payload)


def result_out(result: Any) -> Any:
    """A method's `result`: a Task or a Message (message/send, tasks/get, tasks/cancel), a task
    list, or what has no other form than the internal model's JSON."""
    if isinstance(result, m.Task):
        return task_out(result)
    if isinstance(result, m.Message):
        return message_out(result)
    if isinstance(result, m.ListTasksResult):
        return {
            "tasks": [task_out(task) for task in result.tasks],
            "totalSize": result.total_size,
            "pageSize": result.page_size,
            "nextPageToken": result.next_page_token,
        }
    return render(result)
