"""A2A v1.0 <-> the internal model (the models the service and the stores use; their message
content and requests are 1.0's).

`*_in` functions take checked v1.0 requests (`v10/models.py`) and return internal models; `*_out`
functions take internal models and return v1.0 JSON values (dicts ready to encode). The mapping:

- Part: the same fields (`text`, `raw`, `url`, `data`, `mediaType`, `filename`, `metadata`);
  `raw` comes in as ProtoJSON bytes (base64 or base64url, padded or not) and is kept as standard
  padded base64. (A 0.3 client sees `data` that is no JSON object the official SDK's way:
  `v03/jsonrpc_convert.py`.)
- Role `ROLE_USER` / `ROLE_AGENT` <-> "user" / "agent"; TaskState `TASK_STATE_<NAME>` <->
  "<name>" ("input-required" <-> TASK_STATE_INPUT_REQUIRED); v0.3's "unknown" is
  TASK_STATE_UNSPECIFIED (the tables are `models.py`'s `ROLES` and `STATES`).
- `kind` is never written; status updates carry no `final` (a v1.0 stream just ends).
- The requests and push configs are the internal model's own (1.0's): most are decoded straight
  into it (`methods.py`); here a send request's message is converted, and ProtoJSON's empty
  strings (`"token": ""`) are taken as absent in a push config and a send configuration.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .. import limits
from .. import models as m
from ..errors import InvalidParamsError
from ..models import TaskState
from . import models as v10

_STATE_IN = {name: state for state, name in v10.STATES.items()}
_ROLE_IN: dict[str, Any] = {name: role for role, name in v10.ROLES.items()}


def state_in(name: str) -> TaskState:
    """The internal state of a 1.0 state name (TASK_STATE_UNSPECIFIED: "unknown")."""
    return _STATE_IN[name]


def state_out(state: TaskState) -> str:
    return v10.STATES[state]


# --- requests in ---------------------------------------------------------------------------------


def message_in(message: v10.Message, field: str = "message") -> m.Message:
    return m.Message(
        message_id=message.message_id,
        role=_ROLE_IN[message.role],
        parts=[part_in(part, f"{field}.parts.{i}") for i, part in enumerate(message.parts)],
        context_id=message.context_id or None,
        task_id=message.task_id or None,
        reference_task_ids=message.reference_task_ids or None,
        extensions=message.extensions or None,
        metadata=message.metadata,
    )


def part_in(part: v10.Part, field: str) -> m.Part:
    return m.Part(
        text=part.text,
        raw=None if part.raw is None else _standard_base64(part.raw, f"{field}.raw"),
        url=part.url,
        data=part.data,
        metadata=part.metadata,
        filename=part.filename or None,
        media_type=part.media_type or None,
    )


def _standard_base64(text: str, field: str) -> str:
    """ProtoJSON `bytes` may be base64 or base64url, padded or not; the stores keep standard
    padded base64 (what v0.3 clients read)."""
    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        raise _invalid(field, "must be base64 (RFC 4648)") from None
    return base64.b64encode(raw).decode()


def send_params_in(request: v10.SendMessageRequest) -> m.SendMessageRequest:
    config = request.configuration
    if config is not None:
        push = config.task_push_notification_config
        config = m.SendMessageConfiguration(
            accepted_output_modes=config.accepted_output_modes or None,
            task_push_notification_config=None if push is None else push_config_in(push),
            history_length=config.history_length,
            return_immediately=config.return_immediately,
        )
    return m.SendMessageRequest(
        message=message_in(request.message), configuration=config, metadata=request.metadata
    )


def push_config_in(config: m.TaskPushNotificationConfig) -> m.TaskPushNotificationConfig:
    """A push config as decoded, its empty strings absent (and its tenant, which the config is
    not kept under, left out)."""
    auth = config.authentication
    return m.TaskPushNotificationConfig(
        url=config.url,
        id=config.id or None,
        task_id=config.task_id,
        token=config.token or None,
        authentication=None
        if auth is None
        else m.AuthenticationInfo(scheme=auth.scheme, credentials=auth.credentials or None),
    )


def list_params_in(request: v10.ListTasksRequest) -> m.ListTasksRequest:
    after_ms = None
    if request.status_timestamp_after:
        after_ms = limits.timestamp_ms(request.status_timestamp_after, "statusTimestampAfter")
    return m.ListTasksRequest(
        context_id=request.context_id or None,
        status=None if request.status is None else state_in(request.status),
        page_size=request.page_size,
        page_token=request.page_token or None,
        history_length=request.history_length,
        status_timestamp_after_ms=after_ms,
        include_artifacts=request.include_artifacts,
    )


def _invalid(field: str, message: str) -> InvalidParamsError:
    return InvalidParamsError(data={"errors": [{"field": field, "message": message}]})


# --- results out ---------------------------------------------------------------------------------


def part_out(part: m.Part) -> dict[str, Any]:
    out: dict[str, Any]
    if part.text is not None:
        out = {"text": part.text}
    elif part.raw is not None:
        out = {"raw": part.raw}
    elif part.url is not None:
        out = {"url": part.url}
    else:
        out = {"data": part.data}
    if part.media_type:
        out["mediaType"] = part.media_type
    if part.filename:
        out["filename"] = part.filename
    if part.metadata is not None:
        out["metadata"] = part.metadata
    return out


def message_out(message: m.Message) -> dict[str, Any]:
    out: dict[str, Any] = {
        "messageId": message.message_id,
        "role": v10.ROLES[message.role],
        "parts": [part_out(part) for part in message.parts],
    }
    if message.context_id is not None:
        out["contextId"] = message.context_id
    if message.task_id is not None:
        out["taskId"] = message.task_id
    if message.metadata is not None:
        out["metadata"] = message.metadata
    if message.extensions:
        out["extensions"] = message.extensions
    if message.reference_task_ids:
        out["referenceTaskIds"] = message.reference_task_ids
    return out


def status_out(status: m.TaskStatus) -> dict[str, Any]:
    out: dict[str, Any] = {"state": v10.STATES[status.state]}
    if status.message is not None:
        out["message"] = message_out(status.message)
    if status.timestamp is not None:
        out["timestamp"] = status.timestamp
    return out


def artifact_out(artifact: m.Artifact) -> dict[str, Any]:
    out: dict[str, Any] = {
        "artifactId": artifact.artifact_id,
        "parts": [part_out(part) for part in artifact.parts],
    }
    if artifact.name is not None:
        out["name"] = artifact.name
    if artifact.description is not None:
        out["description"] = artifact.description
    if artifact.metadata is not None:
        out["metadata"] = artifact.metadata
    if artifact.extensions:
        out["extensions"] = artifact.extensions
    return out


def task_out(task: m.Task) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": task.id,
        "contextId": task.context_id,
        "status": status_out(task.status),
    }
    if task.artifacts is not None:
        out["artifacts"] = [artifact_out(a) for a in task.artifacts]
    if task.history is not None:
        out["history"] = [message_out(message) for message in task.history]
    if task.metadata is not None:
        out["metadata"] = task.metadata
    return out


def status_update_out(event: m.TaskStatusUpdateEvent) -> dict[str, Any]:
    out: dict[str, Any] = {
        "taskId": event.task_id,
        "contextId": event.context_id,
        "status": status_out(event.status),
    }
    if event.metadata is not None:
        out["metadata"] = event.metadata
    return out


def artifact_update_out(event: m.TaskArtifactUpdateEvent) -> dict[str, Any]:
    out: dict[str, Any] = {
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


def stream_response(payload: m.StreamResult) -> dict[str, Any]:
    """A `StreamResponse`: the one field that says what the event is."""
    if isinstance(payload, m.Task):
        return {"task": task_out(payload)}
    if isinstance(payload, m.TaskStatusUpdateEvent):
        return {"statusUpdate": status_update_out(payload)}
    if isinstance(payload, m.TaskArtifactUpdateEvent):
        return {"artifactUpdate": artifact_update_out(payload)}
    return {"message": message_out(payload)}


def send_result_out(result: m.Task | m.Message) -> dict[str, Any]:
    """A `SendMessageResponse`: `{task}` or `{message}`."""
    if isinstance(result, m.Task):
        return {"task": task_out(result)}
    return {"message": message_out(result)}


def push_config_out(config: m.TaskPushNotificationConfig) -> dict[str, Any]:
    out: dict[str, Any] = {"taskId": config.task_id or "", "url": config.url}
    if config.id is not None:
        out["id"] = config.id
    if config.token is not None:
        out["token"] = config.token
    auth = config.authentication
    if auth is not None and auth.scheme:
        out["authentication"] = {"scheme": auth.scheme}
        if auth.credentials is not None:
            out["authentication"]["credentials"] = auth.credentials
    return out


def list_result_out(result: m.ListTasksResponse) -> dict[str, Any]:
    return {
        "tasks": [task_out(task) for task in result.tasks],
        "nextPageToken": result.next_page_token,
        "pageSize": result.page_size,
        "totalSize": result.total_size,
    }
